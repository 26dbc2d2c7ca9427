package bridge_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/agentref"
	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

const butter = "What can I use instead of butter?"

// TestFrontendActionTimeout: the user's client never runs show-recipe-card; after the action
// timeout the agent's error result is stored, the run continues to the final text, and a late
// result is refused.
func TestFrontendActionTimeout(t *testing.T) {
	rt := startRuntime(t, samplesDir(), nil, nil, nil)
	e := startChat(t, bridge.Options{ActionTimeout: time.Second})
	e.putChef(rt, "chef")
	e.connect("alice")

	r := e.must(e.send("alice", "chef", "I have eggs, spinach and feta. What can I cook?"), http.StatusCreated)
	runID := r.Header.Get("X-Agent-Run")
	waiting := e.waitMessage("alice", "chef", 10*time.Second, func(m model.Message) bool {
		return m.Type == model.TypeAssistant && len(assistantData(t, m).AwaitingActions) == 1
	})
	callID := assistantData(t, waiting).AwaitingActions[0]

	timedOut := e.waitMessage("alice", "chef", 10*time.Second, func(m model.Message) bool {
		return m.Type == model.TypeToolResult && strings.Contains(string(m.Data), callID)
	})
	var res model.ToolResultData
	testutil.NoError(t, json.Unmarshal(timedOut.Data, &res))
	if timedOut.Sender != "chef" || res.RunID != runID || res.Result != "" ||
		!strings.Contains(res.Error, "did not run the action within 1s") {
		t.Errorf("the timeout's tool result: sender %q, data %+v", timedOut.Sender, res)
	}
	final := e.waitMessage("alice", "chef", 10*time.Second, answerWith("recipe card is on your screen"))
	if final.ID < timedOut.ID || assistantData(t, final).RunID != runID {
		t.Errorf("final message %d (run %s) after the timeout result %d of run %s", final.ID, assistantData(t, final).RunID, timedOut.ID, runID)
	}
	late := e.do(http.MethodPost, "/agent-runs/"+runID+"/actions/"+callID, "alice", map[string]any{"result": map[string]bool{"shown": true}})
	if late.Status != http.StatusConflict || late.code() != model.ErrActionNotPending {
		t.Errorf("a result after the timeout: %d %s, want 409 %s", late.Status, late.Body, model.ErrActionNotPending)
	}
}

const privateChef = `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata:
  name: chef-private
spec:
  displayName: Private chef
  instructions: You are a friendly chef. Suggest substitutes with the suggest-substitute tool.
  model:
    name: gpt-4o-mini
    apiKeySecretRef: {name: openai, key: apiKey}
  tools:
    - key: suggest-substitute
      toolRef: {name: suggest-substitute}
  endpoint:
    auth: {headersSecretRef: {name: platform-auth}}
`

// TestAgentHeaders: the configured headers reach a protected agent (it answers), wrong or
// missing headers give AGENT_UNAUTHORIZED, and the header values appear in no API answer,
// log line, socket frame or stored message.
func TestAgentHeaders(t *testing.T) {
	const secret = "Bearer s3cr3t-value"
	rt := startRuntime(t, samplesDir(), map[string]string{"agent_chef-private.yaml": privateChef},
		secrets.Static{"platform-auth": {"Authorization": secret}}, nil)
	e := startChat(t, bridge.Options{})
	var answers []string // every API answer of the test
	call := func(method, path, uid string, body any) response {
		t.Helper()
		r := e.do(method, path, uid, body)
		answers = append(answers, string(r.Body))
		return r
	}
	putVaults(e, call, rt.URL+"/api/agents/chef-private/ag-ui", secret)
	sock := e.connect("alice")

	r := e.must(e.send("alice", "vault", butter), http.StatusCreated)
	e.waitMessage("alice", "vault", 10*time.Second, answerStarting("Try olive oil"))
	if r.Header.Get("X-Agent-Run") == "" {
		t.Error("no run")
	}
	for _, id := range []string{"vault-wrong", "vault-none"} {
		r := e.must(e.send("alice", id, butter), http.StatusCreated)
		m := e.waitAgentError("alice", id, r.Header.Get("X-Agent-Run"), model.RunErrUnauthorized, 10*time.Second)
		if !strings.Contains(m.Text, "HTTP 401") || !strings.Contains(m.Text, "headers") {
			t.Errorf("%s: error text %q", id, m.Text)
		}
	}
	sock.waitAgentEvent(t, 5*time.Second, "RUN_ERROR", func(ev agentEvent) bool {
		return ev.Type == "RUN_ERROR" && ev.Code == model.RunErrUnauthorized
	})

	// The connection test sends the headers too, and reports without them.
	var probe struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	call(http.MethodPost, "/agents/vault/test", "", nil).decode(t, &probe)
	if !probe.OK {
		t.Errorf("connection test with the right headers: %+v", probe)
	}
	call(http.MethodPost, "/agents/vault-wrong/test", "", nil).decode(t, &probe)
	if probe.OK || !strings.Contains(probe.Error, "headers") {
		t.Errorf("connection test with wrong headers: %+v", probe)
	}

	var cfg model.AgentConfig
	e.must(call(http.MethodGet, "/agents/vault", "", nil), http.StatusOK).decode(t, &cfg)
	if !cfg.HasHeaders {
		t.Error("GET /agents/vault: hasHeaders is false")
	}
	e.must(call(http.MethodGet, "/agents", "", nil), http.StatusOK)
	e.must(call(http.MethodGet, "/agents/vault-wrong", "", nil), http.StatusOK)
	call(http.MethodGet, "/agents/vault/profile", "alice", nil)
	call(http.MethodGet, "/users?limit=100", "alice", nil)
	checkNoHeaderValues(t, e, answers, sock)
}

// putVaults saves the protected agent three times: with the right headers, wrong ones and none.
func putVaults(e *chatEnv, call func(method, path, uid string, body any) response, url, secret string) {
	for id, headers := range map[string]map[string]string{
		"vault":       {"Authorization": secret, "X-Trace": "trace-value-42"},
		"vault-wrong": {"Authorization": "Bearer wr0ng-guess-value"},
		"vault-none":  nil,
	} {
		body := map[string]any{"name": id, "provider": "ag-ui", "deploymentUrl": url, "enabled": true}
		if headers != nil {
			body["headers"] = headers
		}
		e.must(call(http.MethodPut, "/agents/"+id, "", body), http.StatusCreated)
		// Saved again without headers: the stored ones are kept.
		delete(body, "headers")
		e.must(call(http.MethodPut, "/agents/"+id, "", body), http.StatusOK)
	}
}

// checkNoHeaderValues searches the API answers, the logs, the socket's frames and the stored
// messages for the header values.
func checkNoHeaderValues(t *testing.T, e *chatEnv, answers []string, sock *socket) {
	t.Helper()
	var stored []string
	for _, id := range []string{"vault", "vault-wrong", "vault-none"} {
		ms, err := e.Store.ListMessages(context.Background(), "alice", store.MessageQuery{UID: id, Limit: 100})
		testutil.NoError(t, err)
		b, _ := json.Marshal(ms)
		stored = append(stored, string(b))
	}
	for where, text := range map[string]string{
		"API answers": strings.Join(answers, "\n"), "logs": e.Logs.String(), "socket frames": sock.all(), "stored messages": strings.Join(stored, "\n"),
	} {
		if text == "" {
			t.Errorf("%s: nothing to search", where)
		}
		for _, v := range []string{"s3cr3t-value", "wr0ng-guess-value", "trace-value-42"} {
			if strings.Contains(text, v) {
				t.Errorf("%s contain the header value %q", where, v)
			}
		}
	}
}

// TestMastraProvider: provider mastra calls the runtime's /generate; the reply arrives as
// live AG-UI frames (run started, text, run finished) and as the stored assistant message.
func TestMastraProvider(t *testing.T) {
	rt := startRuntime(t, samplesDir(), nil, nil, nil)
	e := startChat(t, bridge.Options{})
	e.putAgent(map[string]any{"agentId": "chef", "name": "Chef", "provider": "mastra", "deploymentUrl": rt.URL + "/api/agents/chef/generate"})
	sock := e.connect("alice")
	e.must(e.send("alice", "chef", butter), http.StatusCreated)
	m := e.waitMessage("alice", "chef", 10*time.Second, func(m model.Message) bool { return m.Type == model.TypeAssistant })
	if !strings.HasPrefix(m.Text, "Try olive oil") || m.Sender != "chef" {
		t.Fatalf("reply %q from %q", m.Text, m.Sender)
	}
	sock.waitAgentEvent(t, 5*time.Second, "RUN_FINISHED", func(ev agentEvent) bool { return ev.Type == "RUN_FINISHED" })
	var types []string
	var text string
	for _, ev := range sock.agentEvents() {
		types = append(types, ev.Type)
		text += ev.Delta
	}
	if got := strings.Join(types, " "); got != "RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED" {
		t.Errorf("live frames %s", got)
	}
	if text != m.Text {
		t.Errorf("live text %q, stored %q", text, m.Text)
	}
	// A second turn sends the history: the agent still answers the latest question.
	e.must(e.send("alice", "chef", "And what can I use instead of milk?"), http.StatusCreated)
	e.waitMessage("alice", "chef", 10*time.Second, answerStarting("Try oat milk"))
}

// TestAgentRef: configurations naming an in-cluster Agent are called at the URL the resolver
// gives (AG-UI and generate); an unknown Agent fails the run with AGENT_NOT_READY; the
// connection test resolves the reference too.
func TestAgentRef(t *testing.T) {
	rt := startRuntime(t, samplesDir(), nil, nil, nil)
	e := startChat(t, bridge.Options{Resolver: agentref.StaticResolver{"default/chef": rt.URL + "/api/agents/chef"}})
	e.putAgent(map[string]any{"agentId": "chef", "name": "Chef", "agentRef": "default/chef"})
	e.putAgent(map[string]any{"agentId": "chef-gen", "name": "Chef", "provider": "mastra", "agentRef": "default/chef"})
	e.putAgent(map[string]any{"agentId": "ghost", "name": "Ghost", "agentRef": "default/ghost"})

	for _, id := range []string{"chef", "chef-gen"} {
		e.must(e.send("alice", id, butter), http.StatusCreated)
		e.waitMessage("alice", id, 10*time.Second, answerStarting("Try olive oil"))
	}
	r := e.must(e.send("alice", "ghost", butter), http.StatusCreated)
	m := e.waitAgentError("alice", "ghost", r.Header.Get("X-Agent-Run"), model.RunErrNotReady, 5*time.Second)
	if !strings.Contains(m.Text, "default/ghost not found") {
		t.Errorf("error text %q", m.Text)
	}

	var probe struct {
		OK          bool     `json:"ok"`
		Status      int      `json:"status"`
		ContentType string   `json:"contentType"`
		FirstEvents []string `json:"firstEvents"`
		Error       string   `json:"error"`
	}
	e.must(e.do(http.MethodPost, "/agents/chef/test", "", nil), http.StatusOK).decode(t, &probe)
	if !probe.OK || probe.Status != http.StatusOK || !strings.HasPrefix(probe.ContentType, "text/event-stream") ||
		len(probe.FirstEvents) == 0 || probe.FirstEvents[0] != "RUN_STARTED" {
		t.Errorf("connection test of an agentRef configuration: %+v", probe)
	}
	e.must(e.do(http.MethodPost, "/agents/chef-gen/test", "", nil), http.StatusOK).decode(t, &probe)
	if !probe.OK || probe.Status != http.StatusOK {
		t.Errorf("connection test of a mastra agentRef configuration: %+v", probe)
	}
	probe.OK, probe.Error = false, ""
	e.must(e.do(http.MethodPost, "/agents/ghost/test", "", nil), http.StatusOK).decode(t, &probe)
	if probe.OK || !strings.Contains(probe.Error, "not ready") {
		t.Errorf("connection test of an unknown Agent: %+v", probe)
	}
}
