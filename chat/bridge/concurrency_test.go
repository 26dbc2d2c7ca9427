package bridge_test

import (
	"context"
	"fmt"
	"net/http"
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

// TestShutdownEndsRuns: closing the bridge cancels a run that hangs on its agent, promptly,
// and leaves a SERVICE_SHUTTING_DOWN error message in the conversation.
func TestShutdownEndsRuns(t *testing.T) {
	f := startFakeAgent(t)
	e := startChat(t, bridge.Options{}) // default limits: only the shutdown ends this run
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
	// Close waited for the run, so its error message is stored already.
	var found bool
	for _, m := range e.messages("alice", "hang") {
		if m.Type == model.TypeAgentError {
			found = true
			if d := agentErrorOf(t, m); d.Code != model.RunErrShuttingDown || d.RunID != runID {
				t.Errorf("agent_error data %+v, want %s of run %s", d, model.RunErrShuttingDown, runID)
			}
			if !strings.Contains(m.Text, "send your message again") {
				t.Errorf("agent_error text %q", m.Text)
			}
		}
	}
	if !found {
		t.Fatal("no agent_error message after the shutdown")
	}
	if _, err := e.Store.GetAgentRun(context.Background(), model.ConversationID(model.ReceiverUser, "alice", "hang")); model.CodeOf(err) != model.ErrNotFound {
		t.Errorf("the conversation is still claimed after the shutdown: %v", err)
	}
}

// slowFinish stores a run's last output slowly, as a loaded PostgreSQL does.
type slowFinish struct {
	store.Store
	delay time.Duration
}

func (s slowFinish) FinishAgentRun(ctx context.Context, conv, runID string, ms []model.Message) ([]model.Message, error) {
	time.Sleep(s.delay)
	return s.Store.FinishAgentRun(ctx, conv, runID, ms)
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
