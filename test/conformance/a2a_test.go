package conformance

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestA2AConformance runs a2a.test.mjs (the official @a2a-js/sdk clients from the npm registry)
// against the agentry binary serving the suite's manifests.
func TestA2AConformance(t *testing.T) {
	for _, m := range []string{"node_modules/@a2a-js/sdk/package.json", "node_modules/a2a-sdk-1/package.json"} {
		if _, err := os.Stat(m); err != nil {
			t.Fatalf("%s is not installed: run `npm ci` in test/conformance (make test does)", m)
		}
	}
	_, modelURL := testutil.Start(t, binary, ".", nil, `listening on (http://\S+)/v1`,
		"scripted-model", "--addr", "127.0.0.1:0", "--script", "model-script.yaml")
	runtime, addr := testutil.Start(t, binary, ".", []string{"OPENAI_BASE_URL=" + modelURL + "/v1"}, `msg="serving agents" addr=(\S+)`,
		"serve", "--config", "manifests", "--secrets-dir", "secrets", "--addr", "127.0.0.1:0")
	node := exec.Command("node", "--test", "--test-reporter=spec", "a2a.test.mjs")
	node.Env = append(os.Environ(), "AGENTRY_URL=http://"+addr)
	out, err := node.CombinedOutput()
	t.Logf("node --test a2a.test.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("A2A suite failed: %v\nruntime output:\n%s", err, runtime.Output())
	}
	if !strings.Contains(string(out), "ℹ fail 0") || !strings.Contains(string(out), "ℹ pass 5") {
		t.Fatalf("the suite did not pass its five tests")
	}
	if strings.Contains(runtime.Output(), "conformance-token") {
		t.Error("an auth header value reached the runtime's log")
	}
}
