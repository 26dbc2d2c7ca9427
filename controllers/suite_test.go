package controllers

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/agentry-dev/agentry/controllers/render"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// The suite runs a real kube-apiserver and etcd (envtest) and the operator's manager in-process,
// scoped to the namespaces in pool, which exercises the namespace-scoped mode in every test.
var (
	testEnv   *envtest.Environment
	cfg       *rest.Config
	k8s       client.Client
	pool      = []string{"t-a2a", "t-a2a-other", "t-remote", "t-remote-js", "t-samples", "t-mismatch", "t-secret", "t-key", "t-roll", "t-ingress", "t-avail", "t-owner", "t-cel", "t-kubectl", "t-valid", "t-fa", "t-default-ingress", "t-memory", "t-auth", "t-adopt", "t-hpa", "t-azure", "t-mcp", "t-mcp-auth", "t-mcp-hang", "t-mcp-change", "t-mcp-ref", "t-trace", "t-modelconfig"}
	renderCfg = render.Config{
		RuntimeImage:   "registry.example/agentry:test",
		DefaultIngress: render.IngressDefaults{ClassName: "nginx", Host: "agents.example.com", TLSSecretName: "agents-tls"},
	}
)

func TestMain(m *testing.M) {
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	ctrl.SetLogger(logr.Discard())
	var err error
	if testEnv, err = testutil.NewEnvtest(".."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cfg, err = testEnv.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "failed to start envtest:", err)
		return 1
	}
	defer func() { _ = testEnv.Stop() }()

	k8s, err = client.New(cfg, client.Options{Scheme: NewScheme()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ns := range pool {
		if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	stop, err := startManagerWith(ctx, cfg, Options{Render: renderCfg, Namespaces: pool, MCPDiscoveryInterval: mcpInterval})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	return m.Run()
}

// mcpInterval is how often the suite's operator lists MCP servers' tools again.
const mcpInterval = 2 * time.Second

// startManagerWith runs a manager on cfg (the suite's, or one that records requests) until the
// returned function is called.
func startManagerWith(ctx context.Context, cfg *rest.Config, opts Options) (func(), error) {
	mgr, err := NewManager(ctx, cfg, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return func() {
		cancel()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
		}
	}, nil
}

// eventually retries check until it returns nil or the time is up.
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	testutil.Eventually(t, what, 30*time.Second, 50*time.Millisecond, check)
}

// consistently checks that check keeps returning nil for d.
func consistently(t *testing.T, what string, d time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if err := check(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
