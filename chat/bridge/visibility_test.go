package bridge_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
)

// listedUsers is the uids GET /users shows uid (agents included).
func (e *chatEnv) listedUsers(uid string) map[string]bool {
	e.t.Helper()
	r := e.must(e.do(http.MethodGet, "/users?limit=100", uid, nil), http.StatusOK)
	var page struct {
		Items []model.User `json:"items"`
	}
	r.decode(e.t, &page)
	out := map[string]bool{}
	for _, u := range page.Items {
		out[u.UID] = true
	}
	return out
}

// storedWith is every message of uid's conversation with a user, read from the store (the
// API hides a disabled agent).
func (e *chatEnv) storedWith(uid, with string) []model.Message {
	e.t.Helper()
	ms, err := e.Store.ListMessages(context.Background(), uid, store.MessageQuery{UID: with, Limit: 100})
	if err != nil {
		e.t.Fatal(err)
	}
	return ms
}

// assertHidden checks that users neither see the agent nor reach it.
func assertHidden(t *testing.T, e *chatEnv, agent, why string) {
	t.Helper()
	if e.listedUsers("alice")[agent] {
		t.Errorf("%s: GET /users lists the agent", why)
	}
	if r := e.do(http.MethodGet, "/users/"+agent, "alice", nil); r.Status != http.StatusNotFound || r.code() != model.ErrUIDNotFound {
		t.Errorf("%s: GET /users/%s: %d %s, want 404 %s", why, agent, r.Status, r.Body, model.ErrUIDNotFound)
	}
	if r := e.do(http.MethodGet, "/agents/"+agent+"/profile", "alice", nil); r.Status != http.StatusNotFound {
		t.Errorf("%s: GET /agents/%s/profile: %d %s, want 404", why, agent, r.Status, r.Body)
	}
	text := "Hello? (" + why + ")"
	r := e.send("alice", agent, text)
	if r.Status != http.StatusForbidden || r.code() != model.ErrAgentDisabled {
		t.Errorf("%s: a message to the agent: %d %s, want 403 %s", why, r.Status, r.Body, model.ErrAgentDisabled)
	}
	if r.Header.Get("X-Agent-Run") != "" {
		t.Errorf("%s: the refused message started a run", why)
	}
	custom := e.do(http.MethodPost, "/messages", "alice", map[string]any{"receiver": agent, "receiverType": "user",
		"category": "custom", "type": "location", "data": map[string]float64{"lat": 1, "lng": 2}})
	if custom.Status != http.StatusForbidden || custom.code() != model.ErrAgentDisabled {
		t.Errorf("%s: a custom message to the agent: %d %s, want 403 %s", why, custom.Status, custom.Body, model.ErrAgentDisabled)
	}
	for _, m := range e.storedWith("alice", agent) {
		if m.Text == text || m.Type == "location" {
			t.Errorf("%s: the refused message was stored: %+v", why, m)
		}
	}
}

// assertAnswers checks that the agent is visible and answers.
func assertAnswers(t *testing.T, e *chatEnv, agent, text string) {
	t.Helper()
	if !e.listedUsers("alice")[agent] {
		t.Errorf("GET /users does not list the enabled agent %s", agent)
	}
	e.must(e.do(http.MethodGet, "/users/"+agent, "alice", nil), http.StatusOK)
	e.must(e.do(http.MethodGet, "/agents/"+agent+"/profile", "alice", nil), http.StatusOK)
	r := e.must(e.send("alice", agent, text), http.StatusCreated)
	run := r.Header.Get("X-Agent-Run")
	if run == "" {
		t.Fatal("a message to the enabled agent started no run")
	}
	e.waitMessage("alice", agent, 5*time.Second, func(m model.Message) bool {
		return m.Type == model.TypeAssistant && m.Text == "Here." && agentRunOf(m) == run
	})
}

func agentRunOf(m model.Message) string {
	var d model.AssistantData
	_ = json.Unmarshal(m.Data, &d)
	return d.RunID
}

// TestDisabledAgent: a disabled agent, or an agent user whose configuration was deleted, is
// not listed, has no profile and refuses messages with ERR_AGENT_DISABLED without storing
// them; enabled (or configured) again, it answers.
func TestDisabledAgent(t *testing.T) {
	f := startFakeAgent(t)
	f.set(modeGood, "Here.")
	e := startChat(t, bridge.Options{})
	e.putAgent(map[string]any{"agentId": "helper", "deploymentUrl": f.URL + "/agent"})
	assertAnswers(t, e, "helper", "First question")

	e.must(e.do(http.MethodPost, "/agents/helper/disable", "", nil), http.StatusOK)
	assertHidden(t, e, "helper", "disabled")
	e.must(e.do(http.MethodPost, "/agents/helper/enable", "", nil), http.StatusOK)
	assertAnswers(t, e, "helper", "Second question")

	e.must(e.do(http.MethodDelete, "/agents/helper", "", nil), http.StatusNoContent)
	assertHidden(t, e, "helper", "deleted")
	e.putAgent(map[string]any{"agentId": "helper", "deploymentUrl": f.URL + "/agent"})
	assertAnswers(t, e, "helper", "Third question")

	// A configuration saved but never enabled is invisible too.
	r := e.do(http.MethodPut, "/agents/draft", "", map[string]any{"name": "Draft", "provider": "ag-ui", "deploymentUrl": f.URL + "/agent"})
	if r.Status != http.StatusCreated {
		t.Fatalf("put draft: %d %s", r.Status, r.Body)
	}
	assertHidden(t, e, "draft", "never enabled")
}
