package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
)

// Every test closes its server, hub and clients; anything left running is a leak.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// memLog is an in-memory store.Events: an event log with per-conversation seq and a member
// table, with the store's visibility rule (members of the conversation, or the target).
type memLog struct {
	mu      sync.Mutex
	events  []model.Event
	oldest  int64
	seq     map[string]int64
	members map[string]map[string]bool
	wake    chan struct{}
	// beforeSince, when set, runs at the start of every EventsSince (outside the lock): a
	// hook for what happens between a replay's pages.
	beforeSince func()
}

func newMemLog() *memLog {
	return &memLog{oldest: 1, seq: map[string]int64{}, members: map[string]map[string]bool{}, wake: make(chan struct{}, 1)}
}

func (l *memLog) setMembers(conv string, uids ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := map[string]bool{}
	for _, u := range uids {
		m[u] = true
	}
	l.members[conv] = m
}

// commit appends an event and applies membership events to the member table, like the SQL
// store's writing transaction.
func (l *memLog) commit(conv, typ, target string, data any) model.Event {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	ev := model.Event{Pos: int64(len(l.events)) + 1, ConversationID: conv, Type: typ, TargetUID: target, Data: b, At: time.Now()}
	if conv != "" {
		l.seq[conv]++
		ev.Seq = l.seq[conv]
		uid, _ := memberUID(ev)
		switch typ {
		case model.EventMemberJoined, model.EventMemberAdded:
			if l.members[conv] == nil {
				l.members[conv] = map[string]bool{}
			}
			l.members[conv][uid] = true
		case model.EventMemberLeft, model.EventMemberKicked, model.EventMemberBanned:
			delete(l.members[conv], uid)
		}
	}
	l.events = append(l.events, ev)
	return ev
}

// from is the index of the first event after pos that is still kept.
func (l *memLog) from(pos int64) int64 {
	return min(max(pos, l.oldest-1), int64(len(l.events)))
}

func (l *memLog) visible(uid string, ev model.Event) bool {
	return ev.TargetUID == uid || (ev.ConversationID != "" && l.members[ev.ConversationID][uid])
}

func (l *memLog) EventsSince(_ context.Context, uid string, pos int64, limit int) ([]model.Event, error) {
	if l.beforeSince != nil {
		l.beforeSince()
	}
	return l.since(uid, pos, limit), nil
}

func (l *memLog) EventsAfter(_ context.Context, pos int64, limit int) ([]model.Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rest := l.events[l.from(pos):]
	return append([]model.Event(nil), rest[:min(limit, len(rest))]...), nil
}

func (l *memLog) Horizon(context.Context) (int64, int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.oldest, int64(len(l.events)), nil
}

// PruneEvents drops the events older than before, like the SQL store: oldest first, never
// the newest.
func (l *memLog) PruneEvents(_ context.Context, before time.Time) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var n int64
	for l.oldest < int64(len(l.events)) && l.events[l.oldest-1].At.Before(before) {
		l.oldest++
		n++
	}
	return n, nil
}

func (l *memLog) Members(_ context.Context, conv string) ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for u := range l.members[conv] {
		out = append(out, u)
	}
	return out, nil
}

func (l *memLog) Wake() <-chan struct{}                   { return l.wake }
func (l *memLog) Broadcast(context.Context, []byte) error { return nil }
func (l *memLog) Broadcasts() <-chan []byte               { return nil }
func (l *memLog) BroadcastsDropped() uint64               { return 0 }

// expected lists the events uid may see with pos in (after, ∞).
func (l *memLog) expected(uid string, after int64) []model.Event { return l.since(uid, after, 0) }

// since lists the events uid may see with pos in (pos, ∞), at most limit (0: all).
func (l *memLog) since(uid string, pos int64, limit int) []model.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []model.Event
	for _, ev := range l.events[l.from(pos):] {
		if l.visible(uid, ev) {
			out = append(out, ev)
			if len(out) == limit {
				break
			}
		}
	}
	return out
}

// testAuth accepts "tok-<uid>"; the token is its own id.
func testAuth(_ context.Context, token string) (store.TokenInfo, error) {
	uid, ok := strings.CutPrefix(token, "tok-")
	if !ok {
		return store.TokenInfo{}, model.Errorf(model.ErrUnauthenticated, "bad token")
	}
	return store.TokenInfo{UID: uid, ID: token}, nil
}

type env struct {
	t   *testing.T
	log *memLog
	hub *Hub
	srv *httptest.Server
	url string
}

// smallBuffers shrinks the server's socket send buffers so a client that stops reading
// backs up into its queue after a few frames instead of megabytes.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4 << 10)
	}
	return c, err
}

func newEnv(t *testing.T, o Options, events store.Events, small bool) *env {
	t.Helper()
	o.Events = events
	if o.Authenticate == nil {
		o.Authenticate = testAuth
	}
	h := New(o)
	ctx, cancel := context.WithCancel(context.Background())
	runDone := make(chan error, 1)
	go func() { runDone <- h.Run(ctx) }()
	srv := httptest.NewUnstartedServer(h)
	if small {
		srv.Listener = smallBuffers{srv.Listener}
	}
	srv.Start()
	e := &env{t: t, hub: h, srv: srv, url: "ws" + strings.TrimPrefix(srv.URL, "http")}
	if l, ok := events.(*memLog); ok {
		e.log = l
	}
	t.Cleanup(func() {
		cancel()
		if err := <-runDone; err != nil {
			t.Errorf("Run: %v", err)
		}
		srv.Close()
	})
	return e
}

func newTestServer(h http.Handler) *httptest.Server { return httptest.NewServer(h) }

// commit appends to the log and wakes the hub, as the API does after a local commit.
func (e *env) commit(conv, typ, target string, data any) model.Event {
	ev := e.log.commit(conv, typ, target, data)
	e.hub.Notify()
	return ev
}

// client is a test WebSocket client that records every frame it receives.
type client struct {
	uid     string
	conn    *websocket.Conn
	done    chan struct{}
	started atomic.Bool

	mu       sync.Mutex
	ready    readyFrame
	events   []model.Event // event frames with a pos, in arrival order, duplicates included
	typing   []model.Event
	other    [][]byte // frames that are neither events nor resets (e.g. agent frames)
	resets   []int64
	last     int64 // highest pos seen, the resume offset
	closeErr error
}

func dialRaw(t *testing.T, url string, small bool) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var opts *websocket.DialOptions
	if small {
		d := &net.Dialer{}
		tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.SetReadBuffer(4 << 10)
			}
			return c, err
		}}
		opts = &websocket.DialOptions{HTTPClient: &http.Client{Transport: tr}}
	}
	conn, _, err := websocket.Dial(ctx, url, opts)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	conn.SetReadLimit(1 << 20)
	return conn
}

func sendJSON(t *testing.T, conn *websocket.Conn, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := conn.Write(ctx, websocket.MessageText, b); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func authFrame(token string, resume *int64) map[string]any {
	f := map[string]any{"type": "auth", "token": token}
	if resume != nil {
		f["resume"] = *resume
	}
	return f
}

// connect logs uid in (resuming after *resume when set), waits for ready and starts reading.
func (e *env) connect(uid string, resume *int64) *client {
	e.t.Helper()
	c := e.connectPaused(uid, resume, false)
	c.start()
	return c
}

// connectToken logs uid in with token (testAuth's "tok-<uid>" otherwise), waits for ready
// and starts reading.
func (e *env) connectToken(uid, token string, resume *int64) *client {
	e.t.Helper()
	c := e.connectPausedToken(uid, token, resume, false)
	c.start()
	return c
}

// connectPaused logs in and reads ready, but reads nothing more until start.
func (e *env) connectPaused(uid string, resume *int64, small bool) *client {
	e.t.Helper()
	return e.connectPausedToken(uid, "tok-"+uid, resume, small)
}

func (e *env) connectPausedToken(uid, token string, resume *int64, small bool) *client {
	e.t.Helper()
	conn := dialRaw(e.t, e.url, small)
	c := &client{uid: uid, conn: conn, done: make(chan struct{})}
	if resume != nil {
		c.last = *resume
	}
	e.t.Cleanup(c.close)
	sendJSON(e.t, conn, authFrame(token, resume))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, data, err := conn.Read(ctx)
	if err != nil {
		e.t.Fatalf("%s: read ready: %v", uid, err)
	}
	if err := json.Unmarshal(data, &c.ready); err != nil || c.ready.Type != FrameReady || c.ready.UID != uid {
		e.t.Fatalf("%s: want ready, got %s (%v)", uid, data, err)
	}
	if resume == nil {
		c.last = c.ready.Pos
	}
	return c
}

func (c *client) start() {
	c.started.Store(true)
	go func() {
		defer close(c.done)
		for {
			_, data, err := c.conn.Read(context.Background())
			if err != nil {
				c.mu.Lock()
				c.closeErr = err
				c.mu.Unlock()
				return
			}
			var f struct {
				Type  string      `json:"type"`
				Pos   int64       `json:"pos"`
				Event model.Event `json:"event"`
			}
			if err := json.Unmarshal(data, &f); err != nil {
				panic(fmt.Sprintf("bad frame %s", data))
			}
			c.mu.Lock()
			switch {
			case f.Type == FrameReset:
				c.resets = append(c.resets, f.Pos)
				c.last = f.Pos
			case f.Type == FrameEvent && f.Event.Pos == 0:
				c.typing = append(c.typing, f.Event)
			case f.Type == FrameEvent:
				c.events = append(c.events, f.Event)
				c.last = max(c.last, f.Event.Pos)
			default:
				c.other = append(c.other, data)
			}
			c.mu.Unlock()
		}
	}()
}

func (c *client) close() {
	_ = c.conn.CloseNow()
	if c.started.Load() {
		<-c.done
	}
}

// waitClosed waits for the reader to end and returns the close status.
func (c *client) waitClosed(t *testing.T, within time.Duration) websocket.StatusCode {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(within):
		t.Fatalf("%s: socket still open after %v", c.uid, within)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return websocket.CloseStatus(c.closeErr)
}

func (c *client) snapshot() (events []model.Event, last int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]model.Event(nil), c.events...), c.last
}

// eventually polls cond until it holds or within passes.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", within, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkDelivery asserts that got, after dropping duplicates by pos, is exactly want, and that
// each conversation's events arrived in seq order. It returns the number of duplicates.
func checkDelivery(t *testing.T, uid string, got, want []model.Event) int {
	t.Helper()
	seen := map[int64]bool{}
	lastSeq := map[string]int64{}
	dups := 0
	var unique []int64
	for _, ev := range got {
		if seen[ev.Pos] {
			dups++
			continue
		}
		seen[ev.Pos] = true
		unique = append(unique, ev.Pos)
		if ev.ConversationID != "" {
			if ev.Seq <= lastSeq[ev.ConversationID] {
				t.Errorf("%s: %s seq %d after %d", uid, ev.ConversationID, ev.Seq, lastSeq[ev.ConversationID])
			}
			lastSeq[ev.ConversationID] = ev.Seq
		}
	}
	if len(unique) != len(want) {
		t.Errorf("%s: got %d distinct events, want %d", uid, len(unique), len(want))
	}
	for _, ev := range want {
		if !seen[ev.Pos] {
			t.Errorf("%s: missing pos %d (%s seq %d)", uid, ev.Pos, ev.ConversationID, ev.Seq)
			break
		}
	}
	return dups
}

func isDone(c *client) bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}
