package bridge_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
)

const (
	signedIssuer   = "https://chat.example.com/chat/v1"
	signedAudience = "https://agents.example.com/api/agents/signed"
)

// TestChatSignedTokens: an agent configured with auth chat-jwt gets, for each run, a token the
// chat signed for the person who asked; a runtime that takes only those tokens (issuer the
// chat, keys from the chat's JWKS route) answers. With another audience the runtime refuses it
// and the person reads why. The key set and discovery document are public.
func TestChatSignedTokens(t *testing.T) {
	e := startChatIssuing(t, bridge.Options{}, filepath.Join(t.TempDir(), "chat.db"), nil, signedIssuer)
	agent := fmt.Sprintf(`apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: signed}
spec:
  instructions: You help.
  model: {name: gpt-4o-mini}
  endpoint:
    auth:
      jwt: {issuer: %q, jwksURL: %q, audiences: [%q]}
`, signedIssuer, e.URL+"/chat/v1/.well-known/jwks.json", signedAudience)
	rt := startRuntime(t, "", map[string]string{"signed.yaml": agent}, nil, nil)
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
	e.waitMessage("alice", "signed", 10*time.Second, func(m model.Message) bool { return m.Type == model.TypeAssistant && m.Text != "" })
	if run == "" {
		t.Fatal("no run")
	}

	// Another audience: the runtime refuses the token, and the person is told.
	e.putAgent(map[string]any{"agentId": "signed", "name": "Signed", "deploymentUrl": rt.URL + "/api/agents/signed/ag-ui",
		"auth": "chat-jwt", "tokenAudience": "https://elsewhere.example.com/"})
	r := e.must(e.send("alice", "signed", "Hello again"), http.StatusCreated)
	m := e.waitAgentError("alice", "signed", r.Header.Get("X-Agent-Run"), model.RunErrUnauthorized, 10*time.Second)
	if !strings.Contains(m.Text, "refused") {
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
