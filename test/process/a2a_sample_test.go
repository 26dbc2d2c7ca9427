package process

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestA2ASampleOnDev runs the README's two-agent A2A block as printed: agentry dev with the
// samples and config/samples-a2a, then the curl that asks the trip planner, whose ask-weather
// entry (agentRef) asks the weather agent over A2A; the planner's answer carries the weather
// agent's. Then the same with the README's manifest of the planner.
func TestA2ASampleOnDev(t *testing.T) {
	var block string
	for _, b := range shellBlocks(t) {
		if strings.HasPrefix(b, "bin/agentry dev --dir config/samples --dir config/samples-a2a") {
			block = b
		}
	}
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if len(lines) != 2 {
		t.Fatalf("the README's A2A sample block: %q", block)
	}
	dir := t.TempDir()
	root, err := filepath.Abs("../..")
	testutil.Check(t, err)
	testutil.Check(t, os.Symlink(filepath.Join(root, "config"), filepath.Join(dir, "config")))
	args := strings.Fields(lines[0])[1:] // bin/agentry → this test's binary
	dev, _ := testutil.Start(t, binary, dir, nil, devReady, args...)
	out := runBlocks(t, dir, nil, lines[1])
	if !strings.Contains(out, "The weather agent says: It is about") || !strings.Contains(out, "Lima") {
		t.Fatalf("the trip planner's answer: %s", out)
	}
	dev.Stop()

	// The README's own manifest of the trip planner (its agentRef to the sample weather agent),
	// in place of config/samples-a2a, answers the same curl.
	readme, err := os.ReadFile("../../README.md")
	testutil.Check(t, err)
	manifest := regexp.MustCompile("(?s)```yaml\n(apiVersion: agentry.dev/v1alpha1\nkind: Agent\nmetadata: [{]name: trip-planner[}].*?)```").FindSubmatch(readme)
	if manifest == nil || !strings.Contains(string(manifest[1]), "agentRef: {name: weather}") {
		t.Fatal("the README's A2A section lacks the trip planner's manifest with its agentRef")
	}
	testutil.Check(t, os.MkdirAll(filepath.Join(dir, "readme-a2a"), 0o755))
	testutil.Check(t, os.WriteFile(filepath.Join(dir, "readme-a2a", "trip-planner.yaml"), manifest[1], 0o600))
	args = strings.Fields(strings.Replace(lines[0], "config/samples-a2a", "readme-a2a", 1))[1:]
	testutil.Start(t, binary, dir, nil, devReady, args...)
	if out := runBlocks(t, dir, nil, lines[1]); !strings.Contains(out, "The weather agent says: It is about") {
		t.Fatalf("the trip planner of the README's manifest: %s", out)
	}
}
