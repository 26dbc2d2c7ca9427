package bridge_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestAgentBringsItsCapabilities: an agent added by its URL brings what it says it supports
// (the runtime's listing, AG-UI's AgentCapabilities) into its configuration, which an admin's
// save keeps and the import refreshes; an agent that says nothing has none.
func TestAgentBringsItsCapabilities(t *testing.T) {
	rt := startRuntime(t, samplesDir(), nil, nil, nil)
	e := startChat(t, bridge.Options{})
	get := func(id string) model.AgentConfig {
		var c model.AgentConfig
		testutil.NoError(t, json.Unmarshal(e.must(e.do(http.MethodGet, "/agents/"+id, "", nil), http.StatusOK).Body, &c))
		return c
	}
	const want = `{"transport":{"streaming":true,"resumable":true},"tools":{"supported":true,"clientProvided":true,` +
		`"items":[{"name":"suggest-substitute"},{"name":"recipe-from-pantry"}]},` +
		`"humanInTheLoop":{"supported":false,"approvals":false,"interrupts":false},"reasoning":{"supported":true,"streaming":true}}`

	e.putAgent(map[string]any{"agentId": "chef", "name": "Chef", "deploymentUrl": rt.URL + "/api/agents/chef/ag-ui"})
	if got := string(model.MustJSON(get("chef").Capabilities)); got != want {
		t.Fatalf("chef's capabilities:\n%s\nwant\n%s", got, want)
	}
	// An admin's save says nothing of them: kept. The import reads them again.
	e.putAgent(map[string]any{"agentId": "chef", "name": "Chef", "deploymentUrl": rt.URL + "/api/agents/chef/ag-ui", "greeting": "Hello"})
	if got := string(model.MustJSON(get("chef").Capabilities)); got != want {
		t.Errorf("after a save: %s", got)
	}
	var imported struct{ Agent model.AgentConfig }
	testutil.NoError(t, json.Unmarshal(e.must(e.do(http.MethodPost, "/agents/chef/import", "", nil), http.StatusOK).Body, &imported))
	if got := string(model.MustJSON(imported.Agent.Capabilities)); got != want {
		t.Errorf("after an import: %s", got)
	}

	e.putAgent(map[string]any{"agentId": "other", "name": "Other", "deploymentUrl": rt.URL + "/elsewhere/stream"})
	if c := get("other"); c.Capabilities != nil {
		t.Errorf("an agent that says nothing has capabilities %s", model.MustJSON(c.Capabilities))
	}
}
