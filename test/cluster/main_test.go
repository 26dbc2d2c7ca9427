package cluster

import (
	"context"
	"flag"
	"fmt"
	"os"
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
	// AGENTRY_CLUSTER_HOLD=<file>: keep the cluster up while the file exists (debugging).
	if hold := os.Getenv("AGENTRY_CLUSTER_HOLD"); hold != "" {
		fmt.Fprintf(os.Stderr, "holding the cluster (KUBECONFIG=%s) while %s exists\n", c.Kubeconfig, hold)
		for {
			if _, err := os.Stat(hold); err != nil {
				break
			}
			time.Sleep(time.Second)
		}
	}
	if code != 0 {
		c.DumpLogs(os.Stderr, 40)
		for _, args := range [][]string{{"get", "pods,deployments,services", "-A", "-o", "wide"}, {"get", "agents", "-A", "-o", "yaml"}, {"get", "events", "-A", "--sort-by=.lastTimestamp"}} {
			out, _ := c.Kubectl(context.Background(), args...)
			fmt.Fprintf(os.Stderr, "--- kubectl %s\n%s\n", strings.Join(args, " "), out)
		}
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
