package cluster

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The cluster is shared by the package's tests: starting one takes about 20 s and there can be
// one per machine. make test-cluster sets AGENTRY_CLUSTER_TEST=1 and the binaries' folders;
// without it (go test ./...) every test here is skipped.
var shared *Cluster

func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv("AGENTRY_CLUSTER_TEST") != "1" {
		os.Exit(m.Run()) // each test skips
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	images := strings.Fields(os.Getenv("AGENTRY_IMAGES"))
	c, err := Start(ctx, Options{Assets: os.Getenv("KUBEBUILDER_ASSETS"), Node: os.Getenv("AGENTRY_CLUSTER_NODE"), Images: images, Log: os.Stderr})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	shared = c
	code := m.Run()
	if code != 0 {
		c.dumpLogs(os.Stderr)
	}
	if err := c.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "cluster cleanup:", err)
		code = 1
	}
	if leftovers := Leftovers(); leftovers != "" {
		fmt.Fprintln(os.Stderr, "left on the machine after the cluster test:", leftovers)
		code = 1
	}
	os.Exit(code)
}

// cluster returns the shared cluster, or skips.
func cluster(t *testing.T) *Cluster {
	t.Helper()
	if shared == nil {
		t.Skip("the real-cluster tests run with make test-cluster (AGENTRY_CLUSTER_TEST=1)")
	}
	return shared
}

// dumpLogs prints the tail of each component's log, for a failed run.
func (c *Cluster) dumpLogs(w *os.File) {
	logs, _ := filepath.Glob(c.path("logs", "*.log"))
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) > 30 {
			lines = lines[len(lines)-30:]
		}
		fmt.Fprintf(w, "--- %s (last %d lines)\n%s\n", filepath.Base(l), len(lines), strings.Join(lines, "\n"))
	}
}
