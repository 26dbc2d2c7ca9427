package bridge_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestAgentBringsItsManifest: an agent added by its URL brings its manifest's display fields
// (spec.platform) and frontend actions; what the admin typed wins; POST …/import fills what was
// emptied and adds what was removed, once; an agent that says nothing is saved as typed and its
// import says why.
func TestAgentBringsItsManifest(t *testing.T) {
	rt := startRuntime(t, samplesDir(), nil, nil, nil)
	e := startChat(t, bridge.Options{})
	chefURL := rt.URL + "/api/agents/chef/ag-ui"
	get := func(id string) model.AgentConfig {
		var c model.AgentConfig
		testutil.NoError(t, json.Unmarshal(e.must(e.do(http.MethodGet, "/agents/"+id, "", nil), http.StatusOK).Body, &c))
		return c
	}
	actions := func(id string) []string {
		var list struct{ Items []model.FrontendAction }
		testutil.NoError(t, json.Unmarshal(e.must(e.do(http.MethodGet, "/agents/"+id+"/actions", "", nil), http.StatusOK).Body, &list))
		var names []string
		for _, f := range list.Items {
			names = append(names, f.Name)
		}
		return names
	}

	e.putAgent(map[string]any{"agentId": "chef", "name": "Chef", "deploymentUrl": chefURL})
	c := get("chef")
	if c.Greeting != "Hi! What are we cooking today?" || len(c.SuggestedMessages) != 2 || !strings.HasPrefix(c.IntroductoryMessage, "I suggest substitutes") {
		t.Errorf("chef's display fields: %+v", c)
	}
	if got := strings.Join(actions("chef"), ","); got != "show-recipe-card" {
		t.Errorf("chef's actions: %s", got)
	}

	e.putAgent(map[string]any{"agentId": "my-chef", "name": "My chef", "deploymentUrl": chefURL, "greeting": "Bonjour!"})
	if c := get("my-chef"); c.Greeting != "Bonjour!" || len(c.SuggestedMessages) != 2 {
		t.Errorf("the admin's greeting must win: %+v", c)
	}

	// Emptied and removed: the import brings them back, once.
	e.putAgent(map[string]any{"agentId": "chef", "name": "Chef", "deploymentUrl": chefURL, "greeting": ""})
	e.must(e.do(http.MethodDelete, "/agents/chef/actions/show-recipe-card", "", nil), http.StatusNoContent)
	var imported struct {
		Agent        model.AgentConfig
		AddedActions []string
	}
	testutil.NoError(t, json.Unmarshal(e.must(e.do(http.MethodPost, "/agents/chef/import", "", nil), http.StatusOK).Body, &imported))
	if imported.Agent.Greeting != "Hi! What are we cooking today?" || strings.Join(imported.AddedActions, ",") != "show-recipe-card" {
		t.Errorf("import: %+v", imported)
	}
	testutil.NoError(t, json.Unmarshal(e.must(e.do(http.MethodPost, "/agents/chef/import", "", nil), http.StatusOK).Body, &imported))
	if len(imported.AddedActions) != 0 {
		t.Errorf("a second import added %v", imported.AddedActions)
	}

	// An agent of another kind says nothing: saved as typed; its import says why.
	e.putAgent(map[string]any{"agentId": "other", "name": "Other", "deploymentUrl": rt.URL + "/elsewhere/stream"})
	if c := get("other"); c.Greeting != "" || len(actions("other")) != 0 {
		t.Errorf("an agent that says nothing: %+v %v", c, actions("other"))
	}
	r := e.do(http.MethodPost, "/agents/other/import", "", nil)
	if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "is not an agent route") {
		t.Errorf("importing from an agent that says nothing: %d %s", r.Status, r.Body)
	}
}
