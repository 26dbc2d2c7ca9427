package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/devkit/testutil/mcptest"
)

const (
	jwtAudience = "https://agents.example.com/api/agents/bearer"
	jwtSecret   = "runtime-jwt-client-0123456789abcdef"
)

// TestBearerJWT: an agent with spec.endpoint.auth.jwt accepts a token of its issuer for its
// audience and refuses the rest with 401 and a WWW-Authenticate challenge saying why (never the
// token); with a headers Secret too, either passes; GET /api/agents lists it only to a caller
// that passes.
func TestBearerJWT(t *testing.T) {
	none := []string{}
	idp := testutil.StartIDP(t, testutil.IDPConfig{Clients: []testutil.IDPClient{{ID: "chat", Secret: jwtSecret,
		GrantTypes: []string{"client_credentials"}, ResponseTypes: &none}}})
	manifests := fmt.Sprintf(`
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: bearer}
spec:
  model: {name: m}
  endpoint:
    auth:
      jwt: {issuer: %[1]q, audiences: [%[2]q], requiredClaims: {scope: agent}}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: either}
spec:
  model: {name: m}
  endpoint:
    auth:
      headersSecretRef: {name: platform-auth}
      jwt: {issuer: %[1]q, audiences: [%[2]q]}
`, idp.Issuer, jwtAudience)
	e := startEnv(t, scriptedmodel.Sequence(), envOptions{manifests: manifests, server: func(o *Options) { o.Secrets = guardSecrets }})
	tok := idp.ClientToken(t, "chat", jwtSecret, jwtAudience)
	other := idp.ClientToken(t, "chat", jwtSecret, "https://other.example.com/agent")

	check := func(what, path string, header map[string]string, status int, challenge string) {
		t.Helper()
		res, body := fetch(t, e.base+path, header)
		if res.StatusCode != status || res.Header.Get("WWW-Authenticate") != challenge {
			t.Errorf("%s: %d %q %s, want %d %q", what, res.StatusCode, res.Header.Get("WWW-Authenticate"), body, status, challenge)
		}
		if strings.Contains(string(body), "eyJ") || strings.Contains(res.Header.Get("WWW-Authenticate"), "eyJ") {
			t.Errorf("%s: the answer repeats the token", what)
		}
	}
	bearer := func(t string) map[string]string { return map[string]string{"Authorization": "Bearer " + t} }
	check("no token", "/api/agents/bearer", nil, http.StatusUnauthorized, `Bearer realm="agentry"`)
	check("a valid token", "/api/agents/bearer", bearer(tok), http.StatusOK, "")
	check("another audience", "/api/agents/bearer", bearer(other), http.StatusUnauthorized,
		`Bearer realm="agentry", error="invalid_token", error_description="the token is not for this audience"`)
	check("not a JWT", "/api/agents/bearer", bearer("s3cr3t"), http.StatusUnauthorized,
		`Bearer realm="agentry", error="invalid_token", error_description="the token is malformed"`)
	check("headers only where a token is wanted", "/api/agents/bearer", map[string]string{"X-Api-Key": "s3cr3t"}, http.StatusUnauthorized, `Bearer realm="agentry"`)

	check("either: the header", "/api/agents/either", bearer("s3cr3t"), http.StatusOK, "")
	check("either: the token", "/api/agents/either", bearer(tok), http.StatusOK, "")
	check("either: neither", "/api/agents/either", bearer(other), http.StatusUnauthorized,
		`Bearer realm="agentry", error="invalid_token", error_description="the token is not for this audience"`)

	listed := func(header map[string]string) []string {
		_, body := fetch(t, e.base+"/api/agents", header)
		var out map[string]any
		testutil.NoError(t, json.Unmarshal(body, &out))
		var ids []string
		for _, id := range []string{"bearer", "either"} {
			if _, ok := out[id]; ok {
				ids = append(ids, id)
			}
		}
		return ids
	}
	if got := fmt.Sprint(listed(nil)); got != "[]" {
		t.Errorf("listed without credentials: %s", got)
	}
	if got := fmt.Sprint(listed(bearer(tok))); got != "[bearer either]" {
		t.Errorf("listed with a token: %s", got)
	}

	// A run through the token: the generate endpoint answers.
	status, _ := e.doWith(http.MethodPost, "/api/agents/bearer/generate", userMessage("hi"), bearer(tok))
	if status != http.StatusOK {
		t.Errorf("generate with a token: %d", status)
	}
}

// fetch GETs url with header and reads the whole answer.
func fetch(t *testing.T, url string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	testutil.NoError(t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	testutil.NoError(t, err)
	defer func() { _ = res.Body.Close() }()
	body, err := io.ReadAll(res.Body)
	testutil.NoError(t, err)
	return res, body
}

// TestToolsLearnWhoIsAsking: with a verified caller, an HTTP tool with callerIdentity gets the
// token's subject in its header, and the token itself only when the tool's tokenAudience is one
// of the token's audiences; a caller with the static headers only sends no subject (and the
// Secret's header of that name is dropped). Memory is bound to the subject: naming another
// resource is refused, and the subject's threads are its own.
func TestToolsLearnWhoIsAsking(t *testing.T) {
	none := []string{}
	idp := testutil.StartIDP(t, testutil.IDPConfig{Clients: []testutil.IDPClient{{ID: "chat", Secret: jwtSecret,
		GrantTypes: []string{"client_credentials"}, ResponseTypes: &none}}})
	var mu sync.Mutex
	var seen []http.Header
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]string{"summary": "ok"})
	}))
	t.Cleanup(svc.Close)
	tool := func(name, identity string) string {
		return fmt.Sprintf(`apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: %[1]s}
spec:
  id: %[1]s
  description: Who is asking.
  inputSchema: {type: object}
  execute:
    http:
      url: %[2]q
      headersSecretRef: {name: tool-headers}
      callerIdentity: %[3]s
---
`, name, svc.URL, identity)
	}
	manifests := tool("mine", fmt.Sprintf(`{subjectHeader: X-Agentry-User, tokenAudience: %q}`, jwtAudience)) +
		tool("theirs", `{subjectHeader: X-Agentry-User, tokenAudience: "https://tools.example.com/other"}`) + fmt.Sprintf(`apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: asker}
spec:
  model: {name: m}
  memory: {url: "memory://"}
  tools:
  - {key: mine, toolRef: {name: mine}}
  - {key: theirs, toolRef: {name: theirs}}
  endpoint:
    auth:
      headersSecretRef: {name: platform-auth}
      jwt: {issuer: %q, audiences: [%q]}
`, idp.Issuer, jwtAudience)
	responder := scriptedmodel.ResponderFunc(func(r *scriptedmodel.Request) scriptedmodel.Reply {
		if r.Messages[len(r.Messages)-1].Role == "tool" {
			return scriptedmodel.Reply{Text: "asked"}
		}
		return scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{{Name: "mine", Arguments: `{}`}, {Name: "theirs", Arguments: `{}`}}}
	})
	// The tool's own Secret tries to name a user: a verified caller's subject replaces it, and
	// without one it is dropped.
	dir := t.TempDir()
	testutil.NoError(t, os.MkdirAll(filepath.Join(dir, "tool-headers"), 0o700))
	testutil.NoError(t, os.WriteFile(filepath.Join(dir, "tool-headers", "X-Agentry-User"), []byte("forged-by-a-secret"), 0o600))
	e := startEnv(t, responder, envOptions{manifests: manifests, secretsDir: dir, server: func(o *Options) { o.Secrets = guardSecrets }})
	tok := idp.ClientToken(t, "chat", jwtSecret, jwtAudience)
	bearer := map[string]string{"Authorization": "Bearer " + tok}
	generate := func(header map[string]string, body string) (int, []byte) {
		return e.doWith(http.MethodPost, "/api/agents/asker/generate", body, header)
	}
	take := func() []http.Header {
		mu.Lock()
		defer mu.Unlock()
		out := seen
		seen = nil
		return out
	}

	if status, body := generate(bearer, `{"messages":"who am I?","memory":{"thread":"t1"}}`); status != http.StatusOK {
		t.Fatalf("generate with a token: %d %s", status, body)
	}
	calls := take()
	if len(calls) != 2 {
		t.Fatalf("%d tool calls, want 2", len(calls))
	}
	forwarded := 0
	for _, h := range calls {
		if h.Get("X-Agentry-User") != "chat" {
			t.Errorf("a tool saw subject %q, want the token's subject chat", h.Get("X-Agentry-User"))
		}
		if h.Get("Authorization") == "Bearer "+tok {
			forwarded++
		}
	}
	if forwarded != 1 {
		t.Errorf("the token reached %d tools, want only the one that is its audience", forwarded)
	}

	// The static headers: no verified caller, so no subject, and the Secret's one is dropped.
	if status, body := generate(map[string]string{"Authorization": "Bearer s3cr3t"}, `{"messages":"who am I?"}`); status != http.StatusOK {
		t.Fatalf("generate with the headers: %d %s", status, body)
	}
	for _, h := range take() {
		if v := h.Get("X-Agentry-User"); v != "" || strings.Contains(h.Get("Authorization"), "eyJ") {
			t.Errorf("without a verified caller a tool saw subject %q / a token", v)
		}
	}

	// Memory belongs to the subject: naming someone else is refused; the subject reads its own.
	if status, _ := generate(bearer, `{"messages":"hi","memory":{"thread":"t2","resource":"alice"}}`); status != http.StatusForbidden {
		t.Errorf("naming another resource: %d, want 403", status)
	}
	res, body := fetch(t, e.base+"/api/memory/threads?agentId=asker&resourceId=alice", bearer)
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("listing alice's threads with chat's token: %d %s", res.StatusCode, body)
	}
	res, body = fetch(t, e.base+"/api/memory/threads?agentId=asker", bearer)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "t1") {
		t.Errorf("the subject's own threads: %d %s", res.StatusCode, body)
	}
}

// TestMCPServerLearnsWhoIsAsking: an MCPServer with callerIdentity gets the verified subject on
// the request of each tool call, though its session is shared by every caller.
func TestMCPServerLearnsWhoIsAsking(t *testing.T) {
	none := []string{}
	idp := testutil.StartIDP(t, testutil.IDPConfig{Clients: []testutil.IDPClient{{ID: "chat", Secret: jwtSecret,
		GrantTypes: []string{"client_credentials"}, ResponseTypes: &none}}})
	srv := mcptest.Start(t, mcptest.Options{})
	target, err := url.Parse(srv.URL)
	testutil.NoError(t, err)
	var mu sync.Mutex
	var subjects []string
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		if strings.Contains(string(body), `"tools/call"`) {
			mu.Lock()
			subjects = append(subjects, r.Header.Get("X-Agentry-User"))
			mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	manifests := fmt.Sprintf(`apiVersion: agentry.dev/v1alpha1
kind: MCPServer
metadata: {name: everything}
spec:
  url: %s
  timeout: 3s
  callerIdentity: {subjectHeader: X-Agentry-User}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: mcp-asker}
spec:
  model: {name: scripted}
  tools:
  - {key: echo, mcpServerRef: {name: everything}, toolName: echo}
  endpoint:
    auth:
      headersSecretRef: {name: platform-auth}
      jwt: {issuer: %q, audiences: [%q]}
`, front.URL+target.Path, idp.Issuer, jwtAudience)
	e := startEnv(t, scriptedmodel.ResponderFunc(func(r *scriptedmodel.Request) scriptedmodel.Reply {
		if r.Messages[len(r.Messages)-1].Role == "tool" {
			return scriptedmodel.Reply{Text: "done"}
		}
		return scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{{Name: "echo", Arguments: `{"text":"hi"}`}}}
	}), envOptions{manifests: manifests, server: func(o *Options) { o.Secrets = guardSecrets }})
	tok := idp.ClientToken(t, "chat", jwtSecret, jwtAudience)
	for _, header := range []map[string]string{{"Authorization": "Bearer " + tok}, {"Authorization": "Bearer s3cr3t"}} {
		if status, body := e.doWith(http.MethodPost, "/api/agents/mcp-asker/generate", `{"messages":"echo"}`, header); status != http.StatusOK {
			t.Fatalf("generate: %d %s", status, body)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(subjects) != "[chat ]" {
		t.Errorf("the MCP server saw subjects %q, want the token's (chat) and then none", subjects)
	}
}
