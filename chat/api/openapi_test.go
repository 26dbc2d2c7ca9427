package api

import (
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"sigs.k8s.io/yaml"
)

var openapiParam = regexp.MustCompile(`\{([^}]+)\}`)

// TestOpenAPIMatchesRoutes fails when a route is registered but not documented, or documented
// but not registered, so the document cannot drift from the server.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := yaml.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatalf("openapi.yaml does not parse: %v", err)
	}
	documented := map[string]bool{}
	for p, item := range doc.Paths {
		for method, op := range item {
			switch method {
			case "get", "put", "post", "delete", "patch", "head", "options":
			default:
				continue
			}
			key := strings.ToUpper(method) + " " + Prefix + openapiParam.ReplaceAllString(p, ":$1")
			documented[key] = true
			checkOperation(t, key, op)
		}
	}
	e := echo.New()
	New(Options{}).Register(e)
	registered := map[string]bool{}
	for _, r := range e.Routes() {
		// OPTIONS /* answers CORS pre-flights of every route; it is not an operation.
		if r.Method == echo.RouteNotFound || !strings.HasPrefix(r.Path, Prefix+"/") || (r.Method == http.MethodOptions && r.Path == Prefix+"/*") {
			continue
		}
		registered[r.Method+" "+r.Path] = true
	}
	if len(registered) < 40 {
		t.Fatalf("only %d routes registered; the walk is broken", len(registered))
	}
	for _, k := range sortedKeys(registered) {
		if !documented[k] {
			t.Errorf("route %s is registered but not in openapi.yaml", k)
		}
	}
	for _, k := range sortedKeys(documented) {
		if !registered[k] {
			t.Errorf("openapi.yaml documents %s but no such route is registered", k)
		}
	}
}

// checkOperation asks every operation for a summary and responses, every authenticated one
// for its 401, and every one a user's token may call for its 429.
func checkOperation(t *testing.T, key string, raw any) {
	op, _ := raw.(map[string]any)
	if op["summary"] == nil {
		t.Errorf("%s has no summary", key)
	}
	responses, _ := op["responses"].(map[string]any)
	if len(responses) == 0 {
		t.Errorf("%s documents no responses", key)
	}
	// Every operation reaches the store (auth included): 503 when it is down.
	if responses["503"] == nil {
		t.Errorf("%s documents no 503 (the store can be unavailable)", key)
	}
	if op["requestBody"] != nil {
		for _, code := range []string{"400", "408", "413"} {
			if responses[code] == nil {
				t.Errorf("%s takes a body but documents no %s (malformed, too slow, too large)", key, code)
			}
		}
	}
	if strings.Contains(key, ":") && responses["400"] == nil {
		t.Errorf("%s has path parameters but documents no 400 (a malformed id)", key)
	}
	if strings.HasSuffix(key, "/login") && responses["429"] == nil {
		t.Errorf("%s documents no 429 (failed sign-ins are throttled per address)", key)
	}
	if sec, ok := op["security"].([]any); ok && len(sec) == 0 {
		return // public
	}
	if responses["429"] == nil {
		t.Errorf("%s takes credentials but documents no 429 (failed credentials are throttled per address)", key)
	}
	if responses["401"] == nil {
		t.Errorf("%s needs credentials but documents no 401", key)
	}
	sec, ok := op["security"].([]any)
	bearer := !ok // the document's default is the bearer token
	for _, s := range sec {
		if m, _ := s.(map[string]any); m != nil && m["bearer"] != nil {
			bearer = true
		}
	}
	if bearer && responses["429"] == nil {
		t.Errorf("%s takes a user's token but documents no 429 (the user's rate limit)", key)
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestOpenAPIServed(t *testing.T) {
	e := newStubEnv(t, Options{})
	if r := e.do(http.MethodGet, "/openapi.yaml", "", nil); r.status != http.StatusUnauthorized {
		t.Fatalf("without credentials: got %d, want 401", r.status)
	}
	r := e.do(http.MethodGet, "/openapi.yaml", keyAuth, nil)
	if r.status != http.StatusOK || !strings.HasPrefix(string(r.body), "openapi: 3") {
		t.Fatalf("with the API key: got %d %.40q", r.status, r.body)
	}
}
