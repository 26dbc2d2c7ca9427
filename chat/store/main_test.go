package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, to create test databases

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

var ctx = context.Background()

// One PostgreSQL server for the package, started on first use and stopped after all tests;
// each test gets its own database on it.
var (
	pgOnce sync.Once
	pg     *testutil.Postgres
	pgErr  error
	pgTB   = &mainTB{}
	dbSeq  atomic.Int64
)

// mainTB lets TestMain own the server: testutil wants a testing.TB for failures and cleanup.
type mainTB struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
}

func (m *mainTB) Helper()                   {}
func (m *mainTB) Fatal(args ...any)         { panic(fmt.Sprint(args...)) }
func (m *mainTB) Fatalf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }
func (m *mainTB) Cleanup(f func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cleanups = append(m.cleanups, f)
}

func TestMain(m *testing.M) {
	code := m.Run()
	for i := len(pgTB.cleanups) - 1; i >= 0; i-- {
		pgTB.cleanups[i]()
	}
	os.Exit(code)
}

// postgresURL creates a fresh database on the shared server and returns its URL.
func postgresURL(t *testing.T) string {
	t.Helper()
	pgOnce.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				pgErr = fmt.Errorf("start PostgreSQL: %v", r)
			}
		}()
		pg = testutil.StartPostgres(pgTB)
	})
	if pgErr != nil {
		t.Fatal(pgErr)
	}
	admin, err := sql.Open("pgx", pg.URL)
	testutil.Check(t, err)
	defer admin.Close()
	name := fmt.Sprintf("chat_%d", dbSeq.Add(1))
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	return strings.Replace(pg.URL, "/agentry?", "/"+name+"?", 1)
}

var kinds = []string{"sqlite", "postgres"}

// open opens a fresh store of kind, closed at the end of the test.
func open(t *testing.T, kind string) Store { return openKeyed(t, kind, nil) }

// openKeyed opens a fresh store of kind with a headers key (nil: none).
func openKeyed(t *testing.T, kind string, key []byte) Store {
	t.Helper()
	url := "file:" + filepath.Join(t.TempDir(), "sub", "chat.db")
	if kind == "postgres" {
		url = postgresURL(t)
	}
	s, err := OpenWith(ctx, url, Options{HeadersKey: key})
	testutil.Check(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// replicas opens two stores on one fresh PostgreSQL database, as two replicas would.
func replicas(t *testing.T) (a, b Store) {
	t.Helper()
	url := postgresURL(t)
	a, b = must[Store](t)(Open(ctx, url)), must[Store](t)(Open(ctx, url))
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	return a, b
}

// each runs fn on a fresh store of every kind, as subtests named after the kind.
func each(t *testing.T, fn func(t *testing.T, s Store)) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) { fn(t, open(t, kind)) })
	}
}

// eachKeyed is each with stores that have a headers key.
func eachKeyed(t *testing.T, fn func(t *testing.T, s Store)) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) { fn(t, openKeyed(t, kind, testHeadersKey)) })
	}
}

// wantCode fails unless err carries the catalogue code (code "" means no error).
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	switch {
	case code == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case code != "" && model.CodeOf(err) != code:
		t.Fatalf("want %s, got %v", code, err)
	}
}

func must[T any](t *testing.T) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		testutil.Check(t, err)
		return v
	}
}

func users(t *testing.T, s Store, uids ...string) {
	t.Helper()
	for _, uid := range uids {
		if _, err := s.CreateUser(ctx, model.User{UID: uid, Name: strings.ToUpper(uid)}); err != nil {
			t.Fatal(err)
		}
	}
}

func text(from, to string, typ model.ReceiverType, body string) model.Message {
	return model.Message{Sender: from, ReceiverID: to, ReceiverType: typ, Type: model.TypeText, Text: body}
}

func send(t *testing.T, s Store, m model.Message) model.Message {
	t.Helper()
	out, err := s.SendMessage(ctx, m)
	testutil.Check(t, err)
	return out
}

// group creates a group owned by owner with the members as participants.
func group(t *testing.T, s Store, owner, guid string, typ model.GroupType, members ...string) {
	t.Helper()
	var ms []model.Member
	for _, uid := range members {
		ms = append(ms, model.Member{UID: uid})
	}
	g := model.Group{GUID: guid, Name: "Group " + guid, Type: typ}
	if typ == model.GroupPassword {
		g.PasswordHash = "hash:secret"
	}
	if _, err := s.CreateGroup(ctx, owner, g, ms); err != nil {
		t.Fatal(err)
	}
}

// allEvents reads the whole log.
func allEvents(t *testing.T, s Store) []model.Event {
	t.Helper()
	var out []model.Event
	for pos := int64(0); ; {
		evs, err := s.EventsAfter(ctx, pos, 1000)
		testutil.Check(t, err)
		if len(evs) == 0 {
			return out
		}
		out = append(out, evs...)
		pos = evs[len(evs)-1].Pos
	}
}

func eventTypes(evs []model.Event) string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return strings.Join(out, ",")
}
