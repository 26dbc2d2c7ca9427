package process

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestA2ASampleOnDev runs the README's two-agent A2A block as printed: agentry dev with the
// samples and config/samples-a2a, then the curl that asks the trip planner, whose ask-weather
// Tool asks the weather agent over A2A; the planner's answer carries the weather agent's.
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
	testutil.Start(t, binary, dir, nil, devReady, args...)
	out := runBlocks(t, dir, nil, lines[1])
	if !strings.Contains(out, "The weather agent says: It is about") || !strings.Contains(out, "Lima") {
		t.Fatalf("the trip planner's answer: %s", out)
	}
}
