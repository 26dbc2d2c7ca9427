//go:build !agentry_runtime

package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/runtime/registry"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

// TestDevRegistersAgentsThatTrustItsChat: agentry dev registers an agent whose
// spec.endpoint.auth.jwt trusts its chat's issuer with auth chat-jwt for the agent's first
// audience (again at the next start, keeping another audience of the agent an admin chose); an
// agent trusting another issuer keeps the headers.
func TestDevRegistersAgentsThatTrustItsChat(t *testing.T) {
	const issuer = "http://127.0.0.1:4111/chat/v1"
	dir := t.TempDir()
	testutil.Check(t, os.WriteFile(filepath.Join(dir, "agents.yaml"), []byte(`apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: signed}
spec:
  model: {name: m}
  endpoint:
    auth:
      jwt: {issuer: "`+issuer+`/", audiences: [urn:signed, urn:signed-too]}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: elsewhere}
spec:
  model: {name: m}
  endpoint:
    auth:
      jwt: {issuer: "https://idp.example.com", audiences: [urn:elsewhere]}
`), 0o600))
	ctx := t.Context()
	loader, err := crdLoader()
	testutil.Check(t, err)
	set, err := loader.LoadPath(ctx, filepath.Join(dir, "agents.yaml"))
	testutil.Check(t, err)
	reg, _, err := registry.Build(ctx, set, registry.Options{Getenv: func(string) string { return "" }, Secrets: secrets.Static{}})
	testutil.Check(t, err)
	t.Cleanup(func() { _ = reg.Close() })
	state := filepath.Join(dir, ".agentry")
	testutil.Check(t, os.MkdirAll(state, 0o700))
	dc, _, err := startDevChat(ctx, logr.Discard(), "file:"+filepath.Join(state, "chat.db"), state, false, issuer)
	testutil.Check(t, err)
	t.Cleanup(func() { dc.close(logr.Discard()) })

	register := func() map[string]model.AgentConfig {
		dc.registerAgents(ctx, logr.Discard(), "http://127.0.0.1:4111", reg, nil)
		out := map[string]model.AgentConfig{}
		for _, id := range []string{"signed", "elsewhere"} {
			a, err := dc.store.GetAgent(ctx, id)
			testutil.Check(t, err)
			out[id] = a
		}
		return out
	}
	got := register()
	if a := got["signed"]; a.Auth != model.AgentAuthChatJWT || a.TokenAudience != "urn:signed" {
		t.Errorf("signed: auth %q audience %q, want chat-jwt urn:signed", a.Auth, a.TokenAudience)
	}
	if a := got["elsewhere"]; a.Auth != model.AgentAuthHeaders {
		t.Errorf("elsewhere: auth %q, want headers", a.Auth)
	}
	a := got["signed"]
	a.TokenAudience = "urn:signed-too"
	_, _, err = dc.store.PutAgent(ctx, a, nil)
	testutil.Check(t, err)
	if a := register()["signed"]; a.TokenAudience != "urn:signed-too" {
		t.Errorf("the admin's choice of audience was replaced: %q", a.TokenAudience)
	}
}
