package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/platform/egress"
)

const agentSecret = "Bearer agent-s3cret-9f2c"

// keyedStores are the suite's stores opened with a headers key.
func keyedStores() map[string]func(t *testing.T) store.Store {
	return storesWith(store.Options{HeadersKey: bytes.Repeat([]byte{3}, 32)})
}

// recorder keeps every answer, so the test can check the headers' value never left the server.
type recorder struct {
	*env
	seen []resp
}

func (r *recorder) do(method, path, auth string, body any) resp {
	r.t.Helper()
	res := r.env.do(method, path, auth, body)
	r.seen = append(r.seen, res)
	return res
}

func (r *recorder) checkNoSecret() {
	r.t.Helper()
	for _, res := range r.seen {
		if bytes.Contains(res.body, []byte("s3cret")) {
			r.t.Fatalf("an answer holds the header value: %s", res.body)
		}
		for k, v := range res.header {
			if strings.Contains(k+strings.Join(v, ","), "s3cret") {
				r.t.Fatalf("an answer header holds the header value: %s", k)
			}
		}
	}
	if strings.Contains(r.logs.String(), "s3cret") {
		r.t.Fatalf("the log holds the header value:\n%s", r.logs.String())
	}
}

func chefBody(url string) map[string]any {
	return map[string]any{
		"provider": "ag-ui", "name": "Chef", "icon": "https://example.com/chef.png", "greeting": "Hello, hungry?",
		"introductoryMessage": "I suggest recipes.", "suggestedMessages": []string{"Something with rice", "A dessert"},
		"deploymentUrl": url, "headers": map[string]string{"Authorization": agentSecret},
	}
}

func TestAgentsAPI(t *testing.T) {
	for name, open := range keyedStores() {
		t.Run(name, func(t *testing.T) {
			e := &recorder{env: newEnv(t, open(t), Options{})}
			alice := e.user("alice")
			e.checkAdminOnly(alice)
			e.checkAgentValidation()
			e.checkPutKeepsHeaders()
			e.checkProfileWhenEnabled(alice)
			e.checkFrontendActions()

			// A person's uid cannot become an agent.
			e.expect(e.do("PUT", "/agents/alice", keyAuth, chefBody("https://chef.example.com/agent")), http.StatusConflict, model.ErrUIDExists)

			e.expect(e.do("DELETE", "/agents/chef", keyAuth, nil), http.StatusNoContent, "")
			e.expect(e.do("GET", "/agents/chef", keyAuth, nil), http.StatusNotFound, model.ErrUIDNotFound)
			e.checkNoSecret()
		})
	}
}

// checkAdminOnly: admin routes refuse users without role admin and anonymous callers.
func (e *recorder) checkAdminOnly(alice string) {
	e.t.Helper()
	for _, r := range []struct{ method, path string }{
		{"GET", "/agents"}, {"PUT", "/agents/chef"}, {"GET", "/agents/chef"}, {"DELETE", "/agents/chef"},
		{"POST", "/agents/chef/enable"}, {"POST", "/agents/chef/disable"}, {"POST", "/agents/chef/test"},
		{"GET", "/agents/chef/actions"}, {"PUT", "/agents/chef/actions/x"}, {"GET", "/agents/chef/actions/x"}, {"DELETE", "/agents/chef/actions/x"},
	} {
		e.expect(e.do(r.method, r.path, alice, chefBody("https://chef.example.com/agent")), http.StatusForbidden, model.ErrPermissionDenied)
		e.expect(e.do(r.method, r.path, "", nil), http.StatusUnauthorized, model.ErrAPIKeyInvalid)
	}
	e.expect(e.do("GET", "/agents/chef/profile", "", nil), http.StatusUnauthorized, model.ErrUnauthenticated)
}

// checkAgentValidation: https only outside development mode; field validation.
func (e *recorder) checkAgentValidation() {
	e.t.Helper()
	e.expect(e.do("PUT", "/agents/chef", keyAuth, chefBody("http://chef.example.com/agent")), http.StatusBadRequest, model.ErrValidation)
	bad := chefBody("https://chef.example.com/agent")
	bad["provider"] = "openai"
	e.expect(e.do("PUT", "/agents/chef", keyAuth, bad), http.StatusBadRequest, model.ErrValidation)
	bad = chefBody("https://chef.example.com/agent")
	bad["headers"] = map[string]any{"X-Number": 1}
	e.expect(e.do("PUT", "/agents/chef", keyAuth, bad), http.StatusBadRequest, model.ErrValidation)
	e.expect(e.do("PUT", "/agents/bad%20id", keyAuth, chefBody("https://chef.example.com/agent")), http.StatusBadRequest, model.ErrValidation)
}

// checkPutKeepsHeaders creates chef, disabled, with headers, and replaces it without them.
func (e *recorder) checkPutKeepsHeaders() {
	t := e.t
	t.Helper()
	r := e.do("PUT", "/agents/chef", keyAuth, chefBody("https://chef.example.com/agent"))
	e.expect(r, http.StatusCreated, "")
	var cfg model.AgentConfig
	r.decode(t, &cfg)
	if !cfg.HasHeaders || cfg.Enabled || cfg.AgentID != "chef" {
		t.Fatalf("created: %s", r.body)
	}
	// Replace without headers keeps them; enabled stays.
	body := chefBody("https://chef.example.com/v2")
	delete(body, "headers")
	r = e.do("PUT", "/agents/chef", keyAuth, body)
	e.expect(r, http.StatusOK, "")
	r.decode(t, &cfg)
	if !cfg.HasHeaders || cfg.DeploymentURL != "https://chef.example.com/v2" {
		t.Fatalf("replaced: %s", r.body)
	}
	r = e.do("GET", "/agents", keyAuth, nil)
	e.expect(r, http.StatusOK, "")
	if !strings.Contains(string(r.body), `"hasHeaders":true`) {
		t.Fatalf("list: %s", r.body)
	}
	e.expect(e.do("GET", "/agents/chef", keyAuth, nil), http.StatusOK, "")
	e.expect(e.do("GET", "/agents/nobody", keyAuth, nil), http.StatusNotFound, model.ErrUIDNotFound)
}

// checkProfileWhenEnabled: a disabled agent has no profile and is not listed for users.
func (e *recorder) checkProfileWhenEnabled(alice string) {
	t := e.t
	t.Helper()
	e.expect(e.do("GET", "/agents/chef/profile", alice, nil), http.StatusNotFound, model.ErrUIDNotFound)
	listAgents := func() int {
		r := e.do("GET", "/users?kind=agent", alice, nil)
		e.expect(r, http.StatusOK, "")
		var p store.Page[model.User]
		r.decode(t, &p)
		return len(p.Items)
	}
	if n := listAgents(); n != 0 {
		t.Fatalf("disabled agent listed to a user: %d", n)
	}
	e.expect(e.do("POST", "/agents/chef/enable", keyAuth, nil), http.StatusOK, "")
	if n := listAgents(); n != 1 {
		t.Fatalf("enabled agent not listed: %d", n)
	}
	r := e.do("GET", "/agents/chef/profile", alice, nil)
	e.expect(r, http.StatusOK, "")
	var prof agentProfile
	r.decode(t, &prof)
	if prof.Name != "Chef" || prof.Greeting != "Hello, hungry?" || prof.IntroductoryMessage != "I suggest recipes." || len(prof.SuggestedMessages) != 2 || prof.Icon == "" {
		t.Fatalf("profile: %s", r.body)
	}
	e.expect(e.do("POST", "/agents/chef/disable", keyAuth, nil), http.StatusOK, "")
	e.expect(e.do("GET", "/agents/chef/profile", alice, nil), http.StatusNotFound, model.ErrUIDNotFound)
}

// checkFrontendActions puts, validates, lists, gets and deletes chef's frontend actions.
func (e *recorder) checkFrontendActions() {
	t := e.t
	t.Helper()
	action := map[string]any{
		"displayName": "Show recipe card", "executionText": "Showing the recipe…", "description": "Shows a recipe card",
		"parameters": map[string]any{"type": "object", "required": []string{"title"}, "properties": map[string]any{"title": map[string]any{"type": "string", "description": "Recipe title"}}},
	}
	e.expect(e.do("PUT", "/agents/chef/actions/show-recipe-card", keyAuth, action), http.StatusCreated, "")
	e.expect(e.do("PUT", "/agents/chef/actions/show-recipe-card", keyAuth, action), http.StatusOK, "")
	e.expect(e.do("PUT", "/agents/nobody/actions/show-recipe-card", keyAuth, action), http.StatusNotFound, model.ErrUIDNotFound)
	action["parameters"] = map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}
	r := e.do("PUT", "/agents/chef/actions/weather", keyAuth, action)
	e.expect(r, http.StatusBadRequest, model.ErrValidation)
	if !strings.Contains(string(r.body), "parameters.properties.city.description is required") {
		t.Fatalf("error does not name the field: %s", r.body)
	}
	e.expect(e.do("PUT", "/agents/chef/actions/bad!name", keyAuth, action), http.StatusBadRequest, model.ErrValidation)
	r = e.do("GET", "/agents/chef/actions", keyAuth, nil)
	e.expect(r, http.StatusOK, "")
	if !strings.Contains(string(r.body), `"show-recipe-card"`) {
		t.Fatalf("actions: %s", r.body)
	}
	e.expect(e.do("GET", "/agents/chef/actions/show-recipe-card", keyAuth, nil), http.StatusOK, "")
	e.expect(e.do("DELETE", "/agents/chef/actions/show-recipe-card", keyAuth, nil), http.StatusNoContent, "")
	e.expect(e.do("GET", "/agents/chef/actions/show-recipe-card", keyAuth, nil), http.StatusNotFound, model.ErrActionNotFound)
}

// sseAgent is a local AG-UI agent: it checks the configured header and the body, and streams.
func sseAgent(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/wrong-type":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>hello</html>")
			return
		case "/slow":
			w.Header().Set("Content-Type", "text/event-stream")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		if r.Header.Get("Authorization") != agentSecret {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		var in map[string]any
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		if r.URL.Path == "/generate" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"text":"hi"}`)
			return
		}
		if msgs, _ := in["messages"].([]any); len(msgs) != 1 || in["threadId"] == nil || in["runId"] == nil {
			http.Error(w, `{"error":"Invalid request"}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, typ := range []string{"RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"} {
			fmt.Fprintf(w, "data: {\"type\":%q}\n\n", typ)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestAgentConnectionTest(t *testing.T) {
	st := keyedStores()["sqlite"](t)
	e := &recorder{env: newEnv(t, st, Options{Development: true, AgentTestTimeout: 2 * time.Second})}
	agent := sseAgent(t)
	probe := func(provider, path string, headers map[string]string) bridge.ConnectionTest {
		t.Helper()
		body := chefBody(agent.URL + path)
		body["provider"] = provider
		body["headers"] = headers
		if r := e.do("PUT", "/agents/chef", keyAuth, body); r.status != http.StatusOK && r.status != http.StatusCreated {
			t.Fatalf("save: %d %s", r.status, r.body)
		}
		r := e.do("POST", "/agents/chef/test", keyAuth, nil)
		e.expect(r, http.StatusOK, "")
		var out bridge.ConnectionTest
		r.decode(t, &out)
		return out
	}
	good := map[string]string{"Authorization": agentSecret}
	out := probe("ag-ui", "/agent", good)
	if !out.OK || out.Status != 200 || out.ContentType != "text/event-stream" || strings.Join(out.FirstEvents, ",") != "RUN_STARTED,TEXT_MESSAGE_START,TEXT_MESSAGE_CONTENT,TEXT_MESSAGE_CONTENT,TEXT_MESSAGE_CONTENT" || out.Error != "" {
		t.Fatalf("good agent: %+v", out)
	}
	out = probe("ag-ui", "/agent", map[string]string{"Authorization": "Bearer wrong-s3cret"})
	if out.OK || out.Status != 401 || !strings.Contains(out.Error, "401") {
		t.Fatalf("wrong headers: %+v", out)
	}
	out = probe("ag-ui", "/wrong-type", good)
	if out.OK || out.Status != 200 || !strings.Contains(out.Error, "text/html") {
		t.Fatalf("wrong content type: %+v", out)
	}
	out = probe("ag-ui", "/slow", good)
	if out.OK || !strings.Contains(out.Error, "timed out") {
		t.Fatalf("slow agent: %+v", out)
	}
	out = probe("mastra", "/generate", good)
	if !out.OK || out.Status != 200 || !strings.HasPrefix(out.ContentType, "application/json") {
		t.Fatalf("mastra: %+v", out)
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	body := chefBody(closed.URL)
	e.expect(e.do("PUT", "/agents/chef", keyAuth, body), http.StatusOK, "")
	r := e.do("POST", "/agents/chef/test", keyAuth, nil)
	r.decode(t, &out)
	if out.OK || out.Status != 0 || !strings.Contains(out.Error, "request failed: it could not be reached") {
		t.Fatalf("unreachable: %+v", out)
	}
	// A category, never the address or port (a port scan would read them off).
	if port := closed.URL[strings.LastIndex(closed.URL, ":")+1:]; strings.Contains(out.Error, port) || strings.Contains(out.Error, "127.0.0.1") {
		t.Errorf("the test's error names the address: %q", out.Error)
	}
	e.expect(e.do("POST", "/agents/nobody/test", keyAuth, nil), http.StatusNotFound, model.ErrUIDNotFound)
	e.checkNoSecret()
}

// TestConnectionTestRefusesInternalAddresses: with no allowed networks (the default), the test
// never connects to loopback (a live service whose answer would come back), link-local or
// metadata addresses; it says the address is not allowed, without naming it.
func TestConnectionTestRefusesInternalAddresses(t *testing.T) {
	st := keyedStores()["sqlite"](t)
	e := &recorder{env: newEnv(t, st, Options{Development: true, AgentTestTimeout: 2 * time.Second, AgentEgress: egress.Policy{Allow: []netip.Prefix{}}})}
	var hits atomic.Int64
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"type\":\"RUN_STARTED\"}\n\n")
	}))
	t.Cleanup(internal.Close)
	port := internal.URL[strings.LastIndex(internal.URL, ":")+1:]
	for _, url := range []string{internal.URL, "http://localhost:" + port, "http://[::ffff:127.0.0.1]:" + port, "http://169.254.169.254/latest/meta-data/",
		"http://metadata.google.internal/computeMetadata/v1/", "http://100.100.100.200/", "http://[fd00:ec2::254]/"} {
		if r := e.do("PUT", "/agents/chef", keyAuth, chefBody(url)); r.status != http.StatusOK && r.status != http.StatusCreated {
			t.Fatalf("save %s: %d %s", url, r.status, r.body)
		}
		r := e.do("POST", "/agents/chef/test", keyAuth, nil)
		e.expect(r, http.StatusOK, "")
		var out bridge.ConnectionTest
		r.decode(t, &out)
		if out.OK || !strings.Contains(out.Error, "address is not allowed") {
			t.Errorf("%s: %+v, want a refusal", url, out)
		}
		for _, leak := range []string{port, "127.0.0.1", "169.254", "100.100", "fd00"} {
			if strings.Contains(out.Error, leak) {
				t.Errorf("%s: the error %q names %s", url, out.Error, leak)
			}
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the internal service was called %d times", n)
	}
}
