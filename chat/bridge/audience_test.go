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
)

// TestAgentAudience: an agent meant for one group's members is invisible to everyone else
// (the user list, GET /users/{id}, its profile) and refused, with a sentence, when they message
// or mention it (nothing stored, no run); members use it; the audience follows membership.
func TestAgentAudience(t *testing.T) {
	rt := startRuntime(t, samplesDir(), nil, nil, nil)
	e := startChat(t, bridge.Options{})
	e.putAgent(map[string]any{"agentId": "chef", "name": "Chef", "deploymentUrl": rt.URL + "/api/agents/chef/ag-ui", "audience": []string{"group:cooks", "dave"}})
	for _, uid := range []string{"alice", "bob", "dave"} {
		e.token(uid)
	}
	e.must(e.do(http.MethodPost, "/groups", "alice", map[string]any{"guid": "cooks", "name": "Cooks", "type": "private"}), http.StatusCreated)
	e.must(e.do(http.MethodPost, "/groups", "alice", map[string]any{"guid": "lobby", "name": "Lobby", "type": "public",
		"members": []map[string]string{{"uid": "bob"}, {"uid": "chef"}}}), http.StatusCreated)

	sees := func(uid string) bool {
		t.Helper()
		r := e.do(http.MethodGet, "/users?kind=agent", uid, nil)
		var page struct{ Items []model.User }
		_ = json.Unmarshal(r.Body, &page)
		listed := false
		for _, u := range page.Items {
			listed = listed || u.UID == "chef"
		}
		one := e.do(http.MethodGet, "/users/chef", uid, nil).Status == http.StatusOK
		profile := e.do(http.MethodGet, "/agents/chef/profile", uid, nil).Status == http.StatusOK
		if listed != one || one != profile {
			t.Fatalf("%s: listed %v, GET /users/chef %v, profile %v: the three must agree", uid, listed, one, profile)
		}
		return listed
	}
	if !sees("alice") || !sees("dave") || sees("bob") {
		t.Fatalf("alice (a member of cooks) and dave (named) see the chef, bob does not: %v %v %v", sees("alice"), sees("dave"), sees("bob"))
	}

	// Bob is refused with a sentence, and nothing is stored or run.
	r := e.send("bob", "chef", "What can I use instead of butter?")
	if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "not available to you") || r.Header.Get("X-Agent-Run") != "" {
		t.Fatalf("bob's message to the chef: %d %s", r.Status, r.Body)
	}
	r = e.send("bob", "group:lobby", "@chef What can I use instead of butter?")
	if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "@chef is not available to you") {
		t.Fatalf("bob mentioning the chef: %d %s", r.Status, r.Body)
	}
	for _, m := range e.messages("alice", "group:lobby") {
		if strings.Contains(m.Text, "instead of butter") {
			t.Fatalf("a refused mention was stored: %+v", m)
		}
	}

	// Dave (named) is answered.
	run := e.must(e.send("dave", "chef", "What can I use instead of butter?"), http.StatusCreated).Header.Get("X-Agent-Run")
	if run == "" {
		t.Fatal("dave's message started no run")
	}
	e.waitMessage("dave", "chef", 10*time.Second, func(m model.Message) bool {
		return m.Type == model.TypeAssistant && strings.HasPrefix(m.Text, "Try olive oil")
	})

	// Added to cooks, bob may; removed, he may not any more.
	e.must(e.do(http.MethodPost, "/groups/cooks/members", "alice", map[string]any{"members": []map[string]string{{"uid": "bob"}}}), http.StatusOK)
	if !sees("bob") {
		t.Fatal("bob joined cooks but does not see the chef")
	}
	e.must(e.send("bob", "group:lobby", "@chef What can I use instead of milk?"), http.StatusCreated)
	e.waitMessage("bob", "group:lobby", 10*time.Second, func(m model.Message) bool {
		return m.Type == model.TypeAssistant && strings.HasPrefix(m.Text, "Try oat milk")
	})
	e.must(e.do(http.MethodDelete, "/groups/cooks/members/bob", "alice", nil), http.StatusNoContent)
	if sees("bob") {
		t.Fatal("bob left cooks but still sees the chef")
	}
	if r := e.send("bob", "chef", "Hello?"); r.Status != http.StatusForbidden {
		t.Fatalf("after leaving cooks: %d %s", r.Status, r.Body)
	}
}

// manifestResolver is a StaticResolver that also answers Agents' spec.platform.audience, as
// agentref.KubeResolver does from its cache (tested against a real API server there).
type manifestResolver struct {
	agentref.StaticResolver
	audiences map[string][]string
}

func (m manifestResolver) Audience(_ context.Context, ref string) ([]string, error) {
	return m.audiences[ref], nil
}

// TestAgentRefAudience: an agent registered by reference carries its manifest's audience; with
// an audience of its own too, a user must be in both.
func TestAgentRefAudience(t *testing.T) {
	rt := startRuntime(t, samplesDir(), nil, nil, nil)
	res := manifestResolver{StaticResolver: agentref.StaticResolver{"default/chef": rt.URL + "/api/agents/chef"},
		audiences: map[string][]string{"default/chef": {"dave", "erin"}}}
	e := startChat(t, bridge.Options{Resolver: res})
	e.putAgent(map[string]any{"agentId": "chef", "name": "Chef", "agentRef": "default/chef"})
	e.putAgent(map[string]any{"agentId": "sous-chef", "name": "Sous-chef", "agentRef": "default/chef", "audience": []string{"alice", "erin"}})
	for _, uid := range []string{"alice", "dave", "erin"} {
		e.token(uid)
	}
	sees := func(uid, agent string) bool {
		return e.do(http.MethodGet, "/users/"+agent, uid, nil).Status == http.StatusOK
	}
	if sees("alice", "chef") || !sees("dave", "chef") || sees("alice", "sous-chef") || sees("dave", "sous-chef") || !sees("erin", "sous-chef") {
		t.Fatalf("alice sees chef %v (want false), dave chef %v (true), alice sous-chef %v (false), dave sous-chef %v (false), erin sous-chef %v (true)",
			sees("alice", "chef"), sees("dave", "chef"), sees("alice", "sous-chef"), sees("dave", "sous-chef"), sees("erin", "sous-chef"))
	}
	if r := e.send("alice", "chef", butter); r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "not available to you") {
		t.Fatalf("alice's message to the chef: %d %s", r.Status, r.Body)
	}
	e.must(e.send("dave", "chef", butter), http.StatusCreated)
	e.waitMessage("dave", "chef", 10*time.Second, answerStarting("Try olive oil"))
}
