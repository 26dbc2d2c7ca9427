package agentref

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// The suite runs a real kube-apiserver and etcd (envtest) with the Agent CRD, and no operator:
// tests write Agent status themselves, as the operator would.
var (
	testEnv *envtest.Environment
	cfg     *rest.Config
	k8s     client.Client
)

func TestMain(m *testing.M) {
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	ctrl.SetLogger(logr.Discard())
	var err error
	if testEnv, err = testutil.NewEnvtest("../.."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if cfg, err = testEnv.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "failed to start envtest:", err)
		return 1
	}
	defer func() { _ = testEnv.Stop() }()
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(v1alpha1.AddToScheme(s))
	if k8s, err = client.New(cfg, client.Options{Scheme: s}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// namespace creates a namespace for one test. The name is generated because envtest runs no
// namespace controller: a deleted namespace would never go away, and -count=N reruns the test.
func namespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	testutil.Check(t, k8s.Create(context.Background(), ns))
	return ns.Name
}

// newResolver starts a resolver for the length of the test.
func newResolver(t *testing.T, cfg *rest.Config, opts Options) *KubeResolver {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r, err := NewKubeResolver(ctx, cfg, opts)
	testutil.Check(t, err)
	return r
}

// createAgent creates an Agent as a user would; status stays empty until setStatus.
func createAgent(t *testing.T, ns, name string) *v1alpha1.Agent {
	t.Helper()
	a := &v1alpha1.Agent{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: map[string]string{"note": "dropped by the cache"}},
		Spec:       v1alpha1.AgentSpec{Model: v1alpha1.ModelSpec{Name: "gpt-4o-mini"}, Instructions: "cook"},
	}
	testutil.Check(t, k8s.Create(context.Background(), a))
	return a
}

// setStatus writes the status subresource as the operator does: internal is the endpoint
// ("" for none), conds are type=status:reason triples.
func setStatus(t *testing.T, a *v1alpha1.Agent, internal string, conds ...string) {
	t.Helper()
	ctx := context.Background()
	testutil.Check(t, k8s.Get(ctx, client.ObjectKeyFromObject(a), a))
	a.Status = v1alpha1.AgentStatus{}
	if internal != "" {
		a.Status.Endpoints = &v1alpha1.AgentEndpoints{Internal: internal}
	}
	for _, c := range conds {
		typ, rest, _ := strings.Cut(c, "=")
		status, reason, _ := strings.Cut(rest, ":")
		meta.SetStatusCondition(&a.Status.Conditions, metav1.Condition{
			Type: typ, Status: metav1.ConditionStatus(status), Reason: reason, Message: "message of " + typ,
		})
	}
	testutil.Check(t, k8s.Status().Update(ctx, a))
}

// eventually retries check until it returns nil; the cache follows the watch within
// milliseconds, so the timeout only bounds a broken test.
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	testutil.Eventually(t, what, 10*time.Second, 20*time.Millisecond, check)
}

// readerRole is config/rbac/chat_agent_reader_role.yaml, so the tests check the shipped rules.
func readerRole(t *testing.T) *rbacv1.ClusterRole {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "rbac", "chat_agent_reader_role.yaml"))
	testutil.Check(t, err)
	var role rbacv1.ClusterRole
	testutil.Check(t, yaml.Unmarshal(data, &role))
	return &role
}
