package bridge_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/devkit/testutil/mcptest"
)

const (
	signedIssuer   = "https://chat.example.com/chat/v1"
	signedAudience = "https://agents.example.com/api/agents/signed"
)

// TestChatSignedTokens: an agent configured with auth chat-jwt gets, for each run, a token the
// chat signed for the person who asked; a runtime that takes only those tokens (issuer the
// chat, keys from the chat's JWKS route) answers, and its HTTP tool and its MCP server's tool
// are both told the person's uid. The agent's memory is the person's: with alice's token (which
// the HTTP tool, being its audience, receives) bob's threads cannot be listed, and alice's
// list holds her conversation only. With another audience the runtime refuses the token and the
// person reads why. The key set and discovery document are public.
func TestChatSignedTokens(t *testing.T) {
	e := startChatIssuing(t, bridge.Options{}, filepath.Join(t.TempDir(), "chat.db"), nil, signedIssuer)
	// An HTTP tool and an MCP server that record who they were told is asking; the HTTP tool is
	// the token's audience, so it also gets the token.
	var mu sync.Mutex
	var subjects, mcpSubjects []string
	tokens := map[string]string{}
	tool := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		who := r.Header.Get("X-Agentry-User")
		subjects = append(subjects, who)
		tokens[who] = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]string{"answer": "noted"})
	}))
	t.Cleanup(tool.Close)
	mcpSrv := mcptest.Start(t, mcptest.Options{})
	target, err := url.Parse(mcpSrv.URL)
	testutil.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	mcpFront := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			mu.Lock()
			mcpSubjects = append(mcpSubjects, r.Header.Get("X-Agentry-User"))
			mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(mcpFront.Close)
	agent := fmt.Sprintf(`apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: whoami}
spec:
  id: whoami
  description: Who is asking.
  inputSchema: {type: object}
  execute:
    http:
      url: %[1]q
      callerIdentity: {subjectHeader: X-Agentry-User, tokenAudience: %[4]q}
---
apiVersion: agentry.dev/v1alpha1
kind: MCPServer
metadata: {name: everything}
spec:
  url: %[5]s
  timeout: 3s
  callerIdentity: {subjectHeader: X-Agentry-User}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: signed}
spec:
  instructions: You help.
  model: {name: gpt-4o-mini}
  memory: {url: "memory://"}
  tools:
  - {key: whoami, toolRef: {name: whoami}}
  - {key: echo, mcpServerRef: {name: everything}, toolName: echo}
  endpoint:
    auth:
      jwt: {issuer: %[2]q, jwksURL: %[3]q, audiences: [%[4]q]}
`, tool.URL, signedIssuer, e.URL+"/chat/v1/.well-known/jwks.json", signedAudience, mcpFront.URL+target.Path)
	script, err := scriptedmodel.ParseScript([]byte(`rules:
  - name: after-tool
    when: {lastRole: tool}
    reply: {text: 'The tool answered {{ .LastToolResult }}'}
  - name: ask
    when: {pattern: 'butter'}
    reply:
      toolCalls: [{name: whoami, arguments: '{}'}, {name: echo, arguments: '{"text":"hi"}'}]
fallback:
  text: Hello.
`))
	testutil.NoError(t, err)
	rt := startRuntime(t, "", map[string]string{"signed.yaml": agent}, nil, script)
	for _, path := range []string{"/chat/v1/.well-known/jwks.json", "/chat/v1/.well-known/openid-configuration"} {
		res, err := http.Get(e.URL + path)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s without credentials: %v %v", path, res, err)
		}
		_ = res.Body.Close()
	}

	e.putAgent(map[string]any{"agentId": "signed", "name": "Signed", "deploymentUrl": rt.URL + "/api/agents/signed/ag-ui",
		"auth": "chat-jwt", "tokenAudience": signedAudience})
	e.token("alice")
	run := e.must(e.send("alice", "signed", "What can I use instead of butter?"), http.StatusCreated).Header.Get("X-Agent-Run")
	e.waitMessage("alice", "signed", 10*time.Second, func(m model.Message) bool {
		return m.Type == model.TypeAssistant && strings.HasPrefix(m.Text, "The tool answered")
	})
	if run == "" {
		t.Fatal("no run")
	}
	e.token("bob")
	e.must(e.send("bob", "signed", "And instead of butter for me?"), http.StatusCreated)
	e.waitMessage("bob", "signed", 10*time.Second, func(m model.Message) bool {
		return m.Type == model.TypeAssistant && strings.HasPrefix(m.Text, "The tool answered")
	})
	// The tools learned who asked: alice, then bob, as the chat signed and the runtime verified.
	mu.Lock()
	got, gotMCP, alice := fmt.Sprint(subjects), fmt.Sprint(mcpSubjects), tokens["alice"]
	mu.Unlock()
	if got != "[alice bob]" || gotMCP != "[alice bob]" {
		t.Errorf("the HTTP tool was told %s and the MCP tool %s, want [alice bob] both", got, gotMCP)
	}
	// Memory is the person's: alice's token cannot list bob's threads, and lists hers only.
	threads := func(query string) (int, string) {
		req, err := http.NewRequest(http.MethodGet, rt.URL+"/api/memory/threads?agentId=signed"+query, nil)
		testutil.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+alice)
		res, err := http.DefaultClient.Do(req)
		testutil.NoError(t, err)
		defer func() { _ = res.Body.Close() }()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if alice == "" {
		t.Fatal("the tool that is the token's audience did not get alice's token")
	}
	if status, body := threads("&resourceId=bob"); status != http.StatusForbidden {
		t.Errorf("bob's threads with alice's token: %d %s", status, body)
	}
	aliceConv := model.ConversationID(model.ReceiverUser, "alice", "signed")
	bobConv := model.ConversationID(model.ReceiverUser, "bob", "signed")
	if status, body := threads(""); status != http.StatusOK || !strings.Contains(body, aliceConv) || strings.Contains(body, bobConv) {
		t.Errorf("alice's threads: %d %s, want %s and not %s", status, body, aliceConv, bobConv)
	}

	// Another audience: the runtime refuses the token, and the person is told.
	e.putAgent(map[string]any{"agentId": "signed", "name": "Signed", "deploymentUrl": rt.URL + "/api/agents/signed/ag-ui",
		"auth": "chat-jwt", "tokenAudience": "https://elsewhere.example.com/"})
	r := e.must(e.send("alice", "signed", "Hello again"), http.StatusCreated)
	m := e.waitAgentError("alice", "signed", r.Header.Get("X-Agent-Run"), model.RunErrUnauthorized, 10*time.Second)
	if !strings.Contains(m.Text, "refused the chat service's credentials (HTTP 401: the token is not for this audience)") {
		t.Errorf("error text %q", m.Text)
	}
	// Headers-only, the runtime refuses the chat outright.
	e.putAgent(map[string]any{"agentId": "signed", "name": "Signed", "deploymentUrl": rt.URL + "/api/agents/signed/ag-ui"})
	r = e.must(e.send("alice", "signed", "And now?"), http.StatusCreated)
	e.waitAgentError("alice", "signed", r.Header.Get("X-Agent-Run"), model.RunErrUnauthorized, 10*time.Second)
}

// TestChatJWTNeedsAnIssuer: a chat that signs nothing refuses auth chat-jwt with a sentence.
func TestChatJWTNeedsAnIssuer(t *testing.T) {
	e := startChat(t, bridge.Options{})
	r := e.do(http.MethodPut, "/agents/signed", "", map[string]any{"name": "Signed", "provider": "ag-ui",
		"deploymentUrl": "http://127.0.0.1:9/api/agents/signed/ag-ui", "auth": "chat-jwt"})
	if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "--issuer-url") {
		t.Fatalf("chat-jwt without a signer: %d %s", r.Status, r.Body)
	}
	res, err := http.Get(e.URL + "/chat/v1/.well-known/jwks.json")
	if err != nil || res.StatusCode != http.StatusNotFound {
		t.Fatalf("jwks without a signer: %v %v", res, err)
	}
	_ = res.Body.Close()
}

// TestServiceAccountAuthNeedsACluster: auth service-account is for in-cluster Agents of a chat
// that has its ServiceAccount; anything else is refused when saved, saying what to set.
func TestServiceAccountAuthNeedsACluster(t *testing.T) {
	e := startChat(t, bridge.Options{})
	for _, c := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"deploymentUrl": "http://127.0.0.1:9/api/agents/sa/ag-ui"}, "set agentRef (namespace/name)"},
		{map[string]any{"agentRef": "default/sa"}, "--service-account namespace/name"},
	} {
		body := map[string]any{"name": "SA", "provider": "ag-ui", "auth": "service-account"}
		for k, v := range c.body {
			body[k] = v
		}
		r := e.do(http.MethodPut, "/agents/sa", "", body)
		if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), c.want) {
			t.Errorf("%v: %d %s, want 400 saying %q", c.body, r.Status, r.Body, c.want)
		}
	}
}
