package server

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
)

// TestCapabilities: GET …/ag-ui/capabilities answers what each agent supports, from its
// configuration (chef: its server tools and frontend action, no approvals; cautious: approvals
// and interrupts), the agent listing carries the same, and the route is guarded like the AG-UI
// endpoint (a protected agent's capabilities need its headers).
func TestCapabilities(t *testing.T) {
	e := startEnv(t, scriptedmodel.Sequence(), envOptions{manifests: cautiousAgent("15m", "") + "---" + guardAgents,
		server: func(o *Options) { o.Secrets = guardSecrets }})
	get := func(path string, header map[string]string) (int, map[string]any) {
		t.Helper()
		status, raw := e.rawWith(http.MethodGet, path, "", header)
		var out map[string]any
		if status == http.StatusOK {
			if err := json.Unmarshal(raw, &out); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
		return status, out
	}

	status, chef := get("/api/agents/chef/ag-ui/capabilities", nil)
	if status != http.StatusOK {
		t.Fatalf("chef's capabilities: %d", status)
	}
	want := map[string]any{
		"identity":       map[string]any{"name": "Chef", "type": "agentry"},
		"transport":      map[string]any{"streaming": true, "resumable": true},
		"humanInTheLoop": map[string]any{"supported": false, "approvals": false, "interrupts": false},
		"reasoning":      map[string]any{"supported": true, "streaming": true},
		"custom":         map[string]any{"frontendActions": []any{"show-recipe-card"}},
	}
	for k, v := range want {
		if !reflect.DeepEqual(chef[k], v) {
			t.Errorf("chef's %s = %v, want %v", k, chef[k], v)
		}
	}
	tools := chef["tools"].(map[string]any)
	var names []string
	for _, it := range tools["items"].([]any) {
		item := it.(map[string]any)
		names = append(names, item["name"].(string))
		if item["description"] == "" || item["parameters"].(map[string]any)["type"] != "object" {
			t.Errorf("tool item %v", item)
		}
	}
	if tools["supported"] != true || tools["clientProvided"] != true || !reflect.DeepEqual(names, []string{"suggest-substitute", "recipe-from-pantry"}) {
		t.Errorf("chef's tools = %v (names %v)", tools, names)
	}

	_, cautious := get("/api/agents/cautious/ag-ui/capabilities", nil)
	if hitl := cautious["humanInTheLoop"]; !reflect.DeepEqual(hitl, map[string]any{"supported": true, "approvals": true, "interrupts": true}) {
		t.Errorf("cautious's humanInTheLoop = %v", hitl)
	}
	if cautious["custom"] != nil {
		t.Errorf("cautious has no frontend actions, but custom = %v", cautious["custom"])
	}

	// The listing says the same as the endpoint.
	_, list := get("/api/agents", nil)
	_, one := get("/api/agents/chef", nil)
	if !reflect.DeepEqual(list["chef"].(map[string]any)["capabilities"], chef) || !reflect.DeepEqual(one["capabilities"], chef) {
		t.Errorf("the listing's capabilities differ from the endpoint's:\n%v\n%v\n%v", list["chef"].(map[string]any)["capabilities"], one["capabilities"], chef)
	}

	// Guarded like the AG-UI endpoint.
	if status, _ := get("/api/agents/per-user/ag-ui/capabilities", nil); status != http.StatusUnauthorized {
		t.Errorf("a protected agent's capabilities without its headers: %d, want 401", status)
	}
	if status, _ := get("/api/agents/per-user/ag-ui/capabilities", map[string]string{"Authorization": "Bearer s3cr3t"}); status != http.StatusOK {
		t.Errorf("a protected agent's capabilities with its headers: %d, want 200", status)
	}
	if status, _ := get("/api/agents/nobody/ag-ui/capabilities", nil); status != http.StatusNotFound {
		t.Errorf("an unknown agent's capabilities: %d, want 404", status)
	}
}
