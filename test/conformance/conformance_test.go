// Package conformance runs the AG-UI conformance suite (agui.test.mjs, Node's test runner with
// the real @ag-ui/client) against the agentry binary serving test manifests, with the scripted
// model as its own process behind OPENAI_BASE_URL.
package conformance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

var binary string

func TestMain(m *testing.M) { testutil.RunWithBinary(m, "../..", &binary) }

func TestAGUIConformance(t *testing.T) {
	if _, err := os.Stat("node_modules/@ag-ui/client/package.json"); err != nil {
		t.Fatal("@ag-ui/client is not installed: run `npm ci` in test/conformance (make test does)")
	}
	_, modelURL := testutil.Start(t, binary, ".", nil, `listening on (http://\S+)/v1`,
		"scripted-model", "--addr", "127.0.0.1:0", "--script", "model-script.yaml")
	// An agent that takes bearer JWTs of a real provider (test/idp), beside the suite's own.
	none := []string{}
	idp := testutil.StartIDP(t, testutil.IDPConfig{Clients: []testutil.IDPClient{{ID: "platform", Secret: conformanceClientSecret,
		GrantTypes: []string{"client_credentials"}, ResponseTypes: &none}}})
	config := manifestsWith(t, fmt.Sprintf(bearerAgent, idp.Issuer))
	runtime, addr := testutil.Start(t, binary, ".", []string{"OPENAI_BASE_URL=" + modelURL + "/v1"}, `msg="serving agents" addr=(\S+)`,
		"serve", "--config", config, "--secrets-dir", "secrets", "--addr", "127.0.0.1:0")
	token := idp.ClientToken(t, "platform", conformanceClientSecret, bearerAudience)

	node := exec.Command("node", "--test", "--test-reporter=spec", "agui.test.mjs")
	node.Env = append(os.Environ(), "AGENTRY_URL=http://"+addr, "MODEL_URL="+modelURL, "BEARER_TOKEN="+token,
		"BEARER_OTHER_AUDIENCE="+idp.ClientToken(t, "platform", conformanceClientSecret, "https://elsewhere.example.com/"))
	out, err := node.CombinedOutput()
	t.Logf("node --test agui.test.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("conformance suite failed: %v\nruntime output:\n%s", err, runtime.Output())
	}
	if !strings.Contains(string(out), "ℹ fail 0") {
		t.Fatalf("the suite did not report zero failures")
	}
	if strings.Contains(runtime.Output(), "conformance-token") || strings.Contains(runtime.Output(), token) {
		t.Error("an auth header value or a bearer token reached the runtime's log")
	}
}

const (
	conformanceClientSecret = "conformance-client-secret-0123456789"
	bearerAudience          = "https://agents.example.com/conformance"
	bearerAgent             = `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: bearer}
spec:
  model: {name: scripted, maxRetries: 0}
  endpoint:
    auth:
      jwt: {issuer: %q, audiences: ["https://agents.example.com/conformance"]}
`
)

// manifestsWith is a directory holding the suite's manifests and extra.
func manifestsWith(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	files, err := filepath.Glob("manifests/*.yaml")
	testutil.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(f)
		testutil.NoError(t, err)
		testutil.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o600))
	}
	testutil.NoError(t, os.WriteFile(filepath.Join(dir, "bearer.yaml"), []byte(extra), 0o600))
	return dir
}
