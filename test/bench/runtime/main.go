// Command runtime-bench measures the runtime's generate and AG-UI endpoints against a floor: a
// minimal echo server that makes the same streaming openai-go call to the same scripted model
// and returns its text, and measures what tracing costs (tracing.go). Every server is its own
// process, and with -pin (the default) they run on a CPU of their own while the load (this
// process), the scripted model and the collector share the others.
//
//	go run ./test/bench/runtime [-duration 3s] [-concurrency 1,8,32] [-tracing-rounds 40] [-pin=false]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

const script = `fallback:
  text: "This is a fixed answer of about thirty words from the scripted model, long enough to stream in several chunks through every layer of the runtime and back to the client."
`

const manifest = `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: bench}
spec:
  instructions: You answer briefly.
  model: {name: scripted, maxRetries: 0}
  endpoint:
    rateLimit: {requestsPerMinute: 0}
`

func main() {
	if len(os.Args) > 2 && os.Args[1] == "serve-floor" {
		serveFloor(os.Args[2], os.Args[3])
		return
	}
	duration := flag.Duration("duration", 3*time.Second, "measuring time per cell")
	levels := flag.String("concurrency", "1,8,32", "concurrency levels")
	before := flag.String("before", "", "an agentry binary of an earlier version, measured beside this one in the same rounds (make bench: the runtime before openai-go)")
	flag.IntVar(&abRounds, "tracing-rounds", 40, "rounds of the tracing cost's paired measurement (each a quarter of -duration per runtime)")
	pin := flag.Bool("pin", true, "give the servers under test a CPU of their own (taskset), the load, the model and the collector the others")
	flag.Parse()
	if *pin {
		if err := pinSelf(); err != nil {
			fmt.Fprintln(os.Stderr, "bench: not pinning:", err)
			*pin = false
		}
	}
	if err := run(*duration, *levels, *before, *pin); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

var abRounds int

type proc struct {
	*testutil.Proc
	addr string
}

// start runs a command and waits for a line matching ready; the first group is the address.
// place prefixes the command (taskset, which execs it: the pid is the server's).
func start(place []string, name string, env []string, ready string, args ...string) (*proc, error) {
	argv := append(append(append([]string{}, place...), name), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	p, addr, err := testutil.Launch(cmd, ready, 60*time.Second, nil)
	if err != nil {
		return nil, err
	}
	return &proc{p, addr}, nil
}

func (p *proc) server() server { return server{p.addr, p.Cmd.Process.Pid} }

// pinEnv marks the bench process once it runs on the load's CPUs.
const pinEnv = "AGENTRY_BENCH_PINNED"

// cpuLists splits the machine: the servers under test on the last CPU, everything else (this
// process's load, the scripted model, the collector) on the others. A runtime's throughput is
// then its own, as in a pod with a CPU of its own, and not what is left of two shared cores
// after the load and the collector took theirs.
func cpuLists() (servers, others string, err error) {
	n := testutil.NumCPU()
	if n < 2 {
		return "", "", fmt.Errorf("%d CPU", n)
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		return "", "", err
	}
	return strconv.Itoa(n - 1), fmt.Sprintf("0-%d", n-2), nil
}

// pinSelf runs this process again on the others' CPUs (taskset execs it: every thread inherits).
func pinSelf() error {
	if os.Getenv(pinEnv) != "" {
		return nil
	}
	_, others, err := cpuLists()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	taskset, _ := exec.LookPath("taskset")
	return syscall.Exec(taskset, append([]string{"taskset", "-c", others, self}, os.Args[1:]...), append(os.Environ(), pinEnv+"=1"))
}

func run(duration time.Duration, levels, beforeBin string, pin bool) error {
	var concs []int
	for _, s := range strings.Split(levels, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("bad concurrency %q", s)
		}
		concs = append(concs, n)
	}
	var cpus [2]string // the servers', the others'
	var onServers, onOthers []string
	if pin {
		cpus[0], cpus[1], _ = cpuLists()
		onServers, onOthers = []string{"taskset", "-c", cpus[0]}, []string{"taskset", "-c", cpus[1]}
	}
	dir, err := os.MkdirTemp("", "agentry-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var ps servers
	defer ps.stop()
	if err := ps.start(dir, beforeBin, onServers, onOthers); err != nil {
		return err
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}}
	body := `{"messages":[{"id":"u1","role":"user","content":"Say something short."}]}`
	targets := ps.targets()
	sent := map[string]int{} // every request, warm-up and failed ones too (each is a run with its spans)
	colStart := cpuTime(ps.col.Cmd.Process.Pid)
	results := measureTargets(client, targets, body, concs, duration, sent)
	printResults(results, targets, concs, duration, pin, cpus)
	ps.printAfter(results, concs)

	busiest := slices.Max(concs)
	authCost(client, ps.auth.server(), ps.token, ps.fresh, body, busiest, 10, duration/3)
	abSent, _ := tracingCost(client, ps.runtime.server(), ps.traced.server(), ps.control.server(), body, busiest, abRounds, duration/4)
	tracedSent := sent["generate (traced)"] + sent["ag-ui (traced)"] + abSent
	// The traced runtime flushes its last batch when it stops; the collector writes its file
	// every 100 ms.
	ps.traced.Stop()
	time.Sleep(2 * time.Second)
	fmt.Printf("Collector CPU per traced request (receiving and writing its spans to a file; not on the runtimes' CPU when pinned): %.0f µs\n",
		perRequest(cpuTime(ps.col.Cmd.Process.Pid)-colStart, tracedSent))
	// Every run is an invoke_agent and a chat span: a batch the SDK dropped (its queue full)
	// would make tracing look cheaper than it is.
	got, err := countSpans(filepath.Join(dir, "traces.jsonl"))
	verdict := "all exported"
	if err != nil || got != 2*tracedSent {
		verdict = "SPANS LOST"
	}
	fmt.Printf("Spans the collector received: %d of %d (%s)\n", got, 2*tracedSent, verdict)
	return nil
}

// servers are the bench's processes: the scripted model, the runtime, the runtime before
// (with -before), the collector, the runtime exporting its traces to it and another without,
// the control of the tracing cost, and the floor.
type servers struct {
	model, runtime, before, col, traced, control, floor, auth *proc
	// token is a bearer JWT the bench-jwt agent accepts; fresh are as many others.
	token string
	fresh []string
}

// start builds agentry into dir and starts the servers, the ones under test with onServers,
// the others with onOthers.
func (ps *servers) start(dir, beforeBin string, onServers, onOthers []string) error {
	bin, removeBin, err := testutil.BuildBinary(".")
	if err != nil {
		return err
	}
	defer removeBin()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	_ = os.WriteFile(filepath.Join(dir, "script.yaml"), []byte(script), 0o600)
	_ = os.MkdirAll(filepath.Join(dir, "config"), 0o700)
	_ = os.WriteFile(filepath.Join(dir, "config", "agent.yaml"), []byte(manifest), 0o600)
	if ps.token, ps.fresh, err = writeAuthConfig(dir); err != nil {
		return err
	}
	if ps.model, err = start(onOthers, bin, nil, `listening on (http://\S+)`, "scripted-model", "--addr", "127.0.0.1:0", "--script", filepath.Join(dir, "script.yaml")); err != nil {
		return err
	}
	runtimeWith := func(bin, config string, env ...string) (*proc, error) {
		args := []string{"serve", "--config", filepath.Join(dir, config), "--addr", "127.0.0.1:0"}
		if config == "config-auth" {
			args = append(args, "--secrets-dir", filepath.Join(dir, "secrets"))
		}
		return start(onServers, bin, append([]string{"OPENAI_BASE_URL=" + ps.model.addr, "OPENAI_API_KEY=bench"}, env...), `msg="serving agents" addr=(\S+)`, args...)
	}
	runtime := func(bin string, env ...string) (*proc, error) { return runtimeWith(bin, "config", env...) }
	if ps.runtime, err = runtime(bin); err != nil {
		return err
	}
	// The auth cost's runtime: the bench agent and the same behind headers and behind JWTs.
	if ps.auth, err = runtimeWith(bin, "config-auth"); err != nil {
		return err
	}
	if beforeBin != "" {
		if ps.before, err = runtime(beforeBin); err != nil {
			return err
		}
	}
	// The same runtime exporting every trace to a real collector (tracing on costs ≤ 5 %: the goal).
	colBin, err := testutil.CollectorBinary(".")
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	colPort := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	_ = os.WriteFile(filepath.Join(dir, "otelcol.yaml"), []byte(testutil.CollectorConfig(colPort, filepath.Join(dir, "traces.jsonl"))), 0o600)
	if ps.col, err = start(onOthers, colBin, nil, `(Everything is ready)`, "--config", "file:"+filepath.Join(dir, "otelcol.yaml")); err != nil {
		return err
	}
	if ps.traced, err = runtime(bin, fmt.Sprintf("OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:%d", colPort)); err != nil {
		return err
	}
	if ps.control, err = runtime(bin); err != nil {
		return err
	}
	ps.floor, err = start(onServers, self, nil, `floor listening on (\S+)`, "serve-floor", "127.0.0.1:0", ps.model.addr)
	return err
}

// stop stops the servers started, the last first.
func (ps *servers) stop() {
	for _, p := range []*proc{ps.auth, ps.floor, ps.control, ps.traced, ps.col, ps.before, ps.runtime, ps.model} {
		if p != nil {
			p.Stop()
		}
	}
}

// target is an endpoint measured; an answer counts when it is complete: it holds the marker
// (the full text, or the AG-UI stream's last event).
type target struct {
	name, url, marker string
}

func (ps *servers) targets() []target {
	targets := []target{
		{"floor", "http://" + ps.floor.addr + "/floor", "thirty words"},
		{"generate", "http://" + ps.runtime.addr + "/api/agents/bench/generate", "thirty words"},
		{"ag-ui", "http://" + ps.runtime.addr + "/api/agents/bench/ag-ui", `"type":"RUN_FINISHED"`},
		{"generate (traced)", "http://" + ps.traced.addr + "/api/agents/bench/generate", "thirty words"},
		{"ag-ui (traced)", "http://" + ps.traced.addr + "/api/agents/bench/ag-ui", `"type":"RUN_FINISHED"`},
	}
	if ps.before != nil {
		targets = append(targets,
			target{"generate (before)", "http://" + ps.before.addr + "/api/agents/bench/generate", "thirty words"},
			target{"ag-ui (before)", "http://" + ps.before.addr + "/api/agents/bench/ag-ui", `"type":"RUN_FINISHED"`})
	}
	return targets
}

type cell struct {
	rps      float64
	p50, p99 time.Duration
	errors   int
}

// measureTargets measures every target at every concurrency for duration, and counts the
// requests sent to each in sent.
//
// Targets take turns in short rounds, so a drift of the machine (GC, caches, the other
// processes) affects them alike instead of whichever happened to run last, and each round
// starts one target further on: a target's place in the round (which one ran just before it)
// was worth about 2 % in an A/A run of two identical runtimes.
func measureTargets(client *http.Client, targets []target, body string, concs []int, duration time.Duration, sent map[string]int) map[string]map[int]cell {
	const rounds = 5
	results := map[string]map[int]cell{}
	for _, c := range concs {
		lats := map[string][]time.Duration{}
		errs := map[string]int{}
		elapsed := map[string]time.Duration{}
		for _, t := range targets {
			lat, e, _ := load(client, t.url, t.marker, body, c, duration/5) // warm up
			sent[t.name] += len(lat) + e
		}
		for r := 0; r < rounds; r++ {
			for i := range targets {
				t := targets[(r+i)%len(targets)]
				lat, e, el := load(client, t.url, t.marker, body, c, duration/rounds)
				sent[t.name] += len(lat) + e
				lats[t.name] = append(lats[t.name], lat...)
				errs[t.name] += e
				elapsed[t.name] += el
			}
		}
		for _, t := range targets {
			if results[t.name] == nil {
				results[t.name] = map[int]cell{}
			}
			lat := lats[t.name]
			results[t.name][c] = cell{rps: float64(len(lat)) / elapsed[t.name].Seconds(), p50: testutil.Percentile(lat, 50), p99: testutil.Percentile(lat, 99), errors: errs[t.name]}
		}
	}
	return results
}

// printResults prints the table of every target against the floor.
func printResults(results map[string]map[int]cell, targets []target, concs []int, duration time.Duration, pin bool, cpus [2]string) {
	fmt.Printf("\nRuntime benchmark: scripted model with zero delay, %s per cell, %d cores\n", duration, testutil.NumCPU())
	if pin {
		fmt.Printf("Servers under test on CPU %s; the load, the scripted model and the collector on CPU %s\n", cpus[0], cpus[1])
	} else {
		fmt.Println("Every process shares every CPU")
	}
	fmt.Println()
	fmt.Printf("| endpoint | c | req/s | p50 | p99 | p50 / floor p50 | req/s / floor req/s | errors |\n|---|---|---|---|---|---|---|---|\n")
	for _, c := range concs {
		f := results["floor"][c]
		for _, t := range targets {
			r := results[t.name][c]
			fmt.Printf("| %s | %d | %.0f | %s | %s | %.2f× | %.2f× | %d |\n", t.name, c, r.rps, ms(r.p50), ms(r.p99),
				float64(r.p50)/float64(f.p50), r.rps/f.rps, r.errors)
		}
	}
}

// printAfter prints the runtime's memory after the run (and the runtime before's, with the
// throughputs compared), and AG-UI's latency against the floor's at c=32.
func (ps *servers) printAfter(results map[string]map[int]cell, concs []int) {
	cur, peak, _ := testutil.RSS(strconv.Itoa(ps.runtime.Cmd.Process.Pid))
	fmt.Printf("\nRuntime RSS after the run: %.1f MiB (peak %.1f MiB)\n", cur, peak)
	if ps.before != nil {
		cur, peak, _ := testutil.RSS(strconv.Itoa(ps.before.Cmd.Process.Pid))
		fmt.Printf("Before: %.1f MiB (peak %.1f MiB)\n", cur, peak)
		for _, c := range concs {
			for _, ep := range []string{"generate", "ag-ui"} {
				now, was := results[ep][c], results[ep+" (before)"][c]
				if was.rps > 0 {
					fmt.Printf("Throughput %s at c=%d: %.0f req/s now, %.0f before (%.2f×)\n", ep, c, now.rps, was.rps, now.rps/was.rps)
				}
			}
		}
	}
	if f, a := results["floor"][32], results["ag-ui"][32]; f.p50 > 0 && a.p50 > 0 {
		ratio := float64(a.p50) / float64(f.p50)
		verdict := "within"
		if ratio > 1.5 {
			verdict = "OUTSIDE"
		}
		fmt.Printf("Target: AG-UI p50 at c=32 within 1.5× of the floor: %.2f× (%s)\n", ratio, verdict)
	}
}

// cpuTime is the user and system CPU time a process has used so far (0 when it cannot be read).
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces) start at the last ')'.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticks
}

func perRequest(d time.Duration, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(d.Microseconds()) / float64(n)
}

// load sends requests from c workers for d and returns the latencies of the successful ones
// (until the whole body is read), the error count and the elapsed time.
func load(client *http.Client, url, marker, body string, c int, d time.Duration) ([]time.Duration, int, time.Duration) {
	return loadWith(client, url, marker, body, nil, c, d)
}

// loadWith is load sending authorization() as each request's Authorization header (nil or "":
// none).
func loadWith(client *http.Client, url, marker, body string, authorization func() string, c int, d time.Duration) ([]time.Duration, int, time.Duration) {
	var mu sync.Mutex
	var lat []time.Duration
	errs := 0
	deadline := time.Now().Add(d)
	begin := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < c; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				t0 := time.Now()
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				if authorization != nil {
					if a := authorization(); a != "" {
						req.Header.Set("Authorization", a)
					}
				}
				resp, err := client.Do(req)
				ok := err == nil && resp.StatusCode == 200
				if err == nil {
					data, rerr := io.ReadAll(resp.Body)
					resp.Body.Close()
					ok = ok && rerr == nil && bytes.Contains(data, []byte(marker))
				}
				el := time.Since(t0)
				mu.Lock()
				if ok {
					lat = append(lat, el)
				} else {
					errs++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return lat, errs, time.Since(begin)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// serveFloor is the floor: an echo handler that makes the same streaming model call and
// returns its text, with nothing else (no validation, no loop, no events).
func serveFloor(addr, modelURL string) {
	// The runtime's pool: connections to the model kept open for concurrent calls.
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	client := openai.NewClient(option.WithBaseURL(modelURL), option.WithAPIKey("bench"), option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: t}))
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.POST("/floor", func(c echo.Context) error {
		var req struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(c.Request().Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			return c.JSON(http.StatusBadRequest, map[string]string{"error": "bad request"})
		}
		stream := client.Chat.Completions.NewStreaming(c.Request().Context(), openai.ChatCompletionNewParams{
			Model:    "scripted",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("You answer briefly."), openai.UserMessage(req.Messages[0].Content)},
		})
		defer stream.Close()
		var text strings.Builder
		for stream.Next() {
			for _, ch := range stream.Current().Choices {
				text.WriteString(ch.Delta.Content)
			}
		}
		if err := stream.Err(); err != nil {
			return c.JSON(http.StatusInternalServerError, map[string]string{"error": err.Error()})
		}
		return c.JSON(http.StatusOK, map[string]string{"text": text.String()})
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("floor listening on %s\n", ln.Addr())
	e.Listener = ln
	ctx, stop := signalContext()
	defer stop()
	go func() { <-ctx.Done(); _ = e.Close() }()
	_ = e.Start("")
}

func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}
