// Command operator-secrets-bench measures what unrelated Secrets cost the operator: it runs the
// agentry operator as its own process against envtest (a real kube-apiserver and etcd) twice,
// once in a cluster without extra Secrets and once with 2,000 unrelated 50 KiB Secrets, and
// prints the operator process's resident memory (RSS from /proc/<pid>/status: steady state
// after the Agents are reconciled, and the peak) for both and their ratio. Only the operator
// process is measured, not this load generator. The goal is a ratio within 1.10.
//
//	go run ./test/bench/operator/secrets [-secrets 2000] [-size 51200] [-agents 50] [-binary path]
package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

type result struct {
	steady, peak float64 // MiB
	reconciled   time.Duration
}

func main() {
	secrets := flag.Int("secrets", 2000, "unrelated Secrets in the loaded cluster")
	size := flag.Int("size", 50*1024, "bytes of data per unrelated Secret")
	agents := flag.Int("agents", 50, "Agents (each referencing an API-key Secret) in both clusters")
	binary := flag.String("binary", "", "agentry binary to measure (default: built from this module)")
	flag.Parse()
	ctrl.SetLogger(logr.Discard())
	if err := run(*secrets, *size, *agents, *binary); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(secrets, size, agents int, binary string) error {
	if err := testutil.EnvtestAssets("."); err != nil {
		return err
	}
	if binary == "" {
		bin, cleanup, err := testutil.BuildBinary(".")
		if err != nil {
			return err
		}
		defer cleanup()
		binary = bin
	}
	base, err := measure(binary, agents, 0, size)
	if err != nil {
		return fmt.Errorf("without Secrets: %w", err)
	}
	loaded, err := measure(binary, agents, secrets, size)
	if err != nil {
		return fmt.Errorf("with Secrets: %w", err)
	}
	fmt.Printf("\nOperator memory with unrelated Secrets: the operator process's RSS (/proc/<pid>/status), %d Agents, envtest\n\n", agents)
	fmt.Printf("| cluster | steady RSS | peak RSS | Agents reconciled after |\n|---|---|---|---|\n")
	fmt.Printf("| no extra Secrets | %.1f MiB | %.1f MiB | %.1f s |\n", base.steady, base.peak, base.reconciled.Seconds())
	fmt.Printf("| %d unrelated Secrets of %d KiB (%.0f MiB of data) | %.1f MiB | %.1f MiB | %.1f s |\n", secrets, size/1024,
		float64(secrets*size)/(1<<20), loaded.steady, loaded.peak, loaded.reconciled.Seconds())
	ratio, peakRatio := loaded.steady/base.steady, loaded.peak/base.peak
	verdict := "met"
	if ratio > 1.10 {
		verdict = "NOT met"
	}
	fmt.Printf("\nRatio with/without: %.2f steady, %.2f peak. Target ≤ 1.10 (steady): %s\n", ratio, peakRatio, verdict)
	return nil
}

// measure starts a fresh envtest, creates the Secrets and Agents, runs the operator process
// until every Agent is reconciled, and samples its RSS once things are quiet.
func measure(binary string, agents, secrets, size int) (result, error) {
	env, err := testutil.NewEnvtest(".")
	if err != nil {
		return result{}, err
	}
	cfg, err := env.Start()
	if err != nil {
		return result{}, err
	}
	defer func() { _ = env.Stop() }()
	ctx := context.Background()
	c, err := client.New(cfg, client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		return result{}, err
	}
	for _, ns := range []string{"bench", "noise"} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return result{}, err
		}
	}
	if err := createSecrets(ctx, c, secrets, size); err != nil {
		return result{}, err
	}
	if err := c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "llm", Namespace: "bench"}, StringData: map[string]string{"apiKey": "sk-bench"}}); err != nil {
		return result{}, err
	}
	for i := 0; i < agents; i++ {
		a := &v1alpha1.Agent{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("agent-%d", i), Namespace: "bench"},
			Spec: v1alpha1.AgentSpec{Model: v1alpha1.ModelSpec{Name: "m",
				APIKeySecretRef: &v1alpha1.SecretKeyRef{Name: "llm", Key: "apiKey"}}},
		}
		if err := c.Create(ctx, a); err != nil {
			return result{}, err
		}
	}

	kubeconfig, err := writeKubeconfig(env)
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(filepath.Dir(kubeconfig))
	cmd := exec.Command(binary, "operator", "--runtime-image", "agentry:bench", "--metrics-bind-address", "0",
		"--health-probe-bind-address", freeAddr(), "--log-level", "error")
	cmd.Env = append(testutil.CleanEnv(), "KUBECONFIG="+kubeconfig)
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := fmt.Sprint(cmd.Process.Pid)

	start := time.Now()
	for {
		n, err := reconciled(ctx, c)
		if err != nil {
			return result{}, err
		}
		if n == agents {
			break
		}
		if time.Since(start) > 5*time.Minute {
			return result{}, fmt.Errorf("%d/%d Agents reconciled after 5 minutes", n, agents)
		}
		time.Sleep(500 * time.Millisecond)
	}
	took := time.Since(start)
	// Let the work queue drain and the runtime settle, then take the median of 10 samples.
	time.Sleep(5 * time.Second)
	var samples []float64
	var peak float64
	for i := 0; i < 10; i++ {
		cur, p, err := testutil.RSS(pid)
		if err != nil {
			return result{}, err
		}
		samples, peak = append(samples, cur), p
		time.Sleep(500 * time.Millisecond)
	}
	sort.Float64s(samples)
	return result{steady: samples[len(samples)/2], peak: peak, reconciled: took}, nil
}

func createSecrets(ctx context.Context, c client.Client, n, size int) error {
	return testutil.Parallel(n, 16, func(i int) error {
		data := make([]byte, size)
		_, _ = rand.Read(data)
		return c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("unrelated-%d", i), Namespace: "noise"},
			Data: map[string][]byte{"blob": data}})
	})
}

func reconciled(ctx context.Context, c client.Client) (int, error) {
	var list v1alpha1.AgentList
	if err := c.List(ctx, &list, client.InNamespace("bench")); err != nil {
		return 0, err
	}
	n := 0
	for _, a := range list.Items {
		if a.Status.ObservedGeneration == a.Generation && a.Status.ConfigHash != "" {
			n++
		}
	}
	return n, nil
}

func writeKubeconfig(env *envtest.Environment) (string, error) {
	user, err := env.AddUser(envtest.User{Name: "bench-operator", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return "", err
	}
	data, err := user.KubeConfig()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "agentry-bench")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "kubeconfig")
	return path, os.WriteFile(path, data, 0o600)
}

func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "127.0.0.1:0"
	}
	defer ln.Close()
	return ln.Addr().String()
}
