// Command mcp measures what calling a tool on an MCP server, and asking another agent over A2A
// (a Tool with execute.a2a), add to a run, against a CEL tool that computes the same answer in
// process: generate requests that each make one tool call, sequentially and 8 at a time,
// through the runtime's HTTP API with the scripted model. The MCP server is the kitchen sample
// server (official Go SDK, streamable HTTP, loopback) in its own goroutines, as agentry dev runs
// it; the other agent is served by the same runtime, called over its A2A endpoint.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"github.com/agentry-dev/agentry/internal/devkit/samplemcp"
	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/protocol/manifest"
	"github.com/agentry-dev/agentry/runtime/registry"
	"github.com/agentry-dev/agentry/runtime/server"
)

const script = `rules:
  - name: answer
    when: {lastRole: tool}
    reply: {text: 'done'}
  - name: cel
    when: {pattern: '^cel$'}
    reply:
      toolCalls: [{name: cel-convert, arguments: '{"quantity": 2, "from": "cup", "to": "ml"}'}]
  - name: mcp
    when: {pattern: '^mcp$'}
    reply:
      toolCalls: [{name: convert-units, arguments: '{"quantity": 2, "from": "cup", "to": "ml"}'}]
  - name: a2a
    when: {pattern: '^a2a$'}
    reply:
      toolCalls: [{name: ask-helper, arguments: '{"message": "2 cups in ml?"}'}]
  - name: helper
    when: {pattern: '^2 cups in ml\?$'}
    reply: {text: '473.18 ml'}
fallback: {text: 'no tool'}
`

const manifests = `apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: cel-convert}
spec:
  id: cel-convert
  description: Converts cups to millilitres.
  inputSchema:
    type: object
    required: [quantity, from, to]
    properties:
      quantity: {type: number}
      from: {type: string}
      to: {type: string}
  execute:
    cel: '{"quantity": double(int(input.quantity * 236.5882365 * 100.0)) / 100.0, "unit": input.to, "text": "converted"}'
---
apiVersion: agentry.dev/v1alpha1
kind: MCPServer
metadata: {name: kitchen}
spec:
  url: %s
---
apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: ask-helper}
spec:
  id: ask-helper
  description: Asks the helper agent over A2A.
  inputSchema: {type: object, required: [message], properties: {message: {type: string}}}
  execute:
    a2a: {url: "%s"}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: helper}
spec:
  model: {name: scripted, maxRetries: 0}
  endpoint:
    rateLimit: {requestsPerMinute: 0}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: bench}
spec:
  model: {name: scripted, maxRetries: 0}
  tools:
  - {key: cel-convert, toolRef: {name: cel-convert}}
  - {key: kitchen, mcpServerRef: {name: kitchen}}
  - {key: ask-helper, toolRef: {name: ask-helper}}
  endpoint:
    rateLimit: {requestsPerMinute: 0}
`

func main() {
	n := flag.Int("n", 1000, "requests per row")
	flag.Parse()
	if err := run(*n); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(n int) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kitchen, url, err := samplemcp.Serve("127.0.0.1:0", "bench")
	if err != nil {
		return err
	}
	defer kitchen.Close()
	s, err := scriptedmodel.ParseScript([]byte(script))
	if err != nil {
		return err
	}
	model, err := scriptedmodel.Start("127.0.0.1:0", s, scriptedmodel.Options{})
	if err != nil {
		return err
	}
	defer model.Close()

	dir, err := os.MkdirTemp("", "agentry-mcp-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	// The runtime's address is known before its agents are built: the A2A tool asks its helper.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	helper := "http://" + ln.Addr().String() + "/a2a/helper"
	if err := os.WriteFile(dir+"/bench.yaml", []byte(fmt.Sprintf(manifests, url, helper)), 0o600); err != nil {
		return err
	}
	loader, err := manifest.NewLoader()
	if err != nil {
		return err
	}
	set, err := loader.LoadPath(ctx, dir)
	if err != nil {
		return err
	}
	reg, warnings, err := registry.Build(ctx, set, registry.Options{Getenv: func(string) string { return "" }, DiscoverMCP: true,
		ModelOverride: &registry.ModelOverride{BaseURL: model.URL()}})
	if err != nil {
		return err
	}
	defer reg.Close()
	if len(warnings) > 0 {
		return fmt.Errorf("warnings: %v", warnings)
	}
	go func() { _ = server.New(server.Options{Registry: reg, Logger: logr.Discard()}).Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String() + "/api/agents/bench/generate"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

	fmt.Printf("%d generate requests per row, each one model call with a tool call, one tool result, one model call with the answer\n\n", n)
	fmt.Printf("%-28s %4s %10s %10s %10s %12s\n", "tool", "c", "p50", "p95", "mean", "req/s")
	type row struct{ p50, mean time.Duration }
	rows := map[string]row{}
	for _, c := range []int{1, 8} {
		for _, kind := range []string{"cel", "mcp", "a2a"} {
			if _, _, err := measure(client, base, kind, 50, c); err != nil { // warm up
				return err
			}
			lat, wall, err := measure(client, base, kind, n, c)
			if err != nil {
				return err
			}
			p50, p95, mean := stats(lat)
			name := map[string]string{"cel": "CEL tool (in process)", "mcp": "MCP tool (streamable HTTP)", "a2a": "another agent (A2A tool)"}[kind]
			fmt.Printf("%-28s %4d %10s %10s %10s %12.0f\n", name, c, round(p50), round(p95), round(mean), float64(len(lat))/wall.Seconds())
			rows[fmt.Sprint(kind, c)] = row{p50, mean}
		}
	}
	fmt.Println()
	for _, c := range []int{1, 8} {
		fmt.Printf("added by the MCP call at c=%d: %s at p50, %s on average\n", c,
			round(rows[fmt.Sprint("mcp", c)].p50-rows[fmt.Sprint("cel", c)].p50), round(rows[fmt.Sprint("mcp", c)].mean-rows[fmt.Sprint("cel", c)].mean))
	}
	for _, c := range []int{1, 8} {
		fmt.Printf("added by asking another agent over A2A at c=%d: %s at p50, %s on average (its own model call included)\n", c,
			round(rows[fmt.Sprint("a2a", c)].p50-rows[fmt.Sprint("cel", c)].p50), round(rows[fmt.Sprint("a2a", c)].mean-rows[fmt.Sprint("cel", c)].mean))
	}
	fmt.Println("(the MCP server and the other agent share this process's 2 cores: at c=8 their work queues behind the runtime's)")
	return nil
}

// measure sends n requests, c at a time, and returns each one's latency.
func measure(client *http.Client, url, prompt string, n, c int) ([]time.Duration, time.Duration, error) {
	body := fmt.Sprintf(`{"messages":[{"role":"user","content":%q}]}`, prompt)
	lat := make([]time.Duration, n)
	start := time.Now()
	err := testutil.Parallel(n, c, func(i int) error {
		t0 := time.Now()
		res, err := client.Post(url, "application/json", strings.NewReader(body))
		if err == nil {
			var out struct {
				Text        string `json:"text"`
				ToolResults []struct {
					IsError bool `json:"isError"`
				} `json:"toolResults"`
			}
			raw, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if jerr := json.Unmarshal(raw, &out); jerr != nil || out.Text != "done" || len(out.ToolResults) != 1 || out.ToolResults[0].IsError {
				err = fmt.Errorf("unexpected answer %d %s", res.StatusCode, raw)
			}
		}
		lat[i] = time.Since(t0)
		return err
	})
	return lat, time.Since(start), err
}

func stats(lat []time.Duration) (p50, p95, mean time.Duration) {
	s := append([]time.Duration(nil), lat...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	var total time.Duration
	for _, d := range s {
		total += d
	}
	return s[len(s)/2], s[len(s)*95/100], total / time.Duration(len(s))
}

func round(d time.Duration) time.Duration {
	if d < 0 {
		return -(-d).Round(10 * time.Microsecond)
	}
	return d.Round(10 * time.Microsecond)
}
