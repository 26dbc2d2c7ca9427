// Package conformance runs the AG-UI conformance suite (agui.test.mjs, Node's test runner with
// the real @ag-ui/client) against the agentry binary serving test manifests, with the scripted
// model as its own process behind OPENAI_BASE_URL.
package conformance

import (
	"os"
	"os/exec"
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
	runtime, addr := testutil.Start(t, binary, ".", []string{"OPENAI_BASE_URL=" + modelURL + "/v1"}, `msg="serving agents" addr=(\S+)`,
		"serve", "--config", "manifests", "--secrets-dir", "secrets", "--addr", "127.0.0.1:0")

	node := exec.Command("node", "--test", "--test-reporter=spec", "agui.test.mjs")
	node.Env = append(os.Environ(), "AGENTRY_URL=http://"+addr, "MODEL_URL="+modelURL)
	out, err := node.CombinedOutput()
	t.Logf("node --test agui.test.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("conformance suite failed: %v\nruntime output:\n%s", err, runtime.Output())
	}
	if !strings.Contains(string(out), "ℹ fail 0") {
		t.Fatalf("the suite did not report zero failures")
	}
	if strings.Contains(runtime.Output(), "conformance-token") {
		t.Error("an auth header value reached the runtime's log")
	}
}
