package bridge_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
)

// waitHeld waits until the fake agent holds a request.
func waitHeld(t *testing.T, f *fakeAgent, within time.Duration) {
	t.Helper()
	select {
	case <-f.held:
	case <-time.After(within):
		t.Fatalf("the agent received no request to hold within %s", within)
	}
}

// TestOneRunPerConversation: while the agent answers in a conversation, a second message
// there is refused with ERR_AGENT_BUSY and not stored; another user's conversation with the
// same agent runs meanwhile; once the run ends, the next message is answered.
func TestOneRunPerConversation(t *testing.T) {
	f := startFakeAgent(t)
	e := startChat(t, bridge.Options{})
	f.set(modeHold, "Done.")
	e.putAgent(map[string]any{"agentId": "slow", "deploymentUrl": f.URL + "/agent"})
	sock := e.connect("alice")

	first := e.must(e.send("alice", "slow", "Take your time "+holdMarker), http.StatusCreated)
	runID := first.Header.Get("X-Agent-Run")
	waitHeld(t, f, 5*time.Second)

	busy := e.send("alice", "slow", "Are you still there?")
	if busy.Status != http.StatusConflict || busy.code() != model.ErrAgentBusy {
		t.Fatalf("a second message during the run: %d %s, want 409 %s", busy.Status, busy.Body, model.ErrAgentBusy)
	}
	if busy.Header.Get("X-Agent-Run") != "" {
		t.Error("the refused message started a run")
	}
	if slices.ContainsFunc(e.messages("alice", "slow"), func(m model.Message) bool { return m.Text == "Are you still there?" }) {
		t.Error("the refused message was stored")
	}

	// Another conversation with the same agent is not blocked by alice's run.
	e.must(e.send("bob", "slow", "Quick question"), http.StatusCreated)
	e.waitMessage("bob", "slow", 5*time.Second, func(m model.Message) bool { return m.Type == model.TypeAssistant && m.Text == "Done." })
	for _, m := range e.messages("alice", "slow") {
		if m.Sender == "slow" {
			t.Fatalf("alice's held run answered before it was released: %+v", m)
		}
	}

	f.releaseHeld()
	e.waitMessage("alice", "slow", 5*time.Second, func(m model.Message) bool {
		return m.Type == model.TypeAssistant && m.Text == "Done." && strings.Contains(string(m.Data), runID)
	})
	next := e.must(e.send("alice", "slow", "Thanks! One more thing."), http.StatusCreated)
	nextRun := next.Header.Get("X-Agent-Run")
	if nextRun == "" || nextRun == runID {
		t.Fatalf("the next message's run is %q (first run %q)", nextRun, runID)
	}
	e.waitMessage("alice", "slow", 5*time.Second, func(m model.Message) bool {
		return m.Type == model.TypeAssistant && strings.Contains(string(m.Data), nextRun)
	})
	var texts []string
	for _, m := range e.messages("alice", "slow") {
		texts = append(texts, m.Type+":"+m.Text)
	}
	want := "text:Take your time " + holdMarker + " assistant:Done. text:Thanks! One more thing. assistant:Done."
	if got := strings.Join(texts, " "); got != want {
		t.Errorf("alice's conversation = %q, want %q", got, want)
	}
	if n := len(sock.agentEvents()); n == 0 {
		t.Error("alice's socket saw no agent frames")
	}
}

// TestShutdownHandsRunsOver: closing the bridge (a replica stopping) promptly hands a run that
// hangs on its agent over instead of failing it: no error in the conversation, the run released
// for another replica. The replica that takes it over finds an agent that cannot re-attach (not
// an Agentry runtime) and asks it again: its answer is stored once, no error, the conversation
// released.
func TestShutdownHandsRunsOver(t *testing.T) {
	f := startFakeAgent(t)
	path := filepath.Join(t.TempDir(), "chat.db")
	fast := bridge.Options{Heartbeat: 50 * time.Millisecond, TakeOverAfter: 200 * time.Millisecond}
	e := startChatAt(t, fast, path, nil)
	f.set(modeIdle, "")
	e.putAgent(map[string]any{"agentId": "hang", "deploymentUrl": f.URL + "/agent"})
	sock := e.connect("alice")
	r := e.must(e.send("alice", "hang", "Hello?"), http.StatusCreated)
	runID := r.Header.Get("X-Agent-Run")
	sock.waitAgentEvent(t, 5*time.Second, "RUN_STARTED", func(ev agentEvent) bool { return ev.Type == "RUN_STARTED" })

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := e.Bridge.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %s", d)
	}
	conv := model.ConversationID(model.ReceiverUser, "alice", "hang")
	for _, m := range e.messages("alice", "hang") {
		if m.Type == model.TypeAgentError {
			t.Fatalf("the stopping replica failed the run: %+v", m)
		}
	}
	if run, err := e.Store.GetAgentRun(context.Background(), conv); err != nil || run.RunID != runID || run.CallID == "" {
		t.Fatalf("the run after the hand-over: %+v %v", run, err)
	}

	f.set(modeGood, "Hello, Alice.")        // the agent answers now
	next := startChatAt(t, fast, path, nil) // the replica that takes over
	next.tokens = e.tokens
	got := next.waitMessage("alice", "hang", 10*time.Second, func(m model.Message) bool {
		return m.Sender == "hang" && (m.Type == model.TypeAssistant || m.Type == model.TypeAgentError)
	})
	if got.Type != model.TypeAssistant || got.Text != "Hello, Alice." {
		t.Fatalf("the run taken over: %s %q; the new replica logged:\n%s", got.Type, got.Text, next.Logs.String())
	}
	if calls := f.requests(); len(calls) != 2 || !strings.Contains(calls[1], `"content":"Hello?"`) {
		t.Errorf("the agent's calls: %q, want the question asked again once", calls)
	}
	if !waitUntil(5*time.Second, func() bool {
		_, err := next.Store.GetAgentRun(context.Background(), conv)
		return model.CodeOf(err) == model.ErrNotFound
	}) {
		t.Error("the conversation is still claimed")
	}
}

// slowFinish stores a run's last output slowly, as a loaded PostgreSQL does.
type slowFinish struct {
	store.Store
	delay time.Duration
}

func (s slowFinish) FinishAgentRun(ctx context.Context, conv, runID, owner string, ms []model.Message) ([]model.Message, error) {
	time.Sleep(s.delay)
	return s.Store.FinishAgentRun(ctx, conv, runID, owner, ms)
}

// TestNextMessageRightAfterTheRunEnds: a client that sends its next message the moment it sees
// RUN_FINISHED (or RUN_ERROR) is never refused as busy: the frame goes out only once the
// output is stored and the conversation released, however slow the store.
func TestNextMessageRightAfterTheRunEnds(t *testing.T) {
	f := startFakeAgent(t)
	e := startChatWith(t, bridge.Options{}, func(st store.Store) store.Store { return slowFinish{st, 300 * time.Millisecond} })
	for _, tc := range []struct{ mode, end string }{{modeGood, "RUN_FINISHED"}, {modeRunError, "RUN_ERROR"}, {modeMastraGood, "RUN_FINISHED"}} {
		t.Run(tc.mode, func(t *testing.T) {
			e := e.forTest(t)
			f.set(tc.mode, "Done.")
			id, provider, url := "fast-"+tc.mode, "ag-ui", f.URL+"/agent"
			if tc.mode == modeMastraGood {
				provider, url = "mastra", f.URL+"/api/agents/x/generate"
			}
			e.putAgent(map[string]any{"agentId": id, "provider": provider, "deploymentUrl": url})
			sock := e.connect("alice")
			for i := range 3 {
				r := e.must(e.send("alice", id, fmt.Sprintf("Question %d", i)), http.StatusCreated)
				run := r.Header.Get("X-Agent-Run")
				sock.waitAgentEvent(t, 5*time.Second, tc.end, func(ev agentEvent) bool { return ev.Type == tc.end && ev.runID == run })
			}
			if got := len(e.messages("alice", id)); got != 6 {
				t.Errorf("the conversation holds %d messages, want 3 questions and 3 answers", got)
			}
		})
	}
}
