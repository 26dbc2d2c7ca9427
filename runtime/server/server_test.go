package server

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
)

func TestListAndGetAgents(t *testing.T) {
	e := startEnv(t, scriptedmodel.DevScript(), envOptions{})

	status, body := e.do("GET", "/api/agents", "")
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	for _, id := range []string{"chef", "weather"} {
		a, ok := body[id].(map[string]any)
		if !ok {
			t.Fatalf("agent %s missing from %v", id, body)
		}
		if a["provider"] != "openai" || a["modelId"] != "gpt-4o-mini" || a["instructions"] == "" {
			t.Errorf("%s: %v", id, a)
		}
	}
	chef := body["chef"].(map[string]any)
	tools := chef["tools"].(map[string]any)
	sub := tools["suggest-substitute"].(map[string]any)
	if sub["id"] != "suggest-substitute" || sub["description"] == "" || sub["inputSchema"].(map[string]any)["type"] != "object" || sub["outputSchema"] == nil {
		t.Errorf("tool listing: %v", sub)
	}
	if _, ok := chef["frontendActions"].(map[string]any)["show-recipe-card"]; !ok {
		t.Errorf("frontend actions: %v", chef["frontendActions"])
	}

	status, one := e.do("GET", "/api/agents/weather", "")
	if status != 200 || one["name"] != "Weather" {
		t.Errorf("get weather: %d %v", status, one)
	}
	status, nf := e.do("GET", "/api/agents/nobody", "")
	if status != 404 || nf["error"] != "Agent with id nobody not found" {
		t.Errorf("unknown agent: %d %v", status, nf)
	}
	status, nf = e.do("POST", "/api/agents/nobody/generate", userMessage("hi"))
	if status != 404 || nf["error"] != "Agent with id nobody not found" {
		t.Errorf("generate on unknown agent: %d %v", status, nf)
	}
	status, nf = e.do("GET", "/api/nothing-here", "")
	if status != 404 || nf["error"] != "Not found" {
		t.Errorf("unknown route: %d %v", status, nf)
	}
}

func TestGenerateWithServerTool(t *testing.T) {
	e := startEnv(t, scriptedmodel.DevScript(), envOptions{})
	status, body := e.do("POST", "/api/agents/chef/generate", userMessage("What can I use instead of butter?"))
	if status != 200 {
		t.Fatalf("status %d: %v", status, body)
	}
	if !strings.Contains(body["text"].(string), "olive oil") || body["finishReason"] != "stop" {
		t.Errorf("text/finishReason: %v", body)
	}
	if body["runId"] == "" {
		t.Error("runId missing")
	}
	calls := body["toolCalls"].([]any)
	results := body["toolResults"].([]any)
	steps := body["steps"].([]any)
	if len(calls) != 1 || len(results) != 1 || len(steps) != 2 {
		t.Fatalf("calls %d results %d steps %d", len(calls), len(results), len(steps))
	}
	call := calls[0].(map[string]any)
	if call["type"] != "tool-call" || call["toolName"] != "suggest-substitute" || call["args"].(map[string]any)["ingredient"] != "butter" {
		t.Errorf("tool call: %v", call)
	}
	res := results[0].(map[string]any)
	if res["type"] != "tool-result" || res["toolCallId"] != call["toolCallId"] || res["result"].(map[string]any)["substitute"] == nil {
		t.Errorf("tool result: %v", res)
	}
	usage := body["usage"].(map[string]any)
	if usage["totalTokens"].(float64) <= 0 || usage["promptTokens"].(float64) <= 0 {
		t.Errorf("usage: %v", usage)
	}
	if steps[0].(map[string]any)["stepType"] != "initial" || steps[1].(map[string]any)["stepType"] != "tool-result" {
		t.Errorf("steps: %v", steps)
	}

	// The model saw the instructions as a system message, the tools, and in step 2 the result.
	reqs := e.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model requests: %d", len(reqs))
	}
	if reqs[0].Messages[0].Role != "system" || !strings.Contains(reqs[0].Messages[0].Content, "friendly chef") {
		t.Errorf("system message: %v", reqs[0].Messages[0])
	}
	offered := strings.Join(reqs[0].Tools, ",")
	if offered != "suggest-substitute,recipe-from-pantry,show-recipe-card" {
		t.Errorf("offered tools: %s", offered)
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != "tool" || !strings.Contains(last.Content, "olive oil") {
		t.Errorf("tool result message: %v", last)
	}
	if !reqs[0].Stream || !reqs[0].IncludeUsage {
		t.Error("the runtime must stream and ask for usage")
	}
}

func TestGenerateRequestShapes(t *testing.T) {
	e := startEnv(t, scriptedmodel.Sequence(scriptedmodel.Reply{Text: "hello there"}), envOptions{})
	for _, body := range []string{
		`{"messages":"just a string"}`,
		`{"messages":["one","two"]}`,
		`{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"parts"}]}]}`,
	} {
		status, out := e.do("POST", "/api/agents/weather/generate", body)
		if status != 200 || out["text"] != "hello there" {
			t.Errorf("%s: %d %v", body, status, out)
		}
	}
	reqs := e.model.Requests()
	if got := reqs[1].Messages; len(got) != 3 || got[1].Content != "one" || got[2].Content != "two" {
		t.Errorf("string list: %v", got)
	}
	if got := reqs[2].Messages; got[1].Role != "system" || got[2].Content != "parts" {
		t.Errorf("parts: %v", got)
	}
}

func TestGenerateErrors(t *testing.T) {
	e := startEnv(t, scriptedmodel.ResponderFunc(func(r *scriptedmodel.Request) scriptedmodel.Reply {
		if strings.Contains(r.Messages[len(r.Messages)-1].Content, "explode") {
			return scriptedmodel.Reply{Status: 400, Error: "This model cannot explode."}
		}
		return scriptedmodel.Reply{Text: "fine"}
	}), envOptions{})

	for _, method := range []string{"GET", "PUT", "DELETE", "PATCH"} {
		status, body := e.do(method, "/api/agents/chef/generate", "")
		if status != 405 || body["error"] != "Method not allowed" {
			t.Errorf("%s: %d %v", method, status, body)
		}
	}
	bad := map[string]string{
		`{"messages":`:                   "invalid JSON body",
		``:                               "request body is empty",
		`{}`:                             "messages is required",
		`{"messages":[]}`:                "messages must not be empty",
		`{"messages":""}`:                "messages must not be empty",
		`{"messages":42}`:                "messages must be a string or an array",
		`{"messages":[{"content":"x"}]}`: "messages[0].role is required",
		`{"messages":[{"role":"robot","content":"x"}]}`:                           `messages[0].role "robot" is not supported`,
		`{"messages":[{"role":"user"}]}`:                                          "messages[0].content is required",
		`{"messages":[{"role":"user","content":[{"type":"image","image":"x"}]}]}`: `has a "image" part`,
		`{"messages":"hi","maxSteps":-1}`:                                         "maxSteps must be positive",
	}
	for body, want := range bad {
		status, out := e.do("POST", "/api/agents/chef/generate", body)
		if status != 400 || !strings.Contains(out["error"].(string), want) {
			t.Errorf("%q: %d %v (want %q)", body, status, out, want)
		}
	}
	status, out := e.do("POST", "/api/agents/chef/generate", userMessage("please explode"))
	if status != 500 || !strings.Contains(out["error"].(string), "This model cannot explode.") || !strings.Contains(out["error"].(string), "400") {
		t.Errorf("model failure: %d %v", status, out)
	}
	status, raw := e.raw("POST", "/api/agents/chef/generate", `{"messages":"`+strings.Repeat("x", 70<<10)+`"}`)
	if status != 413 || !strings.Contains(string(raw), `"error":"Request body too large"`) {
		t.Errorf("large body: %d %s", status, raw)
	}
}

func TestModelRetriesOn429And5xx(t *testing.T) {
	var n atomic.Int32
	e := startEnv(t, scriptedmodel.ResponderFunc(func(*scriptedmodel.Request) scriptedmodel.Reply {
		switch n.Add(1) {
		case 1:
			return scriptedmodel.Reply{Status: 429, Error: "slow down"}
		case 2:
			return scriptedmodel.Reply{Status: 503, Error: "overloaded"}
		default:
			return scriptedmodel.Reply{Text: "third time lucky"}
		}
	}), envOptions{})
	status, out := e.do("POST", "/api/agents/weather/generate", userMessage("hi"))
	if status != 200 || out["text"] != "third time lucky" || n.Load() != 3 {
		t.Errorf("%d %v after %d model calls", status, out, n.Load())
	}
}

func TestBrokenModelStream(t *testing.T) {
	e := startEnv(t, scriptedmodel.Sequence(scriptedmodel.Reply{Text: "this answer will break off half way", FailAfterChunks: 3}), envOptions{})
	status, out := e.do("POST", "/api/agents/weather/generate", userMessage("hi"))
	if status != 500 || out["error"] == "" {
		t.Errorf("%d %v", status, out)
	}
}

func TestMissingAPIKeyNamesTheVariable(t *testing.T) {
	e := startEnv(t, scriptedmodel.DevScript(), envOptions{noOverride: true, getenv: func(k string) string {
		if k == "OPENAI_BASE_URL" {
			return "http://127.0.0.1:9/v1"
		}
		return ""
	}})
	status, out := e.do("POST", "/api/agents/chef/generate", userMessage("hi"))
	msg, _ := out["error"].(string)
	if status != 500 || !strings.Contains(msg, "OPENAI_API_KEY") || !strings.Contains(msg, `Secret "openai"`) {
		t.Errorf("%d %v", status, out)
	}
}

func TestHealthAndMetrics(t *testing.T) {
	e := startEnv(t, scriptedmodel.DevScript(), envOptions{})
	if status, body := e.do("GET", "/healthz", ""); status != 200 || body["status"] != "ok" {
		t.Errorf("healthz: %d %v", status, body)
	}
	if status, body := e.do("GET", "/readyz", ""); status != 200 || body["agents"] != float64(2) {
		t.Errorf("readyz: %d %v", status, body)
	}
	e.do("POST", "/api/agents/chef/generate", userMessage("What can I use instead of butter?"))
	status, raw := e.raw("GET", "/metrics", "")
	text := string(raw)
	for _, want := range []string{
		`agentry_http_requests_total{agent="chef",code="200",route="/api/agents/:agentId/generate"}`,
		`agentry_tool_calls_total{agent="chef",outcome="ok",tool="suggest-substitute"}`,
		`agentry_model_requests_total{agent="chef",outcome="ok"}`,
	} {
		if status != 200 || !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

const slowModelAgent = `
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: impatient}
spec:
  model: {name: m, timeout: 300ms, maxRetries: 0}
`

func TestModelTimeout(t *testing.T) {
	e := startEnv(t, scriptedmodel.Sequence(scriptedmodel.Reply{Hang: true}), envOptions{manifests: slowModelAgent})
	start := time.Now()
	status, out := e.do("POST", "/api/agents/impatient/generate", userMessage("hello?"))
	if status != 500 || !strings.Contains(fmt.Sprint(out["error"]), "timed out after 300ms") {
		t.Errorf("%d %v", status, out)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a 300ms model timeout took %v", d)
	}
}

// A run's tokens are counted per agent, model and kind, and the run by its outcome: the
// counters move by exactly what the generate answer reports (they are process-wide, so the
// test reads them before and after).
func TestTokenAndRunMetrics(t *testing.T) {
	e := startEnv(t, scriptedmodel.DevScript(), envOptions{})
	counter := func(series string) float64 { return e.counter(t, series) }
	const (
		prompt     = `agentry_model_tokens_total{agent="chef",kind="prompt",model="gpt-4o-mini"}`
		completion = `agentry_model_tokens_total{agent="chef",kind="completion",model="gpt-4o-mini"}`
		runsOK     = `agentry_runs_total{agent="chef",outcome="ok"}`
		runsError  = `agentry_runs_total{agent="chef",outcome="error"}`
	)
	p0, c0, ok0, err0 := counter(prompt), counter(completion), counter(runsOK), counter(runsError)
	status, out := e.do("POST", "/api/agents/chef/generate", userMessage("What can I use instead of butter?"))
	if status != 200 {
		t.Fatalf("generate: %d %v", status, out)
	}
	usage, _ := out["usage"].(map[string]any)
	inTokens, _ := usage["promptTokens"].(float64)
	outTokens, _ := usage["completionTokens"].(float64)
	if inTokens <= 0 || outTokens <= 0 {
		t.Fatalf("usage: %v", usage)
	}
	if d := counter(prompt) - p0; d != inTokens {
		t.Errorf("prompt tokens counted %v, the answer reports %v", d, inTokens)
	}
	if d := counter(completion) - c0; d != outTokens {
		t.Errorf("completion tokens counted %v, the answer reports %v", d, outTokens)
	}
	if d := counter(runsOK) - ok0; d != 1 {
		t.Errorf("ok runs counted %v, want 1", d)
	}
	if d := counter(runsError) - err0; d != 0 {
		t.Errorf("failed runs counted %v, want 0", d)
	}
}
