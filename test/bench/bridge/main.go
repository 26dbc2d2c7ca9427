// Command bridge-bench measures what the chat service's agent bridge adds to calling an AG-UI
// agent directly: time to first text delta and the latency of each relayed event (issue 11's
// goals: ≤ 5 ms added at p50, ≤ 1 ms per event), and runs per second at concurrency 32. It
// prints a markdown table with the goal beside each number; goals are reported, not asserted.
//
//	go run ./test/bench/bridge [-runs 50] [-events 200] [-interval 1ms] [-burst-runs 20]
//	                           [-concurrency 32] [-duration 10s] [-direct-duration 3s]
//	                           [-phases latency,burst,concurrency] [-cpuprofile FILE]
//
// Everything runs in this process, over loopback: a synthetic AG-UI agent that stamps each
// text delta with its send time (one process, one clock), the chat service wired as `agentry
// chat` wires it (SQLite store, hub, bridge, API on a real listener) with the agent configured
// through PUT /chat/v1/agents/{id}, and the clients: an SSE client calling the agent directly,
// and users sending messages over REST and reading their WebSocket. Via chat, the clock starts
// with POST /chat/v1/messages and a delta counts when its agent frame arrives on the socket.
package main

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

type config struct {
	runs, events, burstRuns, concurrency int
	interval, duration, directDuration   time.Duration
	phases                               map[string]bool
	cpuprofile                           string
}

func main() {
	var c config
	flag.IntVar(&c.runs, "runs", 50, "latency runs, each direct and via chat")
	flag.IntVar(&c.events, "events", 200, "text deltas per run")
	flag.DurationVar(&c.interval, "interval", time.Millisecond, "time between the deltas of the latency runs")
	flag.IntVar(&c.burstRuns, "burst-runs", 20, "runs with the deltas back to back, each direct and via chat")
	flag.IntVar(&c.concurrency, "concurrency", 32, "users running back to back in the throughput phase")
	flag.DurationVar(&c.duration, "duration", 10*time.Second, "length of the throughput phase via chat")
	flag.DurationVar(&c.directDuration, "direct-duration", 3*time.Second, "length of the throughput phase direct")
	phases := flag.String("phases", "latency,burst,concurrency", "phases to run")
	flag.StringVar(&c.cpuprofile, "cpuprofile", "", "write a CPU profile of the phases (server and clients) to this file")
	flag.Parse()
	c.phases = map[string]bool{}
	for _, p := range strings.Split(*phases, ",") {
		c.phases[strings.TrimSpace(p)] = true
	}
	if c.runs < 1 || c.events < 1 || c.burstRuns < 1 || c.concurrency < 1 {
		fmt.Fprintln(os.Stderr, "bench: -runs, -events, -burst-runs and -concurrency must be at least 1")
		os.Exit(2)
	}
	testutil.BenchMain(&cleanups, func() error { return run(c) })
}

// ---------------------------------------------------------------------------------------------

type row struct{ metric, direct, chat, added, goal, verdict string }

var rows []row

func report(metric, direct, chat, added, goal string, ok *bool) {
	v := ""
	if ok != nil {
		v = "met"
		if !*ok {
			v = "NOT met"
		}
	}
	rows = append(rows, row{metric, direct, chat, added, goal, v})
	fmt.Fprintf(os.Stderr, "  %s: direct %s, via chat %s, added %s (goal %s) %s\n", metric, direct, chat, added, goal, v)
}

func b(v bool) *bool { return &v }

var progress = testutil.Progress

func run(c config) error {
	began := time.Now()
	dir, err := os.MkdirTemp("", "agentry-bridge-bench")
	if err != nil {
		return err
	}
	cleanups.Add(func() { _ = os.RemoveAll(dir) })
	e, err := setUp(c, dir)
	if err != nil {
		return err
	}
	if c.cpuprofile != "" {
		f, err := os.Create(c.cpuprofile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		cleanups.Add(func() { pprof.StopCPUProfile(); _ = f.Close() })
	}
	for _, p := range []struct {
		name string
		fn   func(*env) error
	}{{"latency", latency}, {"burst", burst}, {"concurrency", concurrency}} {
		if !c.phases[p.name] {
			continue
		}
		if err := p.fn(e); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
	}
	if c.cpuprofile != "" {
		pprof.StopCPUProfile()
	}
	if len(rows) == 0 {
		return errors.New("no phase ran (see -phases)")
	}

	st := e.chat.hub.Stats()
	fmt.Printf("\nBridge benchmark: chat service + agent bridge (SQLite) and a synthetic AG-UI agent in this process, clients over loopback (%d cores), %s in all\n\n", testutil.NumCPU(), time.Since(began).Round(time.Second))
	fmt.Printf("| measure | direct | via chat | added | goal | |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s | %s | %s | %s |\n", r.metric, r.direct, r.chat, r.added, r.goal, r.verdict)
	}
	fmt.Printf("\nERR_AGENT_BUSY retries (answer stored before the run was released): %d; failed runs: %d; ERROR lines logged by the chat service: %d; sockets closed by the server: %d (slow: %d); agent frames queued: %d\n",
		busyRetries.Load(), runFailures.Load(), serverErrors.Load(), socketCloses.Load(), st.Dropped, st.Published)
	return nil
}

// setUp starts the agent and the chat service with the agent configured twice (paced and
// fast), and the users' sockets: one for the latency runs, c.concurrency for the concurrency
// phase.
func setUp(c config, dir string) (*env, error) {
	agentURL, err := startAgent()
	if err != nil {
		return nil, err
	}
	chat, err := startChat(dir)
	if err != nil {
		return nil, err
	}
	e := &env{c: c, chat: chat,
		paced: agentURL + "?" + url.Values{"events": {fmt.Sprint(c.events)}, "interval": {c.interval.String()}}.Encode(),
		fast:  agentURL + "?" + url.Values{"events": {fmt.Sprint(c.events)}}.Encode()}
	if err := chat.agent("paced", e.paced); err != nil {
		return nil, err
	}
	if err := chat.agent("fast", e.fast); err != nil {
		return nil, err
	}
	progress("creating %d users and their sockets", c.concurrency+1)
	connect := func(uid string) (*socket, error) {
		tok, err := chat.user(uid)
		if err != nil {
			return nil, err
		}
		return chat.connect(uid, tok)
	}
	if e.lat, err = connect("latency"); err != nil {
		return nil, err
	}
	for i := 0; i < c.concurrency && c.phases["concurrency"]; i++ {
		s, err := connect(fmt.Sprintf("user%d", i))
		if err != nil {
			return nil, err
		}
		e.workers = append(e.workers, s)
	}
	return e, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
func added(d time.Duration) string {
	if d < 0 {
		return "−" + ms(-d)
	}
	return "+" + ms(d)
}
func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }
