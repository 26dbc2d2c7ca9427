package process

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/samplemcp"
	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// The README's MCP manifest, as printed, works: served with the kitchen sample server (on a
// free port instead of 4112) and the dev script, its generate example calls the MCP tool.
func TestREADMEMCPManifest(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	testutil.Check(t, err)
	section := string(readme)
	i := strings.Index(section, "\n## Tools from MCP servers\n")
	if i < 0 {
		t.Fatal("README has no 'Tools from MCP servers' section")
	}
	section = section[i:]
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(section)
	curl := regexp.MustCompile(`curl -X POST localhost:4111(/api/agents/sous-chef/generate) .* -d '([^']+)'`).FindStringSubmatch(section)
	if block == nil || curl == nil {
		t.Fatal("the section lacks its yaml manifest or its generate example")
	}
	srv, url, err := samplemcp.Serve("127.0.0.1:0", "test")
	testutil.Check(t, err)
	defer srv.Close()
	manifest := strings.Replace(block[1], "http://127.0.0.1:4112/mcp", url, 1)
	if manifest == block[1] {
		t.Fatal("the README's MCPServer does not point at agentry dev's sample server (http://127.0.0.1:4112/mcp)")
	}
	dir := t.TempDir()
	testutil.Check(t, os.WriteFile(filepath.Join(dir, "mcp.yaml"), []byte(manifest), 0o600))
	model, err := scriptedmodel.Start("127.0.0.1:0", scriptedmodel.DevScript(), scriptedmodel.Options{})
	testutil.Check(t, err)
	defer model.Close()
	_, addr := start(t, []string{"OPENAI_BASE_URL=" + model.URL(), "OPENAI_API_KEY=unused"}, `msg="serving agents" addr=(\S+)`,
		"serve", "--config", dir, "--addr", "127.0.0.1:0", "--secrets-dir", t.TempDir())
	status, out := post(t, "http://"+addr+curl[1], curl[2])
	if status != 200 || out["text"] != "2 cups is 473.18 ml." {
		t.Fatalf("%s %s: %d %v", curl[1], curl[2], status, out)
	}
}
