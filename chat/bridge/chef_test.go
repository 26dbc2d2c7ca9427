package bridge_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
)

func assistantData(t *testing.T, m model.Message) model.AssistantData {
	t.Helper()
	var d model.AssistantData
	if err := json.Unmarshal(m.Data, &d); err != nil {
		t.Fatalf("assistant data %s: %v", m.Data, err)
	}
	return d
}

// TestChefOverTheChatService: a user asks the chef agent over the chat service; the server
// tool's result and the text arrive live and then as stored messages; the show-recipe-card
// frontend action reaches the user's client with its display name and execution text; the
// client posts the result and the run continues to its final text.
func TestChefOverTheChatService(t *testing.T) {
	rt := startRuntime(t, samplesDir(), nil, nil, nil)
	e := startChat(t, bridge.Options{})
	e.putChef(rt, "chef")
	sock := e.connect("alice")

	r := e.must(e.send("alice", "chef", "I have eggs, spinach and feta. What can I cook?"), http.StatusCreated)
	runID := r.Header.Get("X-Agent-Run")
	if runID == "" {
		t.Fatal("no X-Agent-Run header: the message started no run")
	}

	waitLiveChefRun(t, sock)
	d := waitAwaitingAction(t, e, sock, runID)

	// Only the executor may answer; then the run continues.
	bob := e.do(http.MethodPost, "/agent-runs/"+runID+"/actions/"+d.AwaitingActions[0], "bob", map[string]any{"result": map[string]bool{"shown": true}})
	if bob.Status != http.StatusForbidden {
		t.Errorf("another user answering the action: %d %s, want 403", bob.Status, bob.Body)
	}
	e.must(e.do(http.MethodPost, "/agent-runs/"+runID+"/actions/"+d.AwaitingActions[0], "alice", map[string]any{"result": map[string]bool{"shown": true}}), http.StatusCreated)
	again := e.do(http.MethodPost, "/agent-runs/"+runID+"/actions/"+d.AwaitingActions[0], "alice", map[string]any{"result": "twice"})
	if again.Status != http.StatusConflict || again.code() != model.ErrActionNotPending {
		t.Errorf("answering twice: %d %s, want 409 %s", again.Status, again.Body, model.ErrActionNotPending)
	}
	final := e.waitMessage("alice", "chef", 10*time.Second, answerWith("recipe card is on your screen"))

	// The whole conversation, stored once: question, tool call, tool result, text + action,
	// action result, final text.
	var kinds []string
	for _, m := range e.messages("alice", "chef") {
		kind := m.Type
		if m.Type == model.TypeAssistant {
			for _, c := range assistantData(t, m).ToolCalls {
				kind += "+" + c.Name
			}
		}
		kinds = append(kinds, kind)
	}
	want := "text assistant+recipe-from-pantry tool_result assistant+show-recipe-card tool_result assistant"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("stored conversation = %q, want %q", got, want)
	}
	if final.Sender != "chef" || final.ReceiverID != "alice" {
		t.Errorf("final message from %q to %q", final.Sender, final.ReceiverID)
	}
	// The run released the conversation: the next message starts a new run.
	e.must(e.send("alice", "chef", "What can I use instead of butter?"), http.StatusCreated)
	e.waitMessage("alice", "chef", 10*time.Second, answerStarting("Try "))
}

// waitLiveChefRun waits for the live frames: the server tool's call and result, then the
// frontend action with its texts.
func waitLiveChefRun(t *testing.T, sock *socket) {
	sock.waitAgentEvent(t, 10*time.Second, "RUN_STARTED", func(ev agentEvent) bool { return ev.Type == "RUN_STARTED" })
	sock.waitAgentEvent(t, 10*time.Second, "server tool result", func(ev agentEvent) bool {
		return ev.Type == "TOOL_CALL_RESULT" && strings.Contains(string(ev.Content), "title")
	})
	start := sock.waitAgentEvent(t, 10*time.Second, "frontend action start", func(ev agentEvent) bool {
		return ev.Type == "TOOL_CALL_START" && ev.ToolCallName == "show-recipe-card"
	})
	if start.DisplayName != "Show recipe card" || start.ExecutionText != "Showing the recipe card" || !start.Frontend {
		t.Errorf("frontend tool call start = %+v, want the action's display name and execution text", start)
	}
	sock.waitAgentEvent(t, 10*time.Second, "text delta", func(ev agentEvent) bool {
		return ev.Type == "TEXT_MESSAGE_CONTENT" && ev.Delta != ""
	})
}

// waitAwaitingAction waits for the stored assistant message that waits for the action,
// addressed to alice's client, and for the same message on her socket.
func waitAwaitingAction(t *testing.T, e *chatEnv, sock *socket, runID string) model.AssistantData {
	waiting := e.waitMessage("alice", "chef", 10*time.Second, func(m model.Message) bool {
		return m.Type == model.TypeAssistant && len(assistantData(t, m).AwaitingActions) > 0
	})
	d := assistantData(t, waiting)
	if d.Executor != "alice" || d.RunID != runID || len(d.ToolCalls) != 1 || d.ToolCalls[0].Name != "show-recipe-card" {
		t.Fatalf("waiting assistant message data = %+v", d)
	}
	var args struct {
		Title string   `json:"title"`
		Steps []string `json:"steps"`
	}
	if err := json.Unmarshal([]byte(d.ToolCalls[0].Arguments), &args); err != nil || args.Title == "" || len(args.Steps) == 0 {
		t.Fatalf("the action's arguments are not complete JSON: %q (%v)", d.ToolCalls[0].Arguments, err)
	}
	// The socket saw the same message live (that is what a client executes on).
	if !waitUntil(5*time.Second, func() bool {
		return slices.ContainsFunc(sock.storedMessages(), func(m model.Message) bool { return m.ID == waiting.ID })
	}) {
		t.Fatalf("message %d did not arrive on the socket", waiting.ID)
	}
	return d
}

// TestNextMessageRightAfterTheAnswer: the answer and the release of the conversation commit
// together, so a client that sends the moment the answer arrives is never told the agent is
// busy.
func TestNextMessageRightAfterTheAnswer(t *testing.T) {
	rt := startRuntime(t, samplesDir(), nil, nil, nil)
	e := startChat(t, bridge.Options{})
	e.putChef(rt, "chef")
	sock := e.connect("alice")
	seen := 0
	for i := range 10 {
		r := e.send("alice", "chef", "What can I use instead of butter?")
		if r.Status != http.StatusCreated {
			t.Fatalf("message %d sent right after the previous answer: %d %s", i, r.Status, r.Body)
		}
		deadline, n := time.Now().Add(10*time.Second), answers(sock.storedMessages())
		for ; n <= seen; n = answers(sock.storedMessages()) {
			if time.Now().After(deadline) {
				t.Fatalf("answer %d did not arrive", i)
			}
			time.Sleep(time.Millisecond) // the next message goes the moment the answer is there
		}
		seen = n
	}
}

// answers counts the chef's answers with text.
func answers(ms []model.Message) (n int) {
	for _, m := range ms {
		if m.Sender == "chef" && m.Type == model.TypeAssistant && m.Text != "" {
			n++
		}
	}
	return n
}

// TestThreadRepliesStartNoRun: the agent reads the main conversation, so a reply in a thread
// is stored without starting a run (it would answer a question it cannot see).
func TestThreadRepliesStartNoRun(t *testing.T) {
	rt := startRuntime(t, samplesDir(), nil, nil, nil)
	e := startChat(t, bridge.Options{})
	e.putChef(rt, "chef")
	r := e.must(e.send("alice", "chef", "What can I use instead of butter?"), http.StatusCreated)
	var first model.Message
	r.decode(t, &first)
	e.waitMessage("alice", "chef", 10*time.Second, func(m model.Message) bool { return m.Type == model.TypeAssistant && m.Text != "" })
	reply := e.must(e.do(http.MethodPost, "/messages", "alice", map[string]any{"receiver": "chef", "receiverType": "user", "text": "And instead of eggs?", "parentId": first.ID}), http.StatusCreated)
	if run := reply.Header.Get("X-Agent-Run"); run != "" {
		t.Fatalf("a thread reply started run %s", run)
	}
}
