package memory

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/runtime/llm"
)

var ctx = context.Background()

// backends opens a fresh store of each kind; the PostgreSQL one is a real server.
func backends(parent *testing.T) map[string]func(t *testing.T) Store {
	var pg *testutil.Postgres
	var pgOnce sync.Once
	n := 0
	return map[string]func(t *testing.T) Store{
		"memory": func(t *testing.T) Store { return NewInMemory() },
		"sqlite": func(t *testing.T) Store {
			s, err := Open(ctx, "file:"+filepath.Join(t.TempDir(), "sub", "memory.db"))
			testutil.Check(t, err)
			t.Cleanup(func() { _ = s.Close() })
			return s
		},
		"postgres": func(t *testing.T) Store {
			pgOnce.Do(func() { pg = testutil.StartPostgres(parent) }) // one server for the whole suite
			// Each sub-test gets its own database on the shared server.
			n++
			admin, err := Open(ctx, pg.URL)
			testutil.Check(t, err)
			db := fmt.Sprintf("suite_%d", n)
			if _, err := admin.(*sqlStore).db.ExecContext(ctx, "CREATE DATABASE "+db); err != nil {
				t.Fatal(err)
			}
			_ = admin.Close()
			s, err := Open(ctx, strings.Replace(pg.URL, "/agentry?", "/"+db+"?", 1))
			testutil.Check(t, err)
			t.Cleanup(func() { _ = s.Close() })
			return s
		},
	}
}

func msg(id, role, content string) Message { return Message{ID: id, Role: role, Content: content} }

// allMessages reads every message of a thread, page by page.
func allMessages(s Store, agentID, threadID, resourceID string) ([]Message, error) {
	var out []Message
	for n := 0; ; n++ {
		page, err := s.Messages(ctx, agentID, threadID, resourceID, Page{Number: n, Size: MaxPageSize})
		if err != nil {
			return nil, err
		}
		out = append(out, page.Messages...)
		if !page.HasMore {
			return out, nil
		}
	}
}

func ids(msgs []Message) string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return strings.Join(out, ",")
}

// TestStoreBehaviour is one behaviour suite run against every backend.
func TestStoreBehaviour(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			for _, c := range slices.Concat(storeCases, ownershipCases, pagingAndTitleCases) {
				t.Run(c.name, func(t *testing.T) {
					s := open(t)
					if s.Kind() != name {
						t.Errorf("kind %q", s.Kind())
					}
					c.run(t, s)
				})
			}
		})
	}
}

// storeCase is a check of the behaviour suite, given a fresh store of one backend.
type storeCase struct {
	name string
	run  func(t *testing.T, s Store)
}

var storeCases = []storeCase{
	{"save, recall and order", func(t *testing.T, s Store) {
		err := s.Save(ctx, "chef", "t1", "alice", []Message{
			msg("u1", "user", "What can I use instead of butter?"),
			{ID: "a1", Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "suggest-substitute", Arguments: `{"ingredient":"butter"}`}}},
			{ID: "t1", Role: "tool", ToolCallID: "c1", Content: `{"substitute":"oil"}`},
			msg("a2", "assistant", "Use oil."),
		})
		testutil.Check(t, err)
		all, err := allMessages(s, "chef", "t1", "alice")
		if err != nil || ids(all) != "u1,a1,t1,a2" {
			t.Fatalf("messages %s %v", ids(all), err)
		}
		if all[1].ToolCalls[0].Name != "suggest-substitute" || all[2].ToolCallID != "c1" || all[0].ResourceID != "alice" || all[0].ThreadID != "t1" {
			t.Errorf("fields lost: %+v", all)
		}
		if all[0].CreatedAt.IsZero() || time.Since(all[0].CreatedAt) > time.Minute {
			t.Errorf("createdAt %v", all[0].CreatedAt)
		}
		last, _ := s.Recall(ctx, "chef", "t1", "alice", 2)
		if ids(last) != "t1,a2" {
			t.Errorf("recall 2: %s", ids(last))
		}
		if none, err := s.Recall(ctx, "chef", "nope", "alice", 5); len(none) != 0 || err != nil {
			t.Errorf("unknown thread: %v", none)
		}
	}},
	{"resending the history creates no duplicates", func(t *testing.T, s Store) {
		history := []Message{msg("m1", "user", "hi"), msg("m2", "assistant", "hello")}
		for i := 0; i < 3; i++ {
			testutil.Check(t, s.Save(ctx, "a", "t", "", history))
			history = append(history, msg(fmt.Sprintf("m%d", len(history)+1), "user", "more"))
		}
		all, _ := allMessages(s, "a", "t", "")
		if ids(all) != "m1,m2,m3,m4" {
			t.Errorf("got %s", ids(all))
		}
	}},
	{"agents, threads and resources are separate", func(t *testing.T, s Store) {
		_ = s.Save(ctx, "a", "t1", "alice", []Message{msg("x", "user", "first thread of alice")})
		time.Sleep(2 * time.Millisecond)
		_ = s.Save(ctx, "a", "t2", "bob", []Message{msg("x", "user", "bob")})
		time.Sleep(2 * time.Millisecond)
		_ = s.Save(ctx, "a", "t3", "alice", []Message{msg("x", "user", "second")})
		_ = s.Save(ctx, "b", "t1", "alice", []Message{msg("x", "user", "other agent")})
		page, err := s.Threads(ctx, "a", "alice", Page{})
		threads := page.Threads
		if err != nil || len(threads) != 2 || threads[0].ID != "t3" || threads[1].ID != "t1" || threads[1].Title != "first thread of alice" || page.Total != 2 || page.HasMore {
			t.Errorf("alice's threads: %+v %v", page, err)
		}
		if ownerless, _ := s.Threads(ctx, "a", "", Page{}); len(ownerless.Threads) != 0 {
			t.Errorf("the empty resource lists only threads without a resource: %+v", ownerless)
		}
		other, _ := allMessages(s, "b", "t1", "alice")
		if len(other) != 1 || other[0].Content != "other agent" {
			t.Errorf("agent b: %+v", other)
		}
	}},
	{"concurrent writers lose and duplicate nothing", func(t *testing.T, s Store) {
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 10; i++ {
					// Every writer also resends another writer's message.
					batch := []Message{msg(fmt.Sprintf("w%d-%d", w, i), "user", "x"), msg(fmt.Sprintf("w%d-%d", (w+1)%8, i), "user", "x")}
					if err := s.Save(ctx, "a", "shared", "", batch); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		all, _ := allMessages(s, "a", "shared", "")
		seen := map[string]int{}
		for _, m := range all {
			seen[m.ID]++
		}
		if len(all) != 80 || len(seen) != 80 {
			t.Errorf("%d messages, %d distinct", len(all), len(seen))
		}
	}},
}

func TestReopenKeepsDataAndMigrationsRunOnce(t *testing.T) {
	path := "file:" + filepath.Join(t.TempDir(), "m.db")
	s, err := Open(ctx, path)
	testutil.Check(t, err)
	_ = s.Save(ctx, "a", "t", "", []Message{msg("1", "user", "kept")})
	_ = s.Close()
	s, err = Open(ctx, path)
	testutil.Check(t, err)
	defer s.Close()
	all, _ := allMessages(s, "a", "t", "")
	var versions int
	_ = s.(*sqlStore).db.QueryRow(`SELECT COUNT(*) FROM agentry_schema_migrations`).Scan(&versions)
	if len(all) != 1 || versions != len(sqliteDialect.migrations) {
		t.Errorf("messages %d, migrations recorded %d", len(all), versions)
	}
}

func TestPostgresOutageAndRecovery(t *testing.T) {
	pg := testutil.StartPostgres(t)
	s, err := Open(ctx, pg.URL)
	testutil.Check(t, err)
	defer s.Close()
	testutil.Check(t, s.Save(ctx, "a", "t", "", []Message{msg("1", "user", "before")}))
	pg.Stop()
	err = s.Save(ctx, "a", "t", "", []Message{msg("2", "user", "during")})
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("an outage must be ErrUnavailable, got %v", err)
	}
	if err := s.Ping(ctx); !errors.Is(err, ErrUnavailable) {
		t.Errorf("ping during the outage: %v", err)
	}
	pg.Start()
	// The pool reconnects by itself; a loaded machine may take a while to get there.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if err = s.Save(ctx, "a", "t", "", []Message{msg("3", "user", "after")}); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("no recovery after the database returned: %v", err)
	}
	all, _ := allMessages(s, "a", "t", "")
	if ids(all) != "1,3" {
		t.Errorf("got %s", ids(all))
	}
}

func TestOpenRejectsAndRedacts(t *testing.T) {
	if _, err := Open(ctx, "redis://x"); err == nil || !strings.Contains(err.Error(), "memory://, file:PATH or postgres://") {
		t.Errorf("%v", err)
	}
	if got := Redact("postgres://user:s3cret@db:5432/x"); got != "postgres://user:***@db:5432/x" {
		t.Errorf("%s", got)
	}
	_, err := Open(ctx, "postgres://user:s3cret@127.0.0.1:1/x?connect_timeout=1")
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("connect errors must not show the password: %v", err)
	}
}

// A traced store's save and recall are spans naming the backend and thread, never the text.
func TestTracedStoreSpans(t *testing.T) {
	rec := testutil.RecordSpans(t)
	s := Traced(NewInMemory())
	ctx := context.Background()
	testutil.Check(t, s.Save(ctx, "chef", "thread-1", "alice", []Message{{ID: "m1", Role: "user", Content: "a private question"}}))
	if _, err := s.Recall(ctx, "chef", "thread-1", "alice", 10); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(ctx, "chef", "thread-1", "mallory", []Message{{ID: "m2", Role: "user", Content: "x"}}); err == nil {
		t.Fatal("another resource's thread must be refused")
	}
	var got []string
	for _, sp := range rec.Ended() {
		line := sp.Name() + ":" + sp.Status().Code.String()
		for _, kv := range sp.Attributes() {
			if strings.Contains(kv.Value.Emit(), "private question") {
				t.Errorf("%s holds the message text", sp.Name())
			}
			if kv.Key == "agentry.memory.messages" {
				line += ":" + kv.Value.Emit()
			}
		}
		got = append(got, line)
	}
	if strings.Join(got, " ") != "memory save:Unset:1 memory recall:Unset:1 memory save:Error:1" {
		t.Errorf("spans %q", got)
	}
}
