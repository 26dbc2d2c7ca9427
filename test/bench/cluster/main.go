// Command cluster measures Agentry on a real one-node cluster (test/cluster): how long the
// cluster takes to come up, helm install to the operator Ready, kubectl apply of the samples to
// every sample Agent Available, an agent pod's creation to Ready, and each pod's resident memory
// as its cgroup reports it. Run by make bench (hack/bench.sh) with the same environment as
// make test-cluster.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/agentry-dev/agentry/test/cluster"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "cluster bench:", err)
		os.Exit(1)
	}
}

type row struct{ measure, result, goal, verdict string }

func run() error {
	ctx := context.Background()
	start := time.Now()
	c, err := cluster.Start(ctx, cluster.Options{Assets: os.Getenv("KUBEBUILDER_ASSETS"), Node: os.Getenv("AGENTRY_CLUSTER_NODE"),
		Images: strings.Fields(os.Getenv("AGENTRY_IMAGES")), Log: os.Stderr})
	if err != nil {
		return err
	}
	defer func() {
		if err := c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "cleanup:", err)
		}
	}()
	up := time.Since(start)
	rows := []row{{"cluster up (etcd … CoreDNS ready, images imported)", dur(up), "—", ""}}

	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	pollCtx, stopPoll := context.WithCancel(ctx)
	defer stopPoll()
	times := pollPods(pollCtx, cs)
	deployed, err := deploy(ctx, c)
	if err != nil {
		return err
	}
	rows = append(rows, deployed...)
	time.Sleep(10 * time.Second) // old pods gone, memory settled

	pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "status.phase=Running"})
	if err != nil {
		return err
	}
	rows = append(rows, times.rows(pods.Items)...)
	rows = append(rows, memoryRows(pods.Items)...)
	fmt.Println()
	fmt.Println("| measure | result | goal | |")
	fmt.Println("|---|---|---|---|")
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s | %s |\n", r.measure, r.result, r.goal, r.verdict)
	}
	return nil
}

// podTimes are every pod's creation and Ready as first seen by a 100 ms poll (a watch opened
// this early can end at once while the apiserver's watch cache warms up).
type podTimes struct {
	mu             sync.Mutex
	created, ready map[string]time.Time
}

// pollPods polls the cluster's pods until ctx ends.
func pollPods(ctx context.Context, cs kubernetes.Interface) *podTimes {
	pt := &podTimes{created: map[string]time.Time{}, ready: map[string]time.Time{}}
	go func() {
		for ctx.Err() == nil {
			list, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
			now := time.Now()
			if err == nil {
				pt.mu.Lock()
				for _, p := range list.Items {
					key := p.Namespace + "/" + p.Name
					if _, seen := pt.created[key]; !seen {
						pt.created[key] = now
					}
					for _, cond := range p.Status.Conditions {
						if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
							if _, seen := pt.ready[key]; !seen {
								pt.ready[key] = now
							}
						}
					}
				}
				pt.mu.Unlock()
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	return pt
}

// rows are the agent pods' times from creation to Ready.
func (pt *podTimes) rows(pods []corev1.Pod) []row {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	var rows []row
	for _, p := range pods {
		if a := p.Labels["agentry.dev/agent"]; a != "" {
			key := p.Namespace + "/" + p.Name
			if c, r := pt.created[key], pt.ready[key]; !c.IsZero() && !r.IsZero() {
				rows = append(rows, row{"agent pod " + a + ": created → Ready", dur(r.Sub(c)), "—", ""})
			}
		}
	}
	return rows
}

// deploy installs the chart, the scripted model and the samples (pointed at it) as the README
// says, and measures the install and the samples' rollout.
func deploy(ctx context.Context, c *cluster.Cluster) ([]row, error) {
	repo, _ := filepath.Abs("../..")
	if _, err := os.Stat(filepath.Join(repo, "charts")); err != nil {
		repo, _ = os.Getwd()
	}
	sh := func(line string) error {
		cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-ec", line)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %w\n%s", line, err, out)
		}
		return nil
	}
	readyReplicas := func(what string, within time.Duration, args ...string) error {
		return c.Wait(ctx, within, what, func() (bool, error) {
			out, _ := c.Kubectl(ctx, append(args, "-o", "jsonpath={.status.readyReplicas}")...)
			return strings.TrimSpace(out) == "1", nil
		})
	}
	t0 := time.Now()
	if err := sh("helm install agentry charts/agentry --namespace agentry-system --create-namespace"); err != nil {
		return nil, err
	}
	if err := readyReplicas("operator ready", 3*time.Minute, "-n", "agentry-system", "get", "deployment", "agentry-operator"); err != nil {
		return nil, err
	}
	rows := []row{{"helm install → operator Ready", dur(time.Since(t0)), "—", ""}}

	image, err := c.Kubectl(ctx, "-n", "agentry-system", "get", "deployment", "agentry-operator", "-o", "jsonpath={.spec.template.spec.containers[0].image}")
	if err != nil {
		return nil, err
	}
	if err := c.Apply(ctx, cluster.ScriptedModel(strings.TrimSpace(image))); err != nil {
		return nil, err
	}
	if err := readyReplicas("scripted model ready", 2*time.Minute, "get", "deployment", "scripted-model"); err != nil {
		return nil, err
	}
	if err := sh("kubectl create secret generic openai --from-literal=apiKey=sk-scripted"); err != nil {
		return nil, err
	}
	// The samples as they are, pointed at the scripted model (one apply: one rollout).
	t1 := time.Now()
	if err := sh(`for f in config/samples/*.yaml; do echo ---; sed 's|^  model: gpt-4o-mini$|  model: gpt-4o-mini\n  baseURL: http://scripted-model.default.svc.cluster.local:8090/v1|' "$f"; done | kubectl apply -f -`); err != nil {
		return nil, err
	}
	agents := []string{"chef", "weather"}
	if err := c.Wait(ctx, 3*time.Minute, "every sample Agent Available", func() (bool, error) {
		for _, a := range agents {
			out, _ := c.Kubectl(ctx, "get", "agent", a, "-o", `jsonpath={.status.conditions[?(@.type=="Available")].status}`)
			if strings.TrimSpace(out) != "True" {
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		return nil, err
	}
	apply := time.Since(t1)
	rows = append(rows, row{"kubectl apply -f config/samples/ → every sample Agent Available", dur(apply), "≤ 30 s", verdict(apply <= 30*time.Second)})
	for _, a := range agents {
		if _, err := c.Kubectl(ctx, "rollout", "status", "deployment/agentry-"+a, "--timeout=120s"); err != nil {
			return nil, err
		}
		rs, _ := c.Kubectl(ctx, "get", "replicasets", "-l", "agentry.dev/agent="+a, "-o", "name")
		// kubectl applies the files in name order: an Agent before the Tools it names, so its
		// first revision runs without them and the next one with them.
		rows = append(rows, row{"agent " + a + ": Deployment revisions after the apply", strconv.Itoa(len(strings.Fields(rs))), "—", ""})
	}
	return rows, nil
}

// memoryRows are the running pods' memory as their cgroups report it.
func memoryRows(pods []corev1.Pod) []row {
	var rows []row
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		rss, ws, err := podMemory(p)
		if err != nil {
			fmt.Fprintf(os.Stderr, "cluster bench: %s/%s: %v\n", p.Namespace, p.Name, err)
			continue
		}
		name := p.Labels["agentry.dev/agent"]
		switch {
		case name != "":
			name = "agent " + name + " (agentry-runtime)"
		case p.Namespace == "agentry-system":
			name = "operator"
		case p.Namespace == "kube-system":
			name = "CoreDNS"
		default:
			name = p.Labels["app"]
		}
		rows = append(rows, row{"pod " + name + ": RSS / working set (cgroup)", fmt.Sprintf("%.1f MiB / %.1f MiB", float64(rss)/(1<<20), float64(ws)/(1<<20)), "—", ""})
	}
	return rows
}

func dur(d time.Duration) string { return d.Round(10 * time.Millisecond).String() }

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// podMemory reads a pod's cgroup in the v1 memory hierarchy, where the kubelet (cgroupfs
// driver) placed it: RSS (anonymous memory, total_rss) and the working set the kubelet reports
// and evicts by (usage minus inactive page cache).
func podMemory(p corev1.Pod) (rss, workingSet int64, err error) {
	qos := map[corev1.PodQOSClass]string{corev1.PodQOSGuaranteed: "", corev1.PodQOSBurstable: "burstable", corev1.PodQOSBestEffort: "besteffort"}[p.Status.QOSClass]
	dir := filepath.Join("/sys/fs/cgroup/memory/kubepods", qos, "pod"+string(p.UID))
	stat, err := os.ReadFile(filepath.Join(dir, "memory.stat"))
	if err != nil {
		return 0, 0, err
	}
	usage, err := os.ReadFile(filepath.Join(dir, "memory.usage_in_bytes"))
	if err != nil {
		return 0, 0, err
	}
	var inactive int64
	for _, line := range strings.Split(string(stat), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		switch f[0] {
		case "total_rss":
			rss, _ = strconv.ParseInt(f[1], 10, 64)
		case "total_inactive_file":
			inactive, _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	u, _ := strconv.ParseInt(strings.TrimSpace(string(usage)), 10, 64)
	return rss, u - inactive, nil
}
