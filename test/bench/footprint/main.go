// Command footprint-bench measures what one agent runtime pod costs: the release binary the
// pod image carries, the runtime's resident memory idle and after a load of generate
// requests, and the time from exec to a ready /readyz. Every Agent is a Deployment of its own,
// so these numbers are paid once per Agent (see docs/runtime-footprint.md).
//
// The runtime serves the two sample agents (chef, weather) as the operator renders them into
// their ConfigMaps, with the arguments the operator gives the pod; `agentry serve` on the
// hand-written samples (full CRD validation, as on a laptop) is measured beside it.
//
//	go run ./test/bench/footprint [-requests 10000] [-concurrency 4] [-starts 10]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/agentry-dev/agentry/controllers/render"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/protocol/manifest"
	"github.com/agentry-dev/agentry/internal/protocol/manifest/decode"
	"github.com/agentry-dev/agentry/runtime/memlimit"
)

const script = `fallback:
  text: "This is a fixed answer of about thirty words from the scripted model, long enough to stream in several chunks through every layer of the runtime and back to the client."
`

// Issue 14's baseline, e703492 (one binary validating every config): 102.7 MB, 67.0 MiB idle,
// 76.7 MiB loaded, 122 ms.

// Goals of issue 20 (openai-go in the runtime, its cost paid back where possible).
const (
	goalBinaryBytes = 45_000_000
	goalIdleMiB     = 33
	goalLoadedMiB   = 40
	goalStart       = 150 * time.Millisecond
)

func main() {
	requests := flag.Int("requests", 10000, "generate requests of the load")
	concurrency := flag.Int("concurrency", 4, "concurrent clients of the load")
	starts := flag.Int("starts", 10, "starts measured (the median is reported; at least 3)")
	baseline := flag.String("baseline", "", "measure this agentry binary the way main ran pods (no --prevalidated) and print its numbers only")
	beforeSrc := flag.String("before", "", "a checkout of an earlier version (make bench: the runtime before openai-go): its two binaries are built and measured beside this one's")
	renderOnly := flag.String("render", "", "only write the samples as the operator renders them into this directory")
	flag.Parse()
	if *renderOnly != "" {
		if err := renderSamples("config/samples", *renderOnly); err != nil {
			fmt.Fprintln(os.Stderr, "footprint:", err)
			os.Exit(1)
		}
		return
	}
	b := &bench{requests: *requests, concurrency: *concurrency, starts: max(*starts, idleSamples), beforeSrc: *beforeSrc}
	if err := b.run(*baseline); err != nil {
		fmt.Fprintln(os.Stderr, "footprint:", err)
		os.Exit(1)
	}
}

type bench struct {
	requests, concurrency, starts int
	beforeSrc                     string
	dir                           string
	modelURL                      string
}

// rss is a process's resident memory in MiB: total (VmRSS), anonymous (heap, stacks, data)
// and file-backed (the binary's pages it touched).
type rss struct{ total, anon, file float64 }

type measurement struct {
	binary     int64
	idle       rss
	loaded     rss
	peak       float64
	start      time.Duration
	startRange [2]time.Duration
}

// release builds the source in dir like `make build` (and so `make images` and the Dockerfile).
func release(dir, out, pkg string, tags ...string) error {
	args := []string{"build", "-trimpath", "-ldflags", "-s -w", "-o", out}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", pkg, err)
	}
	return nil
}

func (b *bench) run(baseline string) error {
	dir, err := os.MkdirTemp("", "agentry-footprint")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	b.dir = dir
	agentry, runtimeBin := baseline, baseline
	if baseline == "" {
		agentry, runtimeBin = filepath.Join(dir, "agentry"), filepath.Join(dir, "agentry-runtime")
		if err := release(".", agentry, "."); err != nil {
			return err
		}
		if err := release(".", runtimeBin, ".", testutil.RuntimeBuildTags); err != nil {
			return err
		}
	}
	rendered := filepath.Join(dir, "rendered")
	if err := renderSamples("config/samples", rendered); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "script.yaml"), []byte(script), 0o600); err != nil {
		return err
	}
	model, modelURL, err := testutil.Launch(exec.Command(agentry, "scripted-model", "--addr", "127.0.0.1:0", "--script", filepath.Join(dir, "script.yaml")),
		`listening on (http://\S+)`, 30*time.Second, nil)
	if err != nil {
		return err
	}
	defer model.Stop()
	b.modelURL = modelURL

	// What the rendered Deployment passes (controllers/render.DeploymentFor), on a free port:
	// its args and its env (a binary of main ignores the env: it validated with the CRDs).
	podArgs := []string{"serve", "--config", rendered, "--secrets-dir", filepath.Join(dir, "secrets"), "--log-format", "json"}
	limit := resource.MustParse(render.DefaultMemoryLimit)
	podEnv := []string{decode.PrevalidatedEnv + "=true", fmt.Sprintf("%s=%d", memlimit.Env, limit.Value())}
	devArgs := []string{"serve", "--config", "config/samples", "--secrets-dir", filepath.Join(dir, "secrets")}
	pod, err := b.measure(runtimeBin, podArgs, podEnv)
	if err != nil {
		return fmt.Errorf("runtime pod: %w", err)
	}
	dev, err := b.measure(agentry, devArgs, nil)
	if err != nil {
		return fmt.Errorf("agentry serve: %w", err)
	}
	pod.binary = fileSize(runtimeBin)
	dev.binary = fileSize(agentry)
	var podBefore, devBefore *measurement
	if b.beforeSrc != "" {
		if podBefore, devBefore, err = b.measureBefore(podArgs, podEnv, devArgs); err != nil {
			return fmt.Errorf("before (%s): %w", b.beforeSrc, err)
		}
	}

	cpus := testutil.NumCPU()
	if baseline != "" {
		fmt.Printf("\nBaseline %s, %d cores\n\n", baseline, cpus)
		fmt.Printf("pod: %#v\ndev: %#v\n", pod, dev)
		return nil
	}
	fmt.Printf("\nRuntime footprint: one runtime process serving the two sample agents (chef, weather), %d cores.\n", cpus)
	fmt.Printf("Load: %d generate requests on %d connections for %d users, against the scripted model. RSS = VmRSS (anonymous + file-backed pages).\n", b.requests, b.concurrency, clients)
	fmt.Printf("\nRuntime pod: the runtime build (-tags %s, the agentry-runtime image) serving the samples as the operator renders them, with the rendered Deployment's args and env\n\n", testutil.RuntimeBuildTags)
	printTable(podBefore, pod, true, b.requests, b.starts)
	fmt.Printf("\nOn a laptop: agentry serve on the hand-written samples (full CRD schema and CEL validation; the agentry binary)\n\n")
	printTable(devBefore, dev, false, b.requests, b.starts)
	return nil
}

// measureBefore builds the earlier version's two binaries and measures them as this one's.
func (b *bench) measureBefore(podArgs, podEnv, devArgs []string) (*measurement, *measurement, error) {
	agentry, runtimeBin := filepath.Join(b.dir, "agentry-before"), filepath.Join(b.dir, "agentry-runtime-before")
	if err := release(b.beforeSrc, agentry, "."); err != nil {
		return nil, nil, err
	}
	if err := release(b.beforeSrc, runtimeBin, ".", testutil.RuntimeBuildTags); err != nil {
		return nil, nil, err
	}
	pod, err := b.measure(runtimeBin, podArgs, podEnv)
	if err != nil {
		return nil, nil, fmt.Errorf("runtime pod: %w", err)
	}
	dev, err := b.measure(agentry, devArgs, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("agentry serve: %w", err)
	}
	pod.binary, dev.binary = fileSize(runtimeBin), fileSize(agentry)
	return &pod, &dev, nil
}

// printTable prints now's numbers beside was's (nil: no earlier version was measured).
func printTable(was *measurement, now measurement, goals bool, requests, starts int) {
	verdict := func(ok bool) string {
		if !goals {
			return "—"
		}
		if ok {
			return "met"
		}
		return "NOT MET"
	}
	goal := func(s string) string {
		if !goals {
			return "—"
		}
		return s
	}
	old := func(f func(m measurement) string) string {
		if was == nil {
			return "not measured"
		}
		return f(*was)
	}
	fmt.Printf("| measure | before | now | goal | |\n|---|---|---|---|---|\n")
	fmt.Printf("| release binary (-trimpath -s -w) | %s | %.1f MB | %s | %s |\n", old(func(m measurement) string { return fmt.Sprintf("%.1f MB", mb(m.binary)) }),
		mb(now.binary), goal(fmt.Sprintf("≤ %d MB", goalBinaryBytes/1_000_000)), verdict(now.binary <= goalBinaryBytes))
	fmt.Printf("| RSS idle (3 s after ready, median of %d) | %s | %s | %s | %s |\n", idleSamples, old(func(m measurement) string { return m.idle.String() }),
		now.idle, goal(fmt.Sprintf("≤ %d MiB", goalIdleMiB)), verdict(now.idle.total <= goalIdleMiB))
	fmt.Printf("| RSS after %d generate requests | %s | %s | %s | %s |\n", requests, old(func(m measurement) string { return m.loaded.String() }),
		now.loaded, goal(fmt.Sprintf("≤ %d MiB", goalLoadedMiB)), verdict(now.loaded.total <= goalLoadedMiB))
	fmt.Printf("| peak RSS (VmHWM) | %s | %.1f MiB | — | |\n", old(func(m measurement) string { return fmt.Sprintf("%.1f MiB", m.peak) }), now.peak)
	fmt.Printf("| start to ready, median of %d | %s | %s (%s–%s) | %s | %s |\n", starts, old(func(m measurement) string { return msec(m.start) }),
		msec(now.start), msec(now.startRange[0]), msec(now.startRange[1]), goal(fmt.Sprintf("≤ %s", msec(goalStart))), verdict(now.start <= goalStart))
}

func (r rss) String() string {
	return fmt.Sprintf("%.1f MiB (anon %.1f + file %.1f)", r.total, r.anon, r.file)
}

func mb(n int64) float64 { return float64(n) / 1e6 }

func msec(d time.Duration) string {
	return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
}

func fileSize(p string) int64 {
	info, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return info.Size()
}

// idleSamples is how many of the starts also measure the idle memory (the median is reported).
const idleSamples = 3

// measure starts the runtime b.starts times for the start time (the first idleSamples of them
// idle for a while for the memory), then once more for the memory after the load.
func (b *bench) measure(bin string, args, env []string) (measurement, error) {
	var m measurement
	var starts []time.Duration
	var idle []rss
	for i := 0; i < b.starts; i++ {
		p, err := b.start(bin, args, env)
		if err != nil {
			return m, err
		}
		starts = append(starts, p.ready)
		if i < idleSamples {
			// Idle: what a pod holds between conversations, once start-up garbage had its chance
			// to go.
			time.Sleep(3 * time.Second)
			r, _, err := readRSS(strconv.Itoa(p.Cmd.Process.Pid))
			if err != nil {
				p.Stop()
				return m, err
			}
			idle = append(idle, r)
		}
		p.Stop()
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	m.start = starts[len(starts)/2]
	if len(starts)%2 == 0 {
		m.start = (starts[len(starts)/2-1] + starts[len(starts)/2]) / 2
	}
	m.startRange = [2]time.Duration{starts[0], starts[len(starts)-1]}
	sort.Slice(idle, func(i, j int) bool { return idle[i].total < idle[j].total })
	m.idle = idle[len(idle)/2]

	p, err := b.start(bin, args, env)
	if err != nil {
		return m, err
	}
	defer p.Stop()
	if err := b.load(p.addr); err != nil {
		return m, err
	}
	time.Sleep(time.Second)
	if m.loaded, m.peak, err = readRSS(strconv.Itoa(p.Cmd.Process.Pid)); err != nil {
		return m, err
	}
	return m, nil
}

// renderSamples writes each sample Agent's config the way the operator renders it into the
// Agent's ConfigMap (controllers/render.ConfigYAML), one file per Agent.
func renderSamples(samples, out string) error {
	loader, err := manifest.NewLoader()
	if err != nil {
		return err
	}
	set, err := loader.LoadPath(context.Background(), samples)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o700); err != nil {
		return err
	}
	for _, a := range set.Agents {
		r := render.FromSet(set, a)
		config, err := render.ConfigYAML(r)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, a.Name+".yaml"), config, 0o600); err != nil {
			return err
		}
	}
	return nil
}
