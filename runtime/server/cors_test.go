package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

const corsAgents = `
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: open-to-app}
spec:
  model: {name: m}
  endpoint:
    corsOrigins: ["https://app.example.com"]
`

func preflight(t *testing.T, base, path, origin, headers string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodOptions, base+path, nil)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", headers)
	resp, err := http.DefaultClient.Do(req)
	testutil.NoError(t, err)
	resp.Body.Close()
	return resp
}

// A browser AG-UI client with a Bearer token passes the pre-flight of an allowed origin:
// "Access-Control-Allow-Headers: *" does not cover Authorization, the echoed list does.
func TestCORSPreflightAllowsAuthorization(t *testing.T) {
	e := startEnv(t, scriptedmodel.Sequence(), envOptions{manifests: corsAgents, server: func(o *Options) {
		o.CORSOrigins = []string{"https://chat.example.com"}
	}})
	resp := preflight(t, e.base, "/api/agents/chef/ag-ui", "https://chat.example.com", "authorization,content-type")
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("pre-flight status %d", resp.StatusCode)
	}
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "https://chat.example.com" {
		t.Fatalf("Allow-Origin %q", got)
	}
	allowed := strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers"))
	if !strings.Contains(allowed, "authorization") || strings.Contains(allowed, "*") {
		t.Fatalf("Allow-Headers %q must name authorization explicitly", allowed)
	}
	if !strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "POST") {
		t.Fatalf("Allow-Methods %q", resp.Header.Get("Access-Control-Allow-Methods"))
	}
	// GET routes answer pre-flights too.
	if resp := preflight(t, e.base, "/api/agents/chef", "https://chat.example.com", "authorization"); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("pre-flight of a GET route: %d", resp.StatusCode)
	}
}

func TestCORSRefusesOtherOrigins(t *testing.T) {
	e := startEnv(t, scriptedmodel.Sequence(), envOptions{manifests: corsAgents})
	// No --cors-origins: no other origin is allowed.
	resp := preflight(t, e.base, "/api/agents/chef/ag-ui", "https://evil.example", "content-type")
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("pre-flight from an unknown origin: %d, Allow-Origin %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	// The agent's own list applies to it, not to the others.
	if resp := preflight(t, e.base, "/api/agents/open-to-app/generate", "https://app.example.com", "content-type"); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("agent corsOrigins: %d", resp.StatusCode)
	}
	if resp := preflight(t, e.base, "/api/agents/chef/generate", "https://app.example.com", "content-type"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("another agent's origin: %d", resp.StatusCode)
	}

	// A "simple" cross-origin POST is sent without pre-flight: it must not reach the model.
	req, _ := http.NewRequest(http.MethodPost, e.base+"/api/agents/chef/generate", strings.NewReader(userMessage("spend my key")))
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set("Origin", "https://evil.example")
	r, err := http.DefaultClient.Do(req)
	testutil.NoError(t, err)
	r.Body.Close()
	if r.StatusCode != http.StatusForbidden || len(e.model.Requests()) != 0 {
		t.Fatalf("cross-origin simple POST: %d, model requests %d", r.StatusCode, len(e.model.Requests()))
	}

	// The page's own origin (served by this host) is always allowed.
	req, _ = http.NewRequest(http.MethodPost, e.base+"/api/agents/chef/generate", strings.NewReader(userMessage("hi")))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", e.base)
	r, err = http.DefaultClient.Do(req)
	testutil.NoError(t, err)
	r.Body.Close()
	if r.StatusCode != http.StatusOK || r.Header.Get("Access-Control-Allow-Origin") != e.base {
		t.Fatalf("same-origin POST: %d, Allow-Origin %q", r.StatusCode, r.Header.Get("Access-Control-Allow-Origin"))
	}
}
