package bridge_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/protocol/agui"
)

// droppingProxy forwards to the runtime; each AG-UI POST's stream is cut (the connection
// closed, as a failing network hop does) after its first cutAfter events. Re-attaches (GET)
// pass through; reattached counts them.
func droppingProxy(t *testing.T, runtime string, cutAfter int, reattached *atomic.Int32) string {
	target, err := url.Parse(runtime)
	testutil.NoError(t, err)
	pass := httputil.NewSingleHostReverseProxy(target)
	pass.FlushInterval = -1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/ag-ui/runs/") {
			reattached.Add(1)
		}
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/ag-ui") {
			pass.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, runtime+r.URL.Path, bytes.NewReader(body))
		req.Header = r.Header.Clone()
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		for k, v := range res.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(res.StatusCode)
		sc := bufio.NewScanner(res.Body)
		for n := 0; n < cutAfter && sc.Scan(); {
			_, _ = w.Write(append(sc.Bytes(), '\n'))
			if sc.Text() == "" {
				n++
			}
		}
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close() // mid-stream, no end of the chunked body
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestDroppedStreamIsReattached: the network between the chat and the agent drops the AG-UI
// stream mid-answer; the bridge re-attaches to the run in the runtime and the conversation gets
// the whole answer once, exactly what the agent answered.
func TestDroppedStreamIsReattached(t *testing.T) {
	rt := startRuntime(t, samplesDir(), nil, nil, nil)
	var reattached atomic.Int32
	proxy := droppingProxy(t, rt.URL, 4, &reattached)
	// What the agent answers, asked directly.
	res, err := http.Post(rt.URL+"/api/agents/weather/generate", "application/json", strings.NewReader(`{"messages":"What is the weather in Lima?"}`))
	testutil.NoError(t, err)
	var direct struct {
		Text string `json:"text"`
	}
	testutil.NoError(t, json.NewDecoder(res.Body).Decode(&direct))
	res.Body.Close()
	if !strings.Contains(direct.Text, "Lima") {
		t.Fatalf("the direct answer: %q", direct.Text)
	}

	e := startChat(t, bridge.Options{})
	e.putAgent(map[string]any{"agentId": "weather", "name": "Weather", "provider": "ag-ui", "deploymentUrl": proxy + "/api/agents/weather/ag-ui"})
	e.token("alice")
	e.must(e.send("alice", "weather", "What is the weather in Lima?"), http.StatusCreated)
	got := e.waitMessage("alice", "weather", 15*time.Second, func(m model.Message) bool {
		return m.Sender == "weather" && m.Type == model.TypeAssistant && strings.Contains(m.Text, "Lima")
	})
	if got.Text != direct.Text {
		t.Errorf("the answer after the drop: %q, the agent's: %q", got.Text, direct.Text)
	}
	if reattached.Load() == 0 {
		t.Error("the bridge did not re-attach")
	}
	// The conversation is exactly what the same question gets without a drop.
	e.putAgent(map[string]any{"agentId": "weather-direct", "name": "Weather", "provider": "ag-ui", "deploymentUrl": rt.URL + "/api/agents/weather/ag-ui"})
	e.must(e.send("alice", "weather-direct", "What is the weather in Lima?"), http.StatusCreated)
	e.waitMessage("alice", "weather-direct", 15*time.Second, func(m model.Message) bool {
		return m.Sender == "weather-direct" && m.Type == model.TypeAssistant && strings.Contains(m.Text, "Lima")
	})
	shape := func(with string) []string {
		var out []string
		for _, m := range e.messages("alice", with) {
			if m.Type == model.TypeAgentError {
				t.Errorf("an error reached the conversation with %s: %+v", with, m)
			}
			out = append(out, m.Type+":"+m.Text)
		}
		return out
	}
	if dropped, direct := shape("weather"), shape("weather-direct"); strings.Join(dropped, "|") != strings.Join(direct, "|") {
		t.Errorf("after a drop:\n%q\nwithout one:\n%q", dropped, direct)
	}
}

// TestTakeOverFinishesTheAnswer: a chat replica stops (Close hands its runs over) while the
// agent, a real runtime, is answering slowly; another replica on the same store takes the run
// over, re-attaches to the agent's call and stores the whole answer, once, exactly what the
// agent answered: the person sees no error.
func TestTakeOverFinishesTheAnswer(t *testing.T) {
	const answer = "one two three four five six seven eight nine ten eleven twelve"
	rt := pacedRuntime(t, answer, 150)
	path := filepath.Join(t.TempDir(), "chat.db")
	fast := bridge.Options{Heartbeat: 50 * time.Millisecond, TakeOverAfter: 200 * time.Millisecond}
	first := startChatAt(t, fast, path, nil)
	first.putAgent(map[string]any{"agentId": "chef", "name": "Chef", "provider": "ag-ui", "deploymentUrl": rt.URL + "/api/agents/chef/ag-ui"})
	sock := first.connect("alice")
	first.must(first.send("alice", "chef", "Count for me"), http.StatusCreated)
	sock.waitAgentEvent(t, 5*time.Second, "a first word", func(ev agentEvent) bool { return ev.Type == "TEXT_MESSAGE_CONTENT" })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	testutil.NoError(t, first.Bridge.Close(ctx))

	next := startChatAt(t, fast, path, nil)
	next.tokens = first.tokens
	next.answeredOnce("alice", "chef", answer)
}

// TestReplayToAReloadedPage: alice's page reloads while the agent is answering. The new socket
// asks for the conversation's run (a replay frame) and gets the call so far in agent.replay
// parts, then the live frames: its text, built as the UI kit builds it (a start begins the
// message anew), is exactly the answer, nothing twice, nothing missing. Bob, not in the
// conversation, gets nothing; after the run, a replay sends nothing (the answer is stored).
func TestReplayToAReloadedPage(t *testing.T) {
	const answer = "one two three four five six seven eight nine ten eleven twelve"
	rt := pacedRuntime(t, answer, 100)
	e := startChat(t, bridge.Options{})
	e.putAgent(map[string]any{"agentId": "chef", "name": "Chef", "provider": "ag-ui", "deploymentUrl": rt.URL + "/api/agents/chef/ag-ui"})
	conv := model.ConversationID(model.ReceiverUser, "alice", "chef")
	first := e.connect("alice")
	e.must(e.send("alice", "chef", "Count for me"), http.StatusCreated)
	first.waitAgentEvent(t, 5*time.Second, "the third word", func(ev agentEvent) bool {
		return ev.Type == "TEXT_MESSAGE_CONTENT" && strings.Contains(ev.Delta, "three")
	})
	reloaded, bob := e.connect("alice"), e.connect("bob")
	for _, s := range []*socket{reloaded, bob} {
		testutil.NoError(t, s.conn.Write(context.Background(), websocket.MessageText, []byte(`{"type":"replay","conversationId":"`+conv+`"}`)))
	}
	reloaded.waitAgentEvent(t, 15*time.Second, "the run's end", func(ev agentEvent) bool { return ev.Type == "RUN_FINISHED" })
	if got, parts := reloaded.builtText(t); got != answer || parts == 0 {
		t.Errorf("the reloaded page's text: %q from %d replay parts, want %q", got, parts, answer)
	}
	if strings.Contains(bob.all(), "agent.replay") || len(bob.agentEvents()) != 0 {
		t.Errorf("bob got alice's run: %s", bob.all())
	}
	e.waitMessage("alice", "chef", 10*time.Second, func(m model.Message) bool { return m.Sender == "chef" && m.Text == answer })
	// The run is over: its replica replays nothing (the answer is a stored message).
	sent := 0
	e.Bridge.Replay(conv, func([]byte) { sent++ })
	if sent != 0 {
		t.Errorf("a replay after the run ended sent %d frames", sent)
	}
}

// builtText is the text of the socket's agent message as the UI kit builds it from the live
// frames and the replay parts in their order (a start begins the message anew), and how many
// replay parts came.
func (s *socket) builtText(t *testing.T) (string, int) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	text := map[string]string{}
	var last string
	apply := func(raw json.RawMessage) {
		var ev agui.Event
		testutil.NoError(t, json.Unmarshal(raw, &ev))
		switch ev.Type {
		case agui.TextMessageStart:
			text[ev.MessageID], last = "", ev.MessageID
		case agui.TextMessageContent:
			text[ev.MessageID] += ev.Delta
		}
	}
	parts := 0
	for _, f := range s.frames {
		switch f.Type {
		case "agent":
			apply(f.Event)
		case "agent.replay":
			var r struct{ Events []json.RawMessage }
			testutil.NoError(t, json.Unmarshal(f.raw, &r))
			parts++
			for _, ev := range r.Events {
				apply(ev)
			}
		}
	}
	if len(text) != 1 {
		t.Errorf("%d agent messages: %q", len(text), text)
	}
	return text[last], parts
}
