package process

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/controllers/render"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/protocol/manifest"
	"github.com/agentry-dev/agentry/internal/protocol/manifest/decode"
)

// renderSamples writes every sample Agent's config as the operator renders it into the Agent's
// ConfigMap, one file per Agent.
func renderSamples(t *testing.T) string {
	t.Helper()
	loader, err := manifest.NewLoader()
	testutil.Check(t, err)
	set, err := loader.LoadPath(context.Background(), "../../config/samples")
	testutil.Check(t, err)
	dir := t.TempDir()
	for _, a := range set.Agents {
		r := render.FromSet(set, a)
		config, err := render.ConfigYAML(r)
		testutil.Check(t, err)
		testutil.Check(t, os.WriteFile(filepath.Join(dir, a.Name+".yaml"), config, 0o600))
	}
	return dir
}

// TestRuntimeBuildServesTheRenderedConfig runs the runtime image's binary as the rendered
// Deployment does (AGENTRY_PREVALIDATED, AGENTRY_MEMORY_LIMIT) on the rendered samples.
func TestRuntimeBuildServesTheRenderedConfig(t *testing.T) {
	bin := runtimeBinary
	_, modelURL := start(t, nil, `listening on (http://\S+)`, "scripted-model", "--addr", "127.0.0.1:0")
	env := []string{"OPENAI_BASE_URL=" + modelURL, "OPENAI_API_KEY=sk-test", decode.PrevalidatedEnv + "=true", "AGENTRY_MEMORY_LIMIT=268435456"}
	p, addr := testutil.Start(t, bin, "../..", env, `msg="serving agents" addr=(\S+)`, "serve", "--config", renderSamples(t), "--addr", "127.0.0.1:0")
	status, out := post(t, "http://"+addr+"/api/agents/chef/generate", butter)
	if status != 200 || !strings.Contains(fmt.Sprint(out["text"]), "olive oil") {
		t.Fatalf("%d %v\n%s", status, out, p.Output())
	}
	// 90% of the container's 256 MiB limit.
	if !strings.Contains(p.Output(), `msg="memory limit" goMemLimitMiB=230`) {
		t.Errorf("GOMEMLIMIT must follow AGENTRY_MEMORY_LIMIT:\n%s", p.Output())
	}
}

// The runtime build links none of the CRD validation: it refuses manifests that were not
// rendered by the operator rather than serve them half-checked, and has no other commands.
func TestRuntimeBuildRefusesHandWrittenManifests(t *testing.T) {
	bin := runtimeBinary
	cmd := exec.Command(bin, "serve", "--config", "../../config/samples", "--addr", "127.0.0.1:0")
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "runtime build") || !strings.Contains(string(out), "--prevalidated") {
		t.Fatalf("hand-written manifests must be refused:\n%s", out)
	}
	for _, command := range []string{"operator", "chat", "dev", "scripted-model"} {
		out, err := exec.Command(bin, command, "--help").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "unknown command") {
			t.Errorf("the runtime build has no %s command:\n%s", command, out)
		}
	}
}

// The full binary serves the rendered config the same way, so an Agent may run on it
// (spec.runtime.image), and keeps the CRD validation for everything else.
func TestFullBinaryServesTheRenderedConfigPrevalidated(t *testing.T) {
	_, modelURL := start(t, nil, `listening on (http://\S+)`, "scripted-model", "--addr", "127.0.0.1:0")
	env := []string{"OPENAI_BASE_URL=" + modelURL, "OPENAI_API_KEY=sk-test"}
	_, addr := start(t, env, `msg="serving agents" addr=(\S+)`, "serve", "--prevalidated", "--config", renderSamples(t), "--addr", "127.0.0.1:0")
	if status, out := post(t, "http://"+addr+"/api/agents/chef/generate", butter); status != 200 || !strings.Contains(fmt.Sprint(out["text"]), "olive oil") {
		t.Fatalf("%d %v", status, out)
	}
}
