package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestDockerfileBuildsTheSameImages: the Dockerfile (for Docker and Podman users) and make
// images must not drift: the same binary path, entrypoint, command, user and port per image.
func TestDockerfileBuildsTheSameImages(t *testing.T) {
	b, err := os.ReadFile("../../Dockerfile")
	testutil.Check(t, err)
	stages := map[string]map[string]string{}
	var cur map[string]string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch f[0] {
		case "FROM":
			cur = map[string]string{}
			stages[f[len(f)-1]] = cur
		case "COPY", "USER", "EXPOSE", "ENTRYPOINT", "CMD":
			cur[f[0]] = strings.TrimSpace(strings.TrimPrefix(line, f[0]))
		}
	}
	specs := imageSpecs("r", "t", "a", "b", "c", nil, nil)
	for i, stage := range []string{"agentry", "runtime"} {
		st, s := stages[stage], specs[i]
		if st == nil {
			t.Fatalf("the Dockerfile has no stage %q", stage)
		}
		var cmd, entry []string
		if err := json.Unmarshal([]byte(st["CMD"]), &cmd); err != nil {
			t.Fatalf("%s CMD: %v", stage, err)
		}
		if err := json.Unmarshal([]byte(st["ENTRYPOINT"]), &entry); err != nil {
			t.Fatalf("%s ENTRYPOINT: %v", stage, err)
		}
		if strings.Join(cmd, " ") != strings.Join(s.Cmd, " ") || len(entry) != 1 || entry[0] != s.Path ||
			!strings.HasSuffix(st["COPY"], " "+s.Path) || st["USER"] != "65532:65532" || st["EXPOSE"]+"/tcp" != s.Ports[0] {
			t.Errorf("stage %s %v differs from make images' %s: cmd %v, path %s, port %v", stage, st, s.Ref, s.Cmd, s.Path, s.Ports)
		}
	}
}
