package bridge_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/agentref"
	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestA2AProvider: an agent registered with provider a2a and its agent card's URL answers in
// the conversation, its text streamed as an agent run like AG-UI's; the connection test sends
// it a message; an agent behind auth is refused without its headers (the person reads why)
// and answers with them; an agentRef cannot be a2a yet.
func TestA2AProvider(t *testing.T) {
	rt := startRuntime(t, samplesDir(), map[string]string{"private.yaml": `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: private}
spec:
  model: {name: m}
  endpoint:
    auth: {headersSecretRef: {name: private-auth}}
`}, map[string]map[string]string{"private-auth": {"Authorization": "Bearer a2a-s3cret"}}, nil)
	e := startChat(t, bridge.Options{})
	e.putAgent(map[string]any{"agentId": "weather", "name": "Weather", "provider": "a2a", "deploymentUrl": rt.URL + "/a2a/weather/.well-known/agent-card.json"})
	e.token("alice")
	e.must(e.send("alice", "weather", "What is the weather in Paris?"), http.StatusCreated)
	e.waitMessage("alice", "weather", 10*time.Second, func(m model.Message) bool {
		return m.Sender == "weather" && m.Type == model.TypeAssistant && strings.Contains(m.Text, "Paris")
	})

	var test bridge.ConnectionTest
	testutil.NoError(t, json.Unmarshal(e.must(e.do(http.MethodPost, "/agents/weather/test", "", nil), http.StatusOK).Body, &test))
	if !test.OK || strings.Join(test.FirstEvents, " ") != "task completed" {
		t.Errorf("connection test: %+v", test)
	}

	e.putAgent(map[string]any{"agentId": "private", "name": "Private", "provider": "a2a", "deploymentUrl": rt.URL + "/a2a/private"})
	r := e.must(e.send("alice", "private", "Hello?"), http.StatusCreated)
	e.waitAgentError("alice", "private", r.Header.Get("X-Agent-Run"), model.RunErrUnauthorized, 10*time.Second)
	e.putAgent(map[string]any{"agentId": "private", "name": "Private", "provider": "a2a", "deploymentUrl": rt.URL + "/a2a/private",
		"headers": map[string]string{"Authorization": "Bearer a2a-s3cret"}})
	e.must(e.send("alice", "private", "Hello again?"), http.StatusCreated)
	e.waitMessage("alice", "private", 10*time.Second, func(m model.Message) bool {
		return m.Sender == "private" && m.Type == model.TypeAssistant && m.Text != ""
	})

}

// TestA2AProviderWithAgentRef: an in-cluster Agent named by agentRef, called over A2A at the
// endpoint beside the one the resolver reports.
func TestA2AProviderWithAgentRef(t *testing.T) {
	rt := startRuntime(t, samplesDir(), nil, nil, nil)
	e := startChat(t, bridge.Options{Resolver: agentref.StaticResolver{"default/weather": rt.URL + "/api/agents/weather"}})
	e.putAgent(map[string]any{"agentId": "incluster", "name": "In cluster", "provider": "a2a", "agentRef": "default/weather"})
	e.token("alice")
	e.must(e.send("alice", "incluster", "What is the weather in Lima?"), http.StatusCreated)
	e.waitMessage("alice", "incluster", 10*time.Second, func(m model.Message) bool {
		return m.Sender == "incluster" && m.Type == model.TypeAssistant && strings.Contains(m.Text, "Lima")
	})
}
