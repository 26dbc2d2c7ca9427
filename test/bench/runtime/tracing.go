package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
)

// server is a runtime process under test.
type server struct {
	addr string
	pid  int
}

// endpoint is one of the runtime's answers: its path, and what a complete answer contains.
type endpoint struct{ name, path, marker string }

var endpoints = []endpoint{
	{"generate", "/api/agents/bench/generate", "thirty words"},
	{"ag-ui", "/api/agents/bench/ag-ui", `"type":"RUN_FINISHED"`},
}

// tracingCost measures what exporting every trace costs a runtime's throughput. The untraced
// runtime, the traced one and a second untraced one (the control) take turns in short rounds
// at a concurrency that keeps the runtime's CPU busy, each round in another order; every round
// gives the traced and the control runtime's ratio to the untraced one measured beside them.
// The control is an A/A pair: how far two identical runtimes differ on this machine, which is
// the resolution of the traced one's number. Medians, as a round hit by something else on the
// machine (a host's steal, a collector's burst) is an outlier, not a trend.
func tracingCost(client *http.Client, off, on, control server, body string, c, rounds int, d time.Duration) (sent int, ok bool) {
	fmt.Printf("\nTracing cost: untraced, traced and a second untraced runtime (the control) at c=%d, %d rounds of %s each per endpoint,\n", c, rounds, d)
	fmt.Println("in a new order every round; median (10th–90th percentile) of the rounds' ratios to the untraced runtime")
	fmt.Println()
	fmt.Println("| endpoint | traced req/s | traced CPU per request | control req/s | control CPU per request |")
	fmt.Println("|---|---|---|---|---|")
	ok = true
	var verdicts []string
	for _, ep := range endpoints {
		servers := []server{off, on, control}
		var rps, cpu [2][]float64 // [traced, control] / untraced, per round
		for r := 0; r < rounds; r++ {
			var rate, perReq [3]float64
			for i := range servers {
				k := (r + i) % len(servers)
				s := servers[k]
				c0 := cpuTime(s.pid)
				lat, errs, el := load(client, "http://"+s.addr+ep.path, ep.marker, body, c, d)
				used := cpuTime(s.pid) - c0
				if k == 1 {
					sent += len(lat) + errs
				}
				if len(lat) > 0 {
					rate[k] = float64(len(lat)) / el.Seconds()
					perReq[k] = float64(used) / float64(len(lat))
				}
			}
			if rate[0] == 0 || perReq[0] == 0 {
				continue
			}
			for j := 0; j < 2; j++ {
				rps[j] = append(rps[j], rate[j+1]/rate[0])
				cpu[j] = append(cpu[j], perReq[j+1]/perReq[0])
			}
		}
		fmt.Printf("| %s | %s | %s | %s | %s |\n", ep.name, spread(rps[0]), spread(cpu[0]), spread(rps[1]), spread(cpu[1]))
		verdict := "met"
		if median(rps[0]) < 0.95 {
			verdict, ok = "NOT met", false
		}
		verdicts = append(verdicts, fmt.Sprintf("%s %.3f× (%s)", ep.name, median(rps[0]), verdict)) // 0.949 is not met
	}
	fmt.Printf("\nGoal: tracing on costs ≤ 5 %% of the runtime's throughput (median traced / untraced ≥ 0.95×): %s\n", strings.Join(verdicts, ", "))
	return sent, ok
}

// spread formats a median with its 10th and 90th percentile.
func spread(v []float64) string {
	if len(v) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f× (%.2f–%.2f)", median(v), quantile(v, 0.1), quantile(v, 0.9))
}

func median(v []float64) float64 { return quantile(v, 0.5) }

// quantile is the nearest-rank quantile q of v.
func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	i := int(q*float64(len(s)-1) + 0.5)
	return s[i]
}

// countSpans counts the spans in the collector's OTLP/JSON file (each has one "spanId" key;
// parents are "parentSpanId").
func countSpans(file string) (int, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	key := []byte(`"spanId":`)
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30) // the exporter writes a line per batch
	for sc.Scan() {
		n += bytes.Count(sc.Bytes(), key)
	}
	return n, sc.Err()
}
