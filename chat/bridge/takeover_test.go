package bridge_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// fastTakeOver makes replicas notice a stopped one within a fraction of a second.
var fastTakeOver = bridge.Options{Heartbeat: 50 * time.Millisecond, TakeOverAfter: 200 * time.Millisecond}

// stopReplica stops e's bridge as SIGTERM does (its runs handed over) and checks that it
// failed none of them.
func stopReplica(t *testing.T, e *chatEnv, with string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	testutil.NoError(t, e.Bridge.Close(ctx))
	for _, m := range e.messages("alice", with) {
		if m.Type == model.TypeAgentError {
			t.Fatalf("the stopping replica failed the run: %s", m.Text)
		}
	}
}

// TestTakeOverWaitingForActions: a chat replica stops while chef's run waits for alice's app
// to show the recipe card; another replica takes the run over, waits for the result alice's
// app sends it, and finishes the run: the conversation is what it is without a stop.
func TestTakeOverWaitingForActions(t *testing.T) {
	rt := startRuntime(t, samplesDir(), nil, nil, nil)
	path := filepath.Join(t.TempDir(), "chat.db")
	first := startChatAt(t, fastTakeOver, path, nil)
	first.putChef(rt, "chef")
	sock := first.connect("alice")
	runID := first.must(first.send("alice", "chef", "I have eggs, spinach and feta. What can I cook?"), http.StatusCreated).Header.Get("X-Agent-Run")
	d := waitAwaitingAction(t, first, sock, runID)
	stopReplica(t, first, "chef")

	next := startChatAt(t, fastTakeOver, path, nil)
	next.tokens = first.tokens
	if !waitUntil(10*time.Second, func() bool {
		run, err := next.Store.GetAgentRun(context.Background(), model.ConversationID(model.ReceiverUser, "alice", "chef"))
		return err == nil && run.RunID == runID && run.Owner != "" && strings.Contains(next.Logs.String(), "taking over")
	}) {
		t.Fatalf("the waiting run was not taken over; the new replica logged:\n%s", next.Logs.String())
	}
	next.must(next.do(http.MethodPost, "/agent-runs/"+runID+"/actions/"+d.AwaitingActions[0], "alice", map[string]any{"result": map[string]bool{"shown": true}}), http.StatusCreated)
	next.waitMessage("alice", "chef", 15*time.Second, answerWith("recipe card is on your screen"))
	var kinds []string
	for _, m := range next.messages("alice", "chef") {
		kinds = append(kinds, m.Type)
	}
	if got, want := strings.Join(kinds, " "), "text assistant tool_result assistant tool_result assistant"; got != want {
		t.Errorf("stored conversation = %q, want %q", got, want)
	}
}

// TestTakeOverCallsMastraAgain: a chat replica stops while a Mastra agent (the runtime's
// generate route) is answering; there is no call to re-attach to, so the replica taking the run
// over asks again: the answer is stored once, no error.
func TestTakeOverCallsMastraAgain(t *testing.T) {
	const answer = "one two three four five six seven eight"
	rt := pacedRuntime(t, answer, 150)
	path := filepath.Join(t.TempDir(), "chat.db")
	first := startChatAt(t, fastTakeOver, path, nil)
	first.putAgent(map[string]any{"agentId": "counter", "provider": "mastra", "deploymentUrl": rt.URL + "/api/agents/chef/generate"})
	first.must(first.send("alice", "counter", "Count for me"), http.StatusCreated)
	if !waitUntil(5*time.Second, func() bool {
		run, err := first.Store.GetAgentRun(context.Background(), model.ConversationID(model.ReceiverUser, "alice", "counter"))
		return err == nil && run.CallID != ""
	}) {
		t.Fatal("the Mastra call was not recorded as in flight")
	}
	stopReplica(t, first, "counter")

	next := startChatAt(t, fastTakeOver, path, nil)
	next.tokens = first.tokens
	next.answeredOnce("alice", "counter", answer)
}

// TestTakeOverCallsAgainWhenTheCallIsGone: a chat replica stops mid-answer and, as in a helm
// upgrade that rolls both, the agent's pod is replaced too: the new one (without shared memory)
// does not know the call. The replica taking the run over calls the agent again instead of
// failing the run: one whole answer, no error.
func TestTakeOverCallsAgainWhenTheCallIsGone(t *testing.T) {
	const answer = "one two three four five six seven eight"
	oldPod, newPod := pacedRuntime(t, answer, 150), pacedRuntime(t, answer, 150)
	proxy, switchTo := switchableProxy(t, oldPod.URL)

	path := filepath.Join(t.TempDir(), "chat.db")
	first := startChatAt(t, fastTakeOver, path, nil)
	first.putAgent(map[string]any{"agentId": "counter", "deploymentUrl": proxy + "/api/agents/chef/ag-ui"})
	sock := first.connect("alice")
	first.must(first.send("alice", "counter", "Count for me"), http.StatusCreated)
	sock.waitAgentEvent(t, 5*time.Second, "a first word", func(ev agentEvent) bool { return ev.Type == "TEXT_MESSAGE_CONTENT" })
	stopReplica(t, first, "counter")
	switchTo(newPod.URL) // the agent's Service now leads to a pod that never saw the call

	next := startChatAt(t, fastTakeOver, path, nil)
	next.tokens = first.tokens
	next.answeredOnce("alice", "counter", answer)
	if !strings.Contains(next.Logs.String(), "calling the agent again") {
		t.Errorf("the new replica did not call again; it logged:\n%s", next.Logs.String())
	}
}

// TestTryAgain: alice asks an agent whose pod is gone (unreachable): the run fails with a
// sentence. Once the agent is back, POST /messages/{id}/retry on that error asks it again over
// the conversation as it is: one answer, the question not sent twice. Bob cannot retry
// alice's run (he cannot see it); a message that is not an error cannot be retried; a retry
// while the agent answers is refused as busy.
func TestTryAgain(t *testing.T) {
	const answer = "one two three four five six"
	rt := pacedRuntime(t, answer, 100)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close() // nothing listens there any more
	proxy, switchTo := switchableProxy(t, gone.URL)

	e := startChat(t, bridge.Options{})
	e.putAgent(map[string]any{"agentId": "counter", "deploymentUrl": proxy + "/api/agents/chef/ag-ui"})
	question := e.must(e.send("alice", "counter", "Count for me"), http.StatusCreated)
	var asked model.Message
	question.decode(t, &asked)
	failed := e.waitMessage("alice", "counter", 10*time.Second, func(m model.Message) bool { return m.Type == model.TypeAgentError })
	retry := fmt.Sprintf("/messages/%d/retry", failed.ID)
	if r := e.do(http.MethodPost, retry, "bob", nil); r.Status != http.StatusNotFound {
		t.Errorf("bob retrying alice's run: %d %s", r.Status, r.Body)
	}
	if r := e.do(http.MethodPost, fmt.Sprintf("/messages/%d/retry", asked.ID), "alice", nil); r.Status != http.StatusBadRequest {
		t.Errorf("retrying a question: %d %s", r.Status, r.Body)
	}

	switchTo(rt.URL) // the agent is back
	var started struct {
		RunID string `json:"runId"`
	}
	e.must(e.do(http.MethodPost, retry, "alice", nil), http.StatusAccepted).decode(t, &started)
	if started.RunID == "" {
		t.Fatal("no run id for the retry")
	}
	if r := e.do(http.MethodPost, retry, "alice", nil); r.Status != http.StatusConflict || r.code() != model.ErrAgentBusy {
		t.Errorf("a retry while the agent answers: %d %s", r.Status, r.Body)
	}
	e.waitMessage("alice", "counter", 15*time.Second, func(m model.Message) bool { return m.Type == model.TypeAssistant && m.Text == answer })
	var kinds []string
	for _, m := range e.messages("alice", "counter") {
		kinds = append(kinds, m.Type)
	}
	if got, want := strings.Join(kinds, " "), "text agent_error assistant"; got != want {
		t.Errorf("the conversation after the retry: %q, want %q", got, want)
	}
}

// switchableProxy forwards to target until switchTo names another: an agent's Service whose pods
// change under it.
func switchableProxy(t *testing.T, target string) (string, func(string)) {
	t.Helper()
	var to atomic.Pointer[url.URL]
	switchTo := func(u string) {
		parsed, err := url.Parse(u)
		testutil.NoError(t, err)
		to.Store(parsed)
	}
	switchTo(target)
	proxy := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(to.Load()) }, FlushInterval: -1})
	t.Cleanup(proxy.Close)
	return proxy.URL, switchTo
}
