// Command operator-bench creates 1,000 Agents with 2 Tools each on envtest (a real
// kube-apiserver and etcd) and measures how long the operator takes until every Agent has its
// ConfigMap, Deployment and Service and a current observedGeneration; it prints reconciles per
// second and the operator process's memory.
//
//	go run ./test/bench/operator [-agents 1000]
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	restclient "k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers"
	"github.com/agentry-dev/agentry/controllers/render"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

func main() {
	agents := flag.Int("agents", 1000, "number of Agents (each with 2 Tools)")
	workers := flag.Int("reconcilers", 4, "MaxConcurrentReconciles")
	flag.Parse()
	if err := run(*agents, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(n, workers int) error {
	env, err := newEnvtest()
	if err != nil {
		return err
	}
	cfg, err := env.Start()
	if err != nil {
		return err
	}
	defer func() { _ = env.Stop() }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	mgr, err := controllers.NewManager(ctx, cfg, controllers.Options{Render: render.Config{RuntimeImage: "agentry:bench"}, MaxConcurrentReconciles: workers})
	if err != nil {
		return err
	}
	go func() { _ = mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return fmt.Errorf("cache did not sync")
	}
	loader := rest(cfg)
	k8s, err := client.New(loader, client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		return err
	}
	ns := "bench"
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return err
	}
	runtime.GC()

	start := time.Now()
	if err := createAgents(ctx, k8s, ns, n); err != nil {
		return err
	}
	createdIn := time.Since(start)

	var done int
	for {
		// Poll the operator's own cache: polling the API server would load the machine under test.
		done, err = countDone(ctx, mgr.GetClient(), ns)
		if err != nil {
			return err
		}
		if done == n || time.Since(start) > 10*time.Minute {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	elapsed := time.Since(start)
	reconciles, _ := testutil.ReconcileCount("agent")
	if os.Getenv("BENCH_DEBUG") != "" {
		printObjects(ctx, k8s, ns)
	}
	cur, peak, _ := testutil.RSS("self")
	fmt.Printf("\nOperator benchmark: %d Agents with 2 Tools each on envtest, %d reconcilers, %d cores\n\n", n, workers, runtime.NumCPU())
	fmt.Printf("| measure | value |\n|---|---|\n")
	fmt.Printf("| objects created (Agents + Tools) | %d in %.1f s |\n", n*3, createdIn.Seconds())
	fmt.Printf("| Agents with ConfigMap, Deployment, Service and current observedGeneration | %d/%d after %.1f s |\n", done, n, elapsed.Seconds())
	fmt.Printf("| Agent reconciles | %.0f (%.0f per second) |\n", reconciles, reconciles/elapsed.Seconds())
	fmt.Printf("| operator process RSS (includes this load generator) | %.0f MiB now, %.0f MiB peak |\n", cur, peak)
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	fmt.Printf("\nTargets: ≤ 60 s: %s (%.1f s); ≤ 200 MiB: %s (%.0f MiB peak)\n", verdict(elapsed <= time.Minute && done == n), elapsed.Seconds(), verdict(peak <= 200), peak)
	return nil
}

// newEnvtest is envtest with the CRDs and room for a Service per Agent, its binaries where make
// test puts them; the operator logs only with BENCH_DEBUG.
func newEnvtest() (*envtest.Environment, error) {
	env, err := testutil.NewEnvtest(".")
	if err != nil {
		return nil, err
	}
	if os.Getenv("BENCH_DEBUG") != "" {
		ctrl.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, nil)))
	} else {
		ctrl.SetLogger(logr.Discard())
	}
	// envtest's default Service range (a /24) holds 254 Services; the benchmark needs one per Agent.
	env.ControlPlane.GetAPIServer().Configure().Set("service-cluster-ip-range", "10.96.0.0/16")
	return env, nil
}

// createAgents creates n Agents with their Tools, 16 at a time.
func createAgents(ctx context.Context, k8s client.Client, ns string, n int) error {
	return testutil.Parallel(n, 16, func(i int) error { return createAgent(ctx, k8s, ns, i) })
}

// printObjects prints how many generations the Deployments went through and how many writers
// the ConfigMaps had (BENCH_DEBUG).
func printObjects(ctx context.Context, k8s client.Client, ns string) {
	var deps appsv1.DeploymentList
	_ = k8s.List(ctx, &deps, client.InNamespace(ns))
	gens := map[int64]int{}
	for _, d := range deps.Items {
		gens[d.Generation]++
	}
	var cms corev1.ConfigMapList
	_ = k8s.List(ctx, &cms, client.InNamespace(ns))
	rv := map[string]int{}
	for _, c := range cms.Items {
		rv[fmt.Sprint(len(c.ManagedFields))]++
	}
	fmt.Println("deployment generations:", gens, "configmaps:", len(cms.Items), rv)
}

func rest(cfg *restclient.Config) *restclient.Config {
	c := *cfg
	c.QPS, c.Burst = -1, 0
	return &c
}

func createAgent(ctx context.Context, c client.Client, ns string, i int) error {
	var tools []v1alpha1.AgentTool
	for j := 0; j < 2; j++ {
		id := fmt.Sprintf("tool-%d-%d", i, j)
		t := &v1alpha1.Tool{
			ObjectMeta: metav1.ObjectMeta{Name: id, Namespace: ns},
			Spec: v1alpha1.ToolSpec{
				ID: id, Description: "Benchmark tool.",
				InputSchema: &k8sruntime.RawExtension{Raw: []byte(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
				Execute:     v1alpha1.ToolExecute{CEL: `{"answer": input.q}`},
			},
		}
		if err := c.Create(ctx, t); err != nil {
			return err
		}
		tools = append(tools, v1alpha1.AgentTool{Key: id, ToolRef: &v1alpha1.LocalObjectReference{Name: id}})
	}
	a := &v1alpha1.Agent{
		ObjectMeta: metav1.ObjectMeta{Name: "agent-" + strconv.Itoa(i), Namespace: ns},
		Spec:       v1alpha1.AgentSpec{Instructions: "Benchmark agent.", Model: v1alpha1.ModelSpec{Name: "gpt-4o-mini"}, Tools: tools},
	}
	return c.Create(ctx, a)
}

// countDone counts Agents whose status is current and whose three children exist.
func countDone(ctx context.Context, c client.Client, ns string) (int, error) {
	var agents v1alpha1.AgentList
	if err := c.List(ctx, &agents, client.InNamespace(ns)); err != nil {
		return 0, err
	}
	have := func(list client.ObjectList) (map[string]bool, error) {
		if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
			return nil, err
		}
		out := map[string]bool{}
		switch l := list.(type) {
		case *corev1.ConfigMapList:
			for _, o := range l.Items {
				out[o.Name] = true
			}
		case *appsv1.DeploymentList:
			for _, o := range l.Items {
				out[o.Name] = true
			}
		case *corev1.ServiceList:
			for _, o := range l.Items {
				out[o.Name] = true
			}
		}
		return out, nil
	}
	cms, err := have(&corev1.ConfigMapList{})
	if err != nil {
		return 0, err
	}
	deps, err := have(&appsv1.DeploymentList{})
	if err != nil {
		return 0, err
	}
	svcs, err := have(&corev1.ServiceList{})
	if err != nil {
		return 0, err
	}
	done := 0
	for _, a := range agents.Items {
		name := render.ChildName(a.Name)
		if a.Status.ObservedGeneration == a.Generation && cms[name] && deps[name] && svcs[name] {
			done++
		}
	}
	return done, nil
}
