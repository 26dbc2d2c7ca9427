package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"

	"github.com/agentry-dev/agentry/chat/api"
	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/hub"
	"github.com/agentry-dev/agentry/chat/jwtsign"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/protocol/agui"
	"github.com/agentry-dev/agentry/internal/protocol/manifest"
	"github.com/agentry-dev/agentry/runtime/registry"
	"github.com/agentry-dev/agentry/runtime/secrets"
	"github.com/agentry-dev/agentry/runtime/server"
)

const apiKey = "bridge-test-api-key-0123456789"

// logBuffer is a logger whose output tests search (for secrets that must not be there).
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		b.mu.Lock()
		defer b.mu.Unlock()
		fmt.Fprintln(&b.buf, prefix, args)
	}, funcr.Options{Verbosity: 1})
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// runtimeEnv is a real agentry runtime (the given manifests) on the scripted model.
type runtimeEnv struct {
	URL   string // e.g. http://127.0.0.1:1234
	Model *scriptedmodel.Server
}

// startRuntime serves the manifests under dir (plus extra files) like `agentry serve`, with
// the scripted model answering (script nil: the dev script).
func startRuntime(t *testing.T, dir string, extra map[string]string, secretValues secrets.Static, script *scriptedmodel.Script) *runtimeEnv {
	t.Helper()
	if len(extra) > 0 {
		tmp := t.TempDir()
		if dir != "" {
			testutil.NoError(t, os.CopyFS(tmp, os.DirFS(dir)))
		}
		for name, body := range extra {
			testutil.NoError(t, os.WriteFile(filepath.Join(tmp, name), []byte(body), 0o600))
		}
		dir = tmp
	}
	if script == nil {
		script = scriptedmodel.DevScript()
	}
	sm, err := scriptedmodel.Start("127.0.0.1:0", script, scriptedmodel.Options{})
	testutil.NoError(t, err)
	t.Cleanup(func() { sm.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	loader, err := manifest.NewLoader()
	testutil.NoError(t, err)
	set, err := loader.LoadPath(ctx, dir)
	testutil.NoError(t, err)
	if secretValues == nil {
		secretValues = secrets.Static{}
	}
	reg, _, err := registry.Build(ctx, set, registry.Options{Getenv: func(string) string { return "" }, Secrets: secretValues, DiscoverMCP: true,
		ModelOverride: &registry.ModelOverride{BaseURL: sm.URL()}})
	testutil.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testutil.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		done <- server.New(server.Options{Registry: reg, Logger: logr.Discard(), Secrets: secretValues}).Serve(ctx, ln)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = reg.Close()
	})
	return &runtimeEnv{URL: "http://" + ln.Addr().String(), Model: sm}
}

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

// chatEnv is a real chat service (SQLite, hub, API, bridge) on an httptest server.
type chatEnv struct {
	t      *testing.T
	URL    string
	Store  store.Store
	Hub    *hub.Hub
	Bridge *bridge.Bridge
	Logs   *logBuffer
	tokens map[string]string
	// shutdown stops the service as a restart would (the test's cleanup does it otherwise).
	shutdown func()
}

func startChat(t *testing.T, bo bridge.Options) *chatEnv {
	t.Helper()
	return startChatWith(t, bo, nil)
}

// startChatWith is startChat with the store wrapped (e.g. to slow a method down); nil keeps it.
func startChatWith(t *testing.T, bo bridge.Options, wrap func(store.Store) store.Store) *chatEnv {
	t.Helper()
	return startChatAt(t, bo, filepath.Join(t.TempDir(), "chat.db"), wrap)
}

// startChatAt serves the chat database at path (a restarted service opens the same one).
func startChatAt(t *testing.T, bo bridge.Options, path string, wrap func(store.Store) store.Store) *chatEnv {
	t.Helper()
	return startChatIssuing(t, bo, path, wrap, "")
}

// startChatIssuing is startChatAt with the chat signing its users' tokens as issuer ("" = not).
func startChatIssuing(t *testing.T, bo bridge.Options, path string, wrap func(store.Store) store.Store, issuer string) *chatEnv {
	t.Helper()
	ctx := context.Background()
	key := bytes.Repeat([]byte{7}, 32)
	st, err := store.OpenWith(ctx, "file:"+path, store.Options{HeadersKey: key})
	testutil.NoError(t, err)
	if wrap != nil {
		st = wrap(st)
	}
	var signer *jwtsign.Signer
	if issuer != "" {
		signer, err = jwtsign.New(ctx, st, issuer, 0)
		testutil.NoError(t, err)
		bo.Signer = signer
	}
	logs := &logBuffer{}
	h := hub.New(hub.Options{Events: st, Authenticate: api.Authenticator(st), Logger: logs.logger()})
	bo.Store, bo.Publisher, bo.Logger = st, h, logs.logger()
	if bo.Egress.Allow == nil {
		bo.Egress.Allow = loopback // the fake agents and runtimes listen on loopback
	}
	br := bridge.New(bo)
	h.Observe(br.OnEvent)
	h.OnReplay(br.Replay)
	a := api.New(api.Options{Store: st, Hub: h, APIKey: apiKey, Logger: logs.logger(), Development: true, Bridge: br, MediaDir: t.TempDir(), AgentEgress: bo.Egress, Signer: signer})
	srv := httptest.NewServer(a.Handler())
	hubCtx, stop := context.WithCancel(context.Background())
	hubDone := make(chan error, 1)
	go func() { hubDone <- h.Run(hubCtx) }()
	var once sync.Once
	shutdown := func() {
		once.Do(func() {
			cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := br.Close(cctx); err != nil {
				t.Errorf("bridge did not stop: %v", err)
			}
			srv.Close()
			stop()
			<-hubDone
			_ = st.Close()
		})
	}
	t.Cleanup(shutdown)
	return &chatEnv{t: t, URL: srv.URL, Store: st, Hub: h, Bridge: br, Logs: logs, tokens: map[string]string{}, shutdown: shutdown}
}

type response struct {
	Status int
	Body   []byte
	Header http.Header
}

func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

func (r response) code() string {
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &e)
	return e.Error.Code
}

// do calls the API as uid ("" = with the REST API key).
func (e *chatEnv) do(method, path, uid string, body any) response {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, e.URL+api.Prefix+path, rd)
	req.Header.Set("Content-Type", "application/json")
	if uid == "" {
		req.Header.Set("apikey", apiKey)
	} else {
		req.Header.Set("Authorization", "Bearer "+e.token(uid))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Body: b, Header: res.Header}
}

func (e *chatEnv) must(r response, status int) response {
	e.t.Helper()
	if r.Status != status {
		e.t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	return r
}

func (e *chatEnv) token(uid string) string {
	if tok, ok := e.tokens[uid]; ok {
		return tok
	}
	e.must(e.do(http.MethodPost, "/users", "", map[string]string{"uid": uid, "name": strings.ToUpper(uid[:1]) + uid[1:]}), http.StatusCreated)
	r := e.must(e.do(http.MethodPost, "/users/"+uid+"/auth_tokens", "", nil), http.StatusCreated)
	var tok struct {
		AuthToken string `json:"authToken"`
	}
	r.decode(e.t, &tok)
	e.tokens[uid] = tok.AuthToken
	return tok.AuthToken
}

// putAgent saves and enables an agent configuration.
func (e *chatEnv) putAgent(cfg map[string]any) {
	e.t.Helper()
	id := cfg["agentId"].(string)
	if _, ok := cfg["name"]; !ok {
		cfg["name"] = id
	}
	if _, ok := cfg["provider"]; !ok {
		cfg["provider"] = "ag-ui"
	}
	cfg["enabled"] = true
	r := e.do(http.MethodPut, "/agents/"+id, "", cfg)
	if r.Status != http.StatusCreated && r.Status != http.StatusOK {
		e.t.Fatalf("put agent %s: %d %s", id, r.Status, r.Body)
	}
}

// putChef configures the sample chef agent served by rt: as an admin does, with its URL and name
// only; its frontend action comes from what the agent says of itself.
func (e *chatEnv) putChef(rt *runtimeEnv, id string) {
	e.t.Helper()
	e.putAgent(map[string]any{"agentId": id, "name": "Chef", "deploymentUrl": rt.URL + "/api/agents/chef/ag-ui"})
	var list struct {
		Items []model.FrontendAction `json:"items"`
	}
	testutil.NoError(e.t, json.Unmarshal(e.must(e.do(http.MethodGet, "/agents/"+id+"/actions", "", nil), http.StatusOK).Body, &list))
	if len(list.Items) != 1 || list.Items[0].Name != "show-recipe-card" || list.Items[0].ExecutionText != "Showing the recipe card" {
		e.t.Fatalf("chef's frontend actions after it was added: %+v", list.Items)
	}
}

// send posts a text message from uid to a user (or "group:guid").
func (e *chatEnv) send(uid, to, text string) response {
	e.t.Helper()
	body := map[string]any{"receiver": to, "receiverType": "user", "text": text}
	if guid, ok := strings.CutPrefix(to, "group:"); ok {
		body["receiver"], body["receiverType"] = guid, "group"
	}
	return e.do(http.MethodPost, "/messages", uid, body)
}

// messages lists the newest messages of uid's conversation with a user (or "group:guid").
func (e *chatEnv) messages(uid, with string) []model.Message {
	e.t.Helper()
	path := "/users/" + with + "/messages?limit=100"
	if guid, ok := strings.CutPrefix(with, "group:"); ok {
		path = "/groups/" + guid + "/messages?limit=100"
	}
	r := e.must(e.do(http.MethodGet, path, uid, nil), http.StatusOK)
	var page struct {
		Items []model.Message `json:"items"`
	}
	r.decode(e.t, &page)
	return page.Items
}

// waitMessage waits until uid's conversation holds a message matching ok.
func (e *chatEnv) waitMessage(uid, with string, within time.Duration, ok func(model.Message) bool) model.Message {
	e.t.Helper()
	deadline := time.Now().Add(within)
	for {
		for _, m := range e.messages(uid, with) {
			if ok(m) {
				return m
			}
		}
		if time.Now().After(deadline) {
			b, _ := json.MarshalIndent(e.messages(uid, with), "", "  ")
			e.t.Fatalf("no matching message within %s; messages:\n%s", within, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitUntil polls cond until it holds or within passes, and reports whether it held.
func waitUntil(within time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(within); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// answerWith matches the agent's answers whose text contains text; answerStarting, those that
// start with it.
func answerWith(text string) func(model.Message) bool {
	return func(m model.Message) bool { return m.Type == model.TypeAssistant && strings.Contains(m.Text, text) }
}

func answerStarting(text string) func(model.Message) bool {
	return func(m model.Message) bool { return m.Type == model.TypeAssistant && strings.HasPrefix(m.Text, text) }
}

// frame is what a socket receives: stored events and agent frames.
type frame struct {
	Type           string          `json:"type"`
	ConversationID string          `json:"conversationId"`
	AgentID        string          `json:"agentId"`
	RunID          string          `json:"runId"`
	Event          json.RawMessage `json:"event"`
	raw            []byte
}

// agentEvent is an agent frame's AG-UI event, with the chat's fields for frontend actions.
type agentEvent struct {
	agui.Event
	DisplayName   string `json:"displayName"`
	ExecutionText string `json:"executionText"`
	Frontend      bool   `json:"frontend"`
	runID         string // the chat-level run of the frame that carried it
}

// socket is a logged-in WebSocket that records every frame.
type socket struct {
	mu     sync.Mutex
	frames []frame
	conn   *websocket.Conn
	done   chan struct{}
}

func (e *chatEnv) connect(uid string) *socket {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.URL, "http")+api.Prefix+"/ws", nil)
	if err != nil {
		e.t.Fatalf("dial: %v", err)
	}
	conn.SetReadLimit(4 << 20)
	b, _ := json.Marshal(map[string]string{"type": "auth", "token": e.token(uid)})
	if err := conn.Write(ctx, websocket.MessageText, b); err != nil {
		e.t.Fatal(err)
	}
	if _, data, err := conn.Read(ctx); err != nil || !bytes.Contains(data, []byte(`"ready"`)) {
		e.t.Fatalf("want ready, got %s %v", data, err)
	}
	s := &socket{conn: conn, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			_, data, err := conn.Read(context.Background())
			if err != nil {
				return
			}
			var f frame
			if json.Unmarshal(data, &f) == nil {
				f.raw = data
				s.mu.Lock()
				s.frames = append(s.frames, f)
				s.mu.Unlock()
			}
		}
	}()
	e.t.Cleanup(func() { _ = conn.CloseNow(); <-s.done })
	return s
}

// agentEvents returns the AG-UI events received so far.
func (s *socket) agentEvents() []agentEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []agentEvent
	for _, f := range s.frames {
		if f.Type == "agent" {
			var ev agentEvent
			_ = json.Unmarshal(f.Event, &ev)
			ev.runID = f.RunID
			out = append(out, ev)
		}
	}
	return out
}

// all is every frame received so far, as raw text.
func (s *socket) all() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, f := range s.frames {
		b.Write(f.raw)
		b.WriteByte('\n')
	}
	return b.String()
}

// waitAgentEvent waits for an AG-UI event matching ok and returns it.
func (s *socket) waitAgentEvent(t *testing.T, within time.Duration, what string, ok func(agentEvent) bool) agentEvent {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		for _, ev := range s.agentEvents() {
			if ok(ev) {
				return ev
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s; frames:\n%s", what, within, s.all())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// storedMessages returns the messages of message.created events received so far.
func (s *socket) storedMessages() []model.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []model.Message
	for _, f := range s.frames {
		if f.Type != "event" {
			continue
		}
		var ev model.Event
		if json.Unmarshal(f.Event, &ev) != nil || ev.Type != model.EventMessageCreated {
			continue
		}
		var m model.Message
		if json.Unmarshal(ev.Data, &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

func samplesDir() string { return filepath.Join("..", "..", "config", "samples") }

// forTest is e bound to a subtest: its failures and cleanups (sockets) are the subtest's.
func (e *chatEnv) forTest(t *testing.T) *chatEnv {
	c := *e
	c.t = t
	return &c
}

// answeredOnce waits for agent's answer to uid (or an error) and checks that it is answer and
// the only message of the agent in the conversation.
func (e *chatEnv) answeredOnce(uid, agent, answer string) {
	e.t.Helper()
	got := e.waitMessage(uid, agent, 15*time.Second, func(m model.Message) bool {
		return m.Sender == agent && (m.Type == model.TypeAssistant || m.Type == model.TypeAgentError)
	})
	if got.Type != model.TypeAssistant || got.Text != answer {
		e.t.Fatalf("%s's answer: %s %q; the replica logged:\n%s", agent, got.Type, got.Text, e.Logs.String())
	}
	n := 0
	for _, m := range e.messages(uid, agent) {
		if m.Sender == agent {
			n++
		}
	}
	if n != 1 {
		e.t.Errorf("%d messages from %s, want 1", n, agent)
	}
}

// pacedRuntime is a runtime whose model answers every question with answer, a word every
// delayMs milliseconds.
func pacedRuntime(t *testing.T, answer string, delayMs int) *runtimeEnv {
	t.Helper()
	script, err := scriptedmodel.ParseScript([]byte(fmt.Sprintf("fallback:\n  text: %q\n  chunkDelayMs: %d\n", answer, delayMs)))
	testutil.NoError(t, err)
	return startRuntime(t, samplesDir(), nil, nil, script)
}
