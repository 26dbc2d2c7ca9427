//go:build !agentry_runtime

package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestChatSSOFlags: sign-in through a provider is off without --oidc-issuer, refuses a partial
// set-up with the missing settings named, reads the secret from its file, and discovers a real
// provider.
func TestChatSSOFlags(t *testing.T) {
	none := func(string) string { return "" }
	parse := func(args ...string) *chatOptions {
		t.Helper()
		cmd, o := chatCommand(&globalFlags{})
		testutil.NoError(t, cmd.ParseFlags(args))
		return o
	}
	c, err := parse().sso.client(context.Background(), none)
	if err != nil || c != nil {
		t.Fatalf("without --oidc-issuer: %v %v", c, err)
	}
	for _, bad := range []string{"--session-idle-timeout=-1s", "--session-idle-timeout=2s"} {
		if _, err := parse(bad).sso.client(context.Background(), none); err == nil || !strings.Contains(err.Error(), "at least 10s") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if o := parse("--session-idle-timeout=30m"); o.sso.sessionIdle != 30*time.Minute {
		t.Errorf("--session-idle-timeout=30m read as %s", o.sso.sessionIdle)
	}
	if _, err := parse("--oidc-issuer=http://127.0.0.1:9").sso.client(context.Background(), none); err == nil || !strings.Contains(err.Error(), "--oidc-client-id") {
		t.Fatalf("a partial set-up: %v", err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	testutil.NoError(t, os.WriteFile(secret, []byte("cmd-client-secret-0123456789\n"), 0o600))
	callback := "http://127.0.0.1:9/chat/v1/auth/sso/callback"
	idp := testutil.StartIDP(t, testutil.IDPConfig{Clients: []testutil.IDPClient{{ID: "cmd", Secret: "cmd-client-secret-0123456789", RedirectURIs: []string{callback}}}})
	o := parse("--oidc-issuer="+idp.Issuer, "--oidc-client-id=cmd", "--oidc-client-secret-file="+secret, "--oidc-redirect-url="+callback, "--oidc-provider-name=Acme SSO")
	c, err = o.sso.client(context.Background(), none)
	if err != nil || c == nil || c.ProviderName() != "Acme SSO" {
		t.Fatalf("a complete set-up: %v %v", c, err)
	}
	_, err = parse("--oidc-issuer="+idp.Issuer+"/nowhere", "--oidc-client-id=cmd", "--oidc-client-secret-file="+secret, "--oidc-redirect-url="+callback).sso.client(context.Background(), none)
	if err == nil || !strings.Contains(err.Error(), "failed to discover") {
		t.Fatalf("a wrong issuer: %v", err)
	}
	if strings.Contains(err.Error(), "cmd-client-secret") {
		t.Fatal("the client secret is in an error")
	}
}
