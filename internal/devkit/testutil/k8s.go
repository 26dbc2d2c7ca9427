package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// EnvtestAssets points KUBEBUILDER_ASSETS at a kube-apiserver and etcd, building them first
// when it is unset (hack/setup-envtest.sh of the repository at root; cached outside it).
func EnvtestAssets(root string) error {
	if os.Getenv("KUBEBUILDER_ASSETS") != "" {
		return nil
	}
	out, err := exec.Command(filepath.Join(root, "hack", "setup-envtest.sh")).Output()
	if err != nil {
		return fmt.Errorf("KUBEBUILDER_ASSETS is not set and hack/setup-envtest.sh failed: %w", err)
	}
	return os.Setenv("KUBEBUILDER_ASSETS", strings.TrimSpace(string(out)))
}

// NewEnvtest is envtest (a real kube-apiserver and etcd, not started yet) with the CRDs of the
// repository at root.
func NewEnvtest(root string) (*envtest.Environment, error) {
	if err := EnvtestAssets(root); err != nil {
		return nil, err
	}
	return &envtest.Environment{CRDDirectoryPaths: []string{filepath.Join(root, "config", "crd", "bases")}, ErrorIfCRDPathMissing: true}, nil
}

// Kubeconfig writes a kubeconfig for a new user of the envtest API server and returns its path.
func Kubeconfig(t testing.TB, env *envtest.Environment, u envtest.User) string {
	t.Helper()
	user, err := env.AddUser(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Eventually retries check every interval until it returns nil, failing the test with the
// last error after timeout.
func Eventually(t testing.TB, what string, timeout, interval time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var err error
	for time.Now().Before(deadline) {
		if err = check(); err == nil {
			return
		}
		time.Sleep(interval)
	}
	t.Fatalf("timed out waiting for %s: %v", what, err)
}

// ReconcileCount sums controller-runtime's reconcile counter for a controller in this process.
func ReconcileCount(controller string) (float64, error) {
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == controller {
					total += m.GetCounter().GetValue()
				}
			}
		}
	}
	return total, nil
}

// RSS reads the resident and peak resident memory of a process ("self" or a pid) in MiB.
func RSS(pid string) (cur, peak float64, err error) {
	m, err := MemoryStatus(pid)
	return m["VmRSS"], m["VmHWM"], err
}

// MemoryStatus reads the memory fields of a process's /proc status ("self" or a pid) in MiB,
// by name: VmRSS, VmHWM, RssAnon, RssFile and so on.
func MemoryStatus(pid string) (map[string]float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%s/status", pid))
	if err != nil {
		return nil, err
	}
	mib := map[string]float64{}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[2] == "kB" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			mib[strings.TrimSuffix(f[0], ":")] = kb / 1024
		}
	}
	return mib, nil
}
