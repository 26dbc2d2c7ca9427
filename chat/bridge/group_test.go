package bridge_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
)

// TestGroupMentions: in a group, the chef answers only when mentioned ("@chef" or the SDK's
// "<@uid:chef>") and a member; its reply goes to the group, live to every member's socket.
func TestGroupMentions(t *testing.T) {
	rt := startRuntime(t, samplesDir(), nil, nil, nil)
	e := startChat(t, bridge.Options{})
	e.putChef(rt, "chef")
	e.putChef(rt, "sous") // enabled, but not a member of the group
	e.token("bob")
	e.must(e.do(http.MethodPost, "/groups", "alice", map[string]any{"guid": "kitchen", "name": "Kitchen", "type": "public",
		"members": []map[string]string{{"uid": "bob"}}}), http.StatusCreated)
	added := e.must(e.do(http.MethodPost, "/groups/kitchen/members", "alice", map[string]any{"members": []map[string]string{{"uid": "chef"}}}), http.StatusOK)
	if !strings.Contains(string(added.Body), `"chef":{"success":true}`) {
		t.Fatalf("adding the chef to the group: %s", added.Body)
	}
	bobSock := e.connect("bob")

	for _, text := range []string{
		"Hello everyone, what can I use instead of butter?",         // no mention
		"@sous What can I use instead of butter?",                   // an enabled agent that is not a member
		"Write to cook@chef.com: what can I use instead of butter?", // an address, not a mention
		"@nobody What can I use instead of butter?",                 // no such agent
	} {
		r := e.must(e.send("alice", "group:kitchen", text), http.StatusCreated)
		if run := r.Header.Get("X-Agent-Run"); run != "" {
			t.Errorf("%q started run %s", text, run)
		}
	}

	r1 := e.must(e.send("alice", "group:kitchen", "@chef What can I use instead of butter?"), http.StatusCreated)
	run1 := r1.Header.Get("X-Agent-Run")
	if run1 == "" {
		t.Fatal(`"@chef …" started no run`)
	}
	reply := e.waitMessage("bob", "group:kitchen", 10*time.Second, func(m model.Message) bool {
		return m.Type == model.TypeAssistant && strings.HasPrefix(m.Text, "Try olive oil") && strings.Contains(string(m.Data), run1)
	})
	if reply.Sender != "chef" || reply.ReceiverType != model.ReceiverGroup || reply.ReceiverID != "kitchen" {
		t.Errorf("the reply went from %q to %s %q, want from chef to the group", reply.Sender, reply.ReceiverType, reply.ReceiverID)
	}
	bobSock.waitAgentEvent(t, 5*time.Second, "the reply's text on bob's socket", func(ev agentEvent) bool {
		return ev.Type == "TEXT_MESSAGE_CONTENT" && strings.Contains(ev.Delta, "olive")
	})

	r2 := e.must(e.send("bob", "group:kitchen", "<@uid:chef> What can I use instead of milk?"), http.StatusCreated)
	run2 := r2.Header.Get("X-Agent-Run")
	if run2 == "" {
		t.Fatal(`"<@uid:chef> …" started no run`)
	}
	e.waitMessage("alice", "group:kitchen", 10*time.Second, func(m model.Message) bool {
		return m.Type == model.TypeAssistant && strings.HasPrefix(m.Text, "Try oat milk") && strings.Contains(string(m.Data), run2)
	})

	// Only the two mentions ran: every agentic message belongs to one of their runs, and the
	// agent that is not a member said nothing.
	for _, m := range e.messages("alice", "group:kitchen") {
		if m.Category != model.CategoryAgentic {
			continue
		}
		if m.Sender != "chef" || !(strings.Contains(string(m.Data), run1) || strings.Contains(string(m.Data), run2)) {
			t.Errorf("an agent message of another run: %s %s %q %s", m.Sender, m.Type, m.Text, m.Data)
		}
		if m.Type == model.TypeAgentError {
			t.Errorf("a run failed: %q", m.Text)
		}
	}
}
