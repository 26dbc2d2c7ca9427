package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/crypto/bcrypt"

	"github.com/agentry-dev/agentry/chat/hub"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

const chefChanged = `{"type":"agents.changed","agentId":"chef"}`

// TestAgentsChangedFrames: enabling, disabling, deleting and a put that changes what users see
// (enabled, name, icon) send every socket agents.changed naming the agent and nothing else; a
// put that changes nothing users see, or a new disabled agent, sends nothing.
func TestAgentsChangedFrames(t *testing.T) {
	e := newEnv(t, keyedStores()["sqlite"](t), Options{})
	step := func(method, path string, body any, status int, want ...string) {
		t.Helper()
		e.expect(e.do(method, path, keyAuth, body), status, "")
		if got := e.hub.published(); !slices.Equal(got, want) {
			t.Fatalf("%s %s published %q, want %q", method, path, got, want)
		}
	}
	body := chefBody("https://chef.example.com/agent")
	step("PUT", "/agents/chef", body, http.StatusCreated) // new and disabled: users see nothing
	body["name"] = "Chef 2"
	step("PUT", "/agents/chef", body, http.StatusOK) // still disabled
	step("POST", "/agents/chef/enable", nil, http.StatusOK, chefChanged)
	body["deploymentUrl"] = "https://chef.example.com/v2"
	step("PUT", "/agents/chef", body, http.StatusOK) // the URL is not shown to users
	body["name"] = "Chef 3"
	step("PUT", "/agents/chef", body, http.StatusOK, chefChanged)
	body["icon"] = "https://example.com/chef2.png"
	step("PUT", "/agents/chef", body, http.StatusOK, chefChanged)
	body["enabled"] = false
	step("PUT", "/agents/chef", body, http.StatusOK, chefChanged)
	step("POST", "/agents/chef/disable", nil, http.StatusOK, chefChanged)
	step("DELETE", "/agents/chef", nil, http.StatusNoContent, chefChanged)
	e.expect(e.do("POST", "/agents/nobody/disable", keyAuth, nil), http.StatusNotFound, model.ErrUIDNotFound)
	if got := e.hub.published(); len(got) != 0 {
		t.Fatalf("a failed change published %q", got)
	}
	body = chefBody("https://chef.example.com/agent")
	body["enabled"] = true
	step("PUT", "/agents/chef", body, http.StatusCreated, chefChanged) // recreated enabled (the user stayed)
}

// chatServer is the API with a real hub on st, served over HTTP; admin calls it.
type chatServer struct {
	url   string
	hub   *hub.Hub
	admin *env
}

func startChatServer(t *testing.T, st store.Store) chatServer {
	return startChatServerWith(t, st, Options{})
}

// startChatServerWith is startChatServer with the session settings of opts.
func startChatServerWith(t *testing.T, st store.Store, opts Options) chatServer {
	t.Helper()
	h := hub.New(hub.Options{Events: st, Authenticate: Authenticator(st), Sessions: st, PollInterval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	a := New(Options{Store: st, Hub: h, APIKey: testAPIKey, MediaDir: t.TempDir(), PasswordCost: bcrypt.MinCost,
		SessionTTL: opts.SessionTTL, SessionIdleTimeout: opts.SessionIdleTimeout})
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(func() {
		cancel()
		<-done
		srv.Close()
	})
	return chatServer{url: srv.URL, hub: h, admin: &env{t: t, srv: srv, api: a, apiKey: testAPIKey}}
}

// frames is a WebSocket client that keeps every frame after ready.
type frames struct {
	mu   sync.Mutex
	got  []string
	done chan struct{}
}

func (f *frames) has(frame string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Contains(f.got, frame)
}

// dialReady opens a socket, authenticates it with token and waits for ready.
func dialReady(t *testing.T, base, token string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+Prefix+"/ws", nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	auth, _ := json.Marshal(map[string]string{"type": "auth", "token": token})
	testutil.NoError(t, conn.Write(ctx, websocket.MessageText, auth))
	if _, data, err := conn.Read(ctx); err != nil || !strings.Contains(string(data), `"type":"ready"`) {
		t.Fatalf("want ready, got %s (%v)", data, err)
	}
	return conn
}

func dialChat(t *testing.T, base, token string) *frames {
	t.Helper()
	conn := dialReady(t, base, token)
	f := &frames{done: make(chan struct{})}
	go func() {
		defer close(f.done)
		for {
			_, data, err := conn.Read(context.Background())
			if err != nil {
				return
			}
			f.mu.Lock()
			f.got = append(f.got, string(data))
			f.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = conn.CloseNow()
		<-f.done
	})
	return f
}

func waitFrame(t *testing.T, f *frames, frame, who string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !f.has(frame) {
		if time.Now().After(deadline) {
			f.mu.Lock()
			defer f.mu.Unlock()
			t.Fatalf("%s did not get %s; got %q", who, frame, f.got)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAgentsChangedOverWebSocket: a signed-in user's socket gets agents.changed when an admin
// disables the agent, over a real WebSocket; on PostgreSQL a socket on a second replica (a
// second hub and store on the same database) gets it too.
func TestAgentsChangedOverWebSocket(t *testing.T) {
	ctx := context.Background()
	t.Run("sqlite", func(t *testing.T) {
		st, err := store.OpenWith(ctx, "file:"+filepath.Join(t.TempDir(), "chat.db"), store.Options{})
		testutil.NoError(t, err)
		t.Cleanup(func() { _ = st.Close() })
		srv := startChatServer(t, st)
		alice := dialChat(t, srv.url, tokenFor(t, st, "alice"))
		putEnabledChef(srv)
		waitFrame(t, alice, chefChanged, "alice")
		alice.mu.Lock()
		alice.got = nil
		alice.mu.Unlock()
		srv.admin.expect(srv.admin.do("POST", "/agents/chef/disable", keyAuth, nil), http.StatusOK, "")
		waitFrame(t, alice, chefChanged, "alice")
	})
	t.Run("postgres replicas", func(t *testing.T) {
		if testing.Short() {
			t.Skip("starts PostgreSQL")
		}
		pg := testutil.StartPostgres(t)
		open := func() store.Store {
			st, err := store.Open(ctx, pg.URL)
			testutil.NoError(t, err)
			t.Cleanup(func() { _ = st.Close() })
			return st
		}
		sa, sb := open(), open()
		a, b := startChatServer(t, sa), startChatServer(t, sb)
		onA := dialChat(t, a.url, tokenFor(t, sa, "alice"))
		onB := dialChat(t, b.url, tokenFor(t, sb, "bob"))
		// Each store LISTENs on a connection of its own, set up in the background: broadcasts
		// reach the other replica once it is up, so wait for that state both ways first.
		untilBroadcastReaches(t, a, onB, "B")
		untilBroadcastReaches(t, b, onA, "A")
		for _, f := range []*frames{onA, onB} {
			f.mu.Lock()
			f.got = nil
			f.mu.Unlock()
		}
		putEnabledChef(a)
		waitFrame(t, onA, chefChanged, "alice on A")
		waitFrame(t, onB, chefChanged, "bob on B")
		for _, f := range []*frames{onA, onB} {
			f.mu.Lock()
			f.got = nil
			f.mu.Unlock()
		}
		b.admin.expect(b.admin.do("POST", "/agents/chef/disable", keyAuth, nil), http.StatusOK, "")
		waitFrame(t, onB, chefChanged, "bob on B")
		waitFrame(t, onA, chefChanged, "alice on A")
		if s := b.hub.Stats(); s.BroadcastDropped != 0 {
			t.Errorf("broadcast dropped %d frames", s.BroadcastDropped)
		}
	})
}

// untilBroadcastReaches broadcasts a probe frame from srv until the socket f on the other
// replica (named who) has it: the replicas' broadcast path is up.
func untilBroadcastReaches(t *testing.T, srv chatServer, f *frames, who string) {
	t.Helper()
	probe := fmt.Sprintf(`{"type":"probe","to":%q}`, who)
	testutil.Eventually(t, "a broadcast to reach replica "+who, 20*time.Second, 50*time.Millisecond, func() error {
		srv.hub.PublishAll([]byte(probe))
		if f.has(probe) {
			return nil
		}
		return errors.New("not yet")
	})
}

// tokenFor creates uid in st and mints a token for it.
func tokenFor(t *testing.T, st store.Store, uid string) string {
	t.Helper()
	ctx := context.Background()
	if _, err := st.CreateUser(ctx, model.User{UID: uid, Name: uid}); err != nil {
		t.Fatal(err)
	}
	tok, err := newToken()
	testutil.NoError(t, err)
	if _, err := st.CreateToken(ctx, uid, HashToken(tok), time.Time{}); err != nil {
		t.Fatal(err)
	}
	return tok
}

func putEnabledChef(s chatServer) {
	s.admin.t.Helper()
	body := chefBody("https://chef.example.com/agent")
	delete(body, "headers") // the stores here have no headers key
	body["enabled"] = true
	s.admin.expect(s.admin.do("PUT", "/agents/chef", keyAuth, body), http.StatusCreated, "")
}
