package process

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// Helpers of the chat process tests: `agentry chat` processes, a REST client, and WebSocket
// clients that reconnect and resume by pos the way the SDK does, recording what they receive.

const chatAPIKey = "process-test-api-key-0123456789"

var chatHTTP = &http.Client{Timeout: 30 * time.Second}

// chatProc is one running `agentry chat`.
type chatProc struct {
	p    *testutil.Proc
	base string // http://host:port/chat/v1
	addr string
}

// startChat runs `agentry chat` on a free loopback port with storage and waits until it serves
// (extra: more environment).
func startChat(t *testing.T, storage string, replicas int, extra ...string) *chatProc {
	t.Helper()
	p, addr := start(t, append([]string{"AGENTRY_CHAT_API_KEY=" + chatAPIKey}, extra...),
		`msg="serving the chat service" addr=(\S+)`,
		"chat", "--addr", "127.0.0.1:0", "--storage", storage, "--replicas", fmt.Sprint(replicas),
		"--media-dir", filepath.Join(t.TempDir(), "media"),
		"--agent-allow-networks=127.0.0.0/8", // the tests' agents listen on loopback
		"--rate-limit=0")                     // a few users send hundreds of messages a second here: the service, not its limiter, is under test
	return &chatProc{p: p, base: "http://" + addr + "/chat/v1", addr: addr}
}

// kill sends SIGKILL (kill -9) and waits until the process is gone.
func (c *chatProc) kill(t *testing.T) {
	t.Helper()
	testutil.Check(t, c.p.Cmd.Process.Kill())
	waitUntil(t, 10*time.Second, "the killed process stops answering", func() bool {
		_, err := chatHTTP.Get(c.base + "/healthz")
		return err != nil
	})
}

// waitUntil polls cond until it holds or the timeout passes (then the test fails).
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting until %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// chatCall is one REST call as token's user (a bearer token; the REST API key when it is
// chatAPIKey; nothing for ""); err is a transport error (no answer).
func chatCall(method, url, token string, body any) (int, []byte, error) {
	h := http.Header{}
	if token == chatAPIKey {
		h.Set("apikey", token)
	} else if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	return restCall(method, url, h, body)
}

// restCall is one REST call with header and body (JSON); err is a transport error (no answer).
func restCall(method, url string, header http.Header, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
		header.Set("Content-Type", "application/json")
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header = header
	return doCall(req)
}

func doCall(req *http.Request) (int, []byte, error) {
	resp, err := chatHTTP.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}

// mustCall fails the test unless the call answers want; it decodes the answer into out.
func mustCall(t *testing.T, want int, method, url, token string, body, out any) {
	t.Helper()
	status, raw, err := chatCall(method, url, token, body)
	if err != nil || status != want {
		t.Fatalf("%s %s: %d %v %s (want %d)", method, url, status, err, raw, want)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, url, err, raw)
		}
	}
}

// createChatUser creates uid with the REST API key and mints its auth token.
func createChatUser(t *testing.T, base, uid string) string {
	t.Helper()
	mustCall(t, 201, "POST", base+"/users", chatAPIKey, map[string]any{"uid": uid, "name": "User " + uid}, nil)
	var tok struct {
		AuthToken string `json:"authToken"`
	}
	mustCall(t, 201, "POST", base+"/users/"+uid+"/auth_tokens", chatAPIKey, map[string]any{}, &tok)
	if tok.AuthToken == "" {
		t.Fatal("no auth token")
	}
	return tok.AuthToken
}

// createChatGroup creates a public group owned by the token's user with members.
func createChatGroup(t *testing.T, base, token, guid string, members ...string) {
	t.Helper()
	ms := []map[string]string{}
	for _, m := range members {
		ms = append(ms, map[string]string{"uid": m})
	}
	mustCall(t, 201, "POST", base+"/groups", token, map[string]any{"guid": guid, "name": "Group " + guid, "type": "public", "members": ms}, nil)
}

// conv is a conversation of the tests: a group or a one-to-one pair, with its members.
type conv struct {
	receiver, receiverType string
	members                []string
}

// sendResult is one send attempt: acked when the server answered 201 with the message.
type sendResult struct {
	text   string
	id     int64
	status int
	err    error
}

func (r sendResult) acked() bool { return r.status == 201 && r.id > 0 }

// sendChat posts a text message from token's user to c through base.
func sendChat(base, token string, c conv, text string) sendResult {
	status, raw, err := chatCall("POST", base+"/messages", token, map[string]any{"receiver": c.receiver, "receiverType": c.receiverType, "text": text})
	r := sendResult{text: text, status: status, err: err}
	if err == nil && status == 201 {
		var m struct {
			ID int64 `json:"id"`
		}
		if json.Unmarshal(raw, &m) == nil {
			r.id = m.ID
		}
	}
	return r
}

// wsEvent is an event frame's event.
type wsEvent struct {
	Pos            int64           `json:"pos"`
	Seq            int64           `json:"seq"`
	ConversationID string          `json:"conversationId"`
	Type           string          `json:"type"`
	Data           json.RawMessage `json:"data"`
}

// wsClient is one user's socket. It connects to bases[i], resumes from the last pos it got
// after every disconnect, and fails over to the next base when a dial fails.
type wsClient struct {
	uid, token string
	bases      []string

	mu        sync.Mutex
	cur       int // index into bases
	last      int64
	seen      map[int64]bool
	dupes     int               // frames of a pos already received (at-least-once delivery)
	byMessage map[int64][]int64 // message id → distinct pos of its message.created events
	texts     map[string]int    // text → message.created events (after dedupe by pos)
	lastSeq   map[string]int64
	problems  []string
	connects  int
	resets    int
	connected bool
	refused   int // connections closed with 1013 (store unavailable, try again later)
	conn      *websocket.Conn

	cancel context.CancelFunc
	done   chan struct{}
}

// startClient connects uid's socket to bases[0] (resuming from pos 0, so it also gets what
// happened before it connected) and keeps it connected until the test ends.
func startClient(t *testing.T, uid, token string, bases ...string) *wsClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &wsClient{uid: uid, token: token, bases: bases, seen: map[int64]bool{}, byMessage: map[int64][]int64{},
		texts: map[string]int{}, lastSeq: map[string]int64{}, cancel: cancel, done: make(chan struct{})}
	go c.run(ctx)
	t.Cleanup(c.stop)
	return c
}

func (c *wsClient) stop() {
	c.cancel()
	<-c.done
}

func (c *wsClient) run(ctx context.Context) {
	defer close(c.done)
	backoff := 20 * time.Millisecond
	for ctx.Err() == nil {
		c.mu.Lock()
		base := c.bases[c.cur]
		c.mu.Unlock()
		if err := c.session(ctx, base); err != nil {
			var ce websocket.CloseError
			if errors.As(err, &ce) && ce.Code == websocket.StatusTryAgainLater {
				c.mu.Lock()
				c.refused++
				c.mu.Unlock()
			}
			if !errors.As(err, &ce) && strings.Contains(err.Error(), "dial") {
				// The server is gone: fail over to the next one.
				c.mu.Lock()
				c.cur = (c.cur + 1) % len(c.bases)
				c.mu.Unlock()
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
	}
}

// session runs one connection until it ends.
func (c *wsClient) session(ctx context.Context, base string) error {
	url := "ws" + strings.TrimPrefix(base, "http") + "/ws"
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	conn, _, err := websocket.Dial(dctx, url, nil)
	cancel()
	if err != nil {
		return fmt.Errorf("dial: %w", err)
	}
	defer func() { _ = conn.CloseNow() }()
	conn.SetReadLimit(1 << 20)
	c.mu.Lock()
	resume := c.last
	c.conn = conn
	c.mu.Unlock()
	auth, _ := json.Marshal(map[string]any{"type": "auth", "token": c.token, "resume": resume})
	if err := conn.Write(ctx, websocket.MessageText, auth); err != nil {
		return err
	}
	defer func() {
		c.mu.Lock()
		c.connected = false
		c.mu.Unlock()
	}()
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			return err
		}
		var f struct {
			Type  string  `json:"type"`
			Event wsEvent `json:"event"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			c.problem("bad frame %s", data)
			continue
		}
		switch f.Type {
		case "ready":
			c.mu.Lock()
			c.connects++
			c.connected = true
			c.mu.Unlock()
		case "reset":
			c.mu.Lock()
			c.resets++
			c.mu.Unlock()
			c.problem("reset after pos %d", resume)
		case "event":
			c.receive(f.Event)
		}
	}
}

func (c *wsClient) problem(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// receive drops duplicates by pos and checks per-conversation order.
func (c *wsClient) receive(ev wsEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen[ev.Pos] {
		c.dupes++
		return
	}
	if ev.Pos <= c.last {
		c.problems = append(c.problems, fmt.Sprintf("pos %d after pos %d", ev.Pos, c.last))
	}
	c.seen[ev.Pos] = true
	c.last = max(c.last, ev.Pos)
	if ev.ConversationID != "" && ev.Seq > 0 {
		if prev, ok := c.lastSeq[ev.ConversationID]; ok && ev.Seq != prev+1 {
			c.problems = append(c.problems, fmt.Sprintf("%s: seq %d after %d (pos %d)", ev.ConversationID, ev.Seq, prev, ev.Pos))
		}
		c.lastSeq[ev.ConversationID] = ev.Seq
	}
	if ev.Type == "message.created" {
		var m struct {
			ID   int64  `json:"id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(ev.Data, &m); err != nil {
			c.problems = append(c.problems, fmt.Sprintf("message.created data: %v", err))
			return
		}
		c.byMessage[m.ID] = append(c.byMessage[m.ID], ev.Pos)
		if strings.HasPrefix(m.Text, "msg ") {
			c.texts[m.Text]++
		}
	}
}

// has reports whether every message id was received.
func (c *wsClient) has(ids []int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if len(c.byMessage[id]) == 0 {
			return false
		}
	}
	return true
}

// drop closes the current connection as a network failure would; the client reconnects.
func (c *wsClient) drop() {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if conn != nil {
		_ = conn.CloseNow()
	}
}

func (c *wsClient) isConnected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.connected
}

// check fails the test for any protocol problem, any message delivered under two positions
// (a duplicate the SDK could not drop by pos) and any of want missing.
func (c *wsClient) check(t *testing.T, want []int64) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.problems {
		t.Errorf("%s: %s", c.uid, p)
	}
	var missing []int64
	for _, id := range want {
		if len(c.byMessage[id]) == 0 {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%s: %d of %d messages never arrived: %v", c.uid, len(missing), len(want), missing)
	}
	for id, ps := range c.byMessage {
		if len(ps) != 1 {
			t.Errorf("%s: message %d created under %d positions %v", c.uid, id, len(ps), ps)
		}
	}
	for text, n := range c.texts {
		if n != 1 {
			t.Errorf("%s: text %q received %d times", c.uid, text, n)
		}
	}
}

// stats summarises what the client got, for the test log.
func (c *wsClient) stats() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprintf("%s: %d events, %d messages, %d duplicate frames dropped, %d connections (%d refused with 1013)", c.uid, len(c.seen), len(c.byMessage), c.dupes, c.connects, c.refused)
}

// idsFor lists the acked messages of the conversations uid belongs to.
func idsFor(uid string, sent map[*conv][]sendResult) []int64 {
	var out []int64
	for cv, rs := range sent {
		member := false
		for _, m := range cv.members {
			member = member || m == uid
		}
		if !member {
			continue
		}
		for _, r := range rs {
			if r.acked() {
				out = append(out, r.id)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
