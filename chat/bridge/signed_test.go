package bridge_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

const (
	signedIssuer   = "https://chat.example.com/chat/v1"
	signedAudience = "https://agents.example.com/api/agents/signed"
)

// TestChatSignedTokens: an agent configured with auth chat-jwt gets, for each run, a token the
// chat signed for the person who asked; a runtime that takes only those tokens (issuer the
// chat, keys from the chat's JWKS route) answers, and its HTTP tool is told the person's uid.
// With another audience the runtime refuses it and the person reads why. The key set and
// discovery document are public.
func TestChatSignedTokens(t *testing.T) {
	e := startChatIssuing(t, bridge.Options{}, filepath.Join(t.TempDir(), "chat.db"), nil, signedIssuer)
	// An HTTP tool that records who it was told is asking.
	var mu sync.Mutex
	var subjects []string
	tool := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		subjects = append(subjects, r.Header.Get("X-Agentry-User"))
		mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]string{"answer": "noted"})
	}))
	t.Cleanup(tool.Close)
	agent := fmt.Sprintf(`apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: whoami}
spec:
  id: whoami
  description: Who is asking.
  inputSchema: {type: object}
  execute:
    http:
      url: %q
      callerIdentity: {subjectHeader: X-Agentry-User}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: signed}
spec:
  instructions: You help.
  model: {name: gpt-4o-mini}
  tools:
  - {key: whoami, toolRef: {name: whoami}}
  endpoint:
    auth:
      jwt: {issuer: %q, jwksURL: %q, audiences: [%q]}
`, tool.URL, signedIssuer, e.URL+"/chat/v1/.well-known/jwks.json", signedAudience)
	script, err := scriptedmodel.ParseScript([]byte(`rules:
  - name: after-tool
    when: {lastRole: tool}
    reply: {text: 'The tool answered {{ .LastToolResult }}'}
  - name: ask
    when: {pattern: 'butter'}
    reply:
      toolCalls: [{name: whoami, arguments: '{}'}]
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
	// The tool learned who asked: alice, as the chat signed and the runtime verified.
	mu.Lock()
	got := fmt.Sprint(subjects)
	mu.Unlock()
	if got != "[alice]" {
		t.Errorf("the tool was told %s, want [alice]", got)
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
