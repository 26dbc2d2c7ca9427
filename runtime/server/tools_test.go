package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
)

func TestToolWithInvalidInputGoesBackToTheModel(t *testing.T) {
	e := startEnv(t, scriptedmodel.Sequence(
		scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{{Name: "recipe-from-pantry", Arguments: `{"ingredients":[]}`}}},
		scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{{Name: "recipe-from-pantry", Arguments: `not json`}}},
		scriptedmodel.Reply{Text: "sorry, I need at least one ingredient"},
	), envOptions{})
	status, out := e.do("POST", "/api/agents/chef/generate", userMessage("cook something"))
	if status != 200 || out["text"] != "sorry, I need at least one ingredient" {
		t.Fatalf("%d %v", status, out)
	}
	results := out["toolResults"].([]any)
	if len(results) != 2 {
		t.Fatalf("results: %v", results)
	}
	for _, r := range results {
		m := r.(map[string]any)
		errMsg, _ := m["result"].(map[string]any)["error"].(string)
		if m["isError"] != true || !strings.Contains(errMsg, "invalid input") {
			t.Errorf("result: %v", m)
		}
	}
	reqs := e.model.Requests()
	second := reqs[1].Messages[len(reqs[1].Messages)-1]
	if second.Role != "tool" || !strings.Contains(second.Content, "/ingredients") {
		t.Errorf("the model must see the validation error: %v", second)
	}
}

func TestConcurrentToolCallsInOneStep(t *testing.T) {
	e := startEnv(t, scriptedmodel.Sequence(
		scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{
			{Name: "suggest-substitute", Arguments: `{"ingredient":"milk"}`},
			{Name: "suggest-substitute", Arguments: `{"ingredient":"egg"}`},
			{Name: "recipe-from-pantry", Arguments: `{"ingredients":["rice"]}`},
		}},
		scriptedmodel.Reply{Text: "done"},
	), envOptions{})
	status, out := e.do("POST", "/api/agents/chef/generate", userMessage("go"))
	if status != 200 {
		t.Fatalf("%d %v", status, out)
	}
	results := out["toolResults"].([]any)
	calls := out["toolCalls"].([]any)
	if len(results) != 3 {
		t.Fatalf("results: %v", results)
	}
	for i := range results {
		if results[i].(map[string]any)["toolCallId"] != calls[i].(map[string]any)["toolCallId"] {
			t.Errorf("results must follow call order: %v vs %v", results[i], calls[i])
		}
	}
	if got := len(e.model.Requests()[1].Messages); got != 1+1+1+3 {
		t.Errorf("step 2 should carry system, user, assistant and 3 tool messages, got %d", got)
	}
}

func TestStepCap(t *testing.T) {
	always := scriptedmodel.ResponderFunc(func(*scriptedmodel.Request) scriptedmodel.Reply {
		return scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{{Name: "weather", Arguments: `{"location":"Oslo"}`}}}
	})
	e := startEnv(t, always, envOptions{})
	status, out := e.do("POST", "/api/agents/weather/generate", userMessage("loop forever"))
	if status != 200 {
		t.Fatalf("%d %v", status, out)
	}
	if n := len(e.model.Requests()); n != 100 {
		t.Errorf("model steps: %d, want exactly 100", n)
	}
	if len(out["steps"].([]any)) != 100 || out["finishReason"] != "tool-calls" {
		t.Errorf("steps %d finishReason %v", len(out["steps"].([]any)), out["finishReason"])
	}

	// A request may lower the limit, never raise it; chef's manifest says 10.
	e.model.Reset()
	e.do("POST", "/api/agents/weather/generate", `{"messages":"x","maxSteps":3}`)
	if n := len(e.model.Requests()); n != 3 {
		t.Errorf("maxSteps 3: %d steps", n)
	}
	e.model.Reset()
	e.do("POST", "/api/agents/chef/generate", `{"messages":"x","maxSteps":1000}`)
	if n := len(e.model.Requests()); n != 10 {
		t.Errorf("chef (maxSteps 10) asked for 1000: %d steps", n)
	}
}

const mismatched = `
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: sloppy}
spec:
  model: {name: m}
  tools:
  - key: weatherTool
    toolRef: {name: weather}
  - key: weather
    toolRef: {name: weather}
  - key: ghost
    toolRef: {name: does-not-exist}
`

func TestMismatchedToolKeyNeverFires(t *testing.T) {
	e := startEnv(t, scriptedmodel.Sequence(
		scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{{Name: "weatherTool", Arguments: `{"location":"Rome"}`}}},
		scriptedmodel.Reply{Text: "that tool is not there"},
	), envOptions{manifests: mismatched})

	var sawMismatch, sawMissing bool
	for _, w := range e.warning {
		if w.Agent == "sloppy" && strings.Contains(w.Message, `"weatherTool"`) && strings.Contains(w.Message, `"weather"`) && strings.Contains(w.Message, "will not fire") {
			sawMismatch = true
		}
		if w.Agent == "sloppy" && strings.Contains(w.Message, "does-not-exist") {
			sawMissing = true
		}
	}
	if !sawMismatch || !sawMissing {
		t.Errorf("start-up warnings must name key and id: %v", e.warning)
	}

	_, info := e.do("GET", "/api/agents/sloppy", "")
	tools := info["tools"].(map[string]any)
	if _, ok := tools["weatherTool"]; ok || len(tools) != 1 {
		t.Errorf("only the matching key may be listed: %v", tools)
	}
	if d := info["disabledTools"].([]any); len(d) != 2 {
		t.Errorf("disabledTools: %v", d)
	}

	status, out := e.do("POST", "/api/agents/sloppy/generate", userMessage("weather in Rome?"))
	if status != 200 {
		t.Fatalf("%d %v", status, out)
	}
	if offered := e.model.Requests()[0].Tools; len(offered) != 1 || offered[0] != "weather" {
		t.Errorf("the model must not be offered the mismatched key: %v", offered)
	}
	res := out["toolResults"].([]any)[0].(map[string]any)
	if res["isError"] != true || !strings.Contains(res["result"].(map[string]any)["error"].(string), "not available") {
		t.Errorf("calling the mismatched key must not run the tool: %v", res)
	}
	status, _ = e.do("POST", "/api/agents/sloppy/tools/weatherTool/execute", `{"data":{"location":"Rome"}}`)
	if status != 404 {
		t.Errorf("execute via mismatched key: %d", status)
	}
}

func TestToolRoutes(t *testing.T) {
	e := startEnv(t, scriptedmodel.DevScript(), envOptions{})
	status, tool := e.do("GET", "/api/agents/weather/tools/weather", "")
	if status != 200 || tool["id"] != "weather" || tool["inputSchema"] == nil {
		t.Errorf("get tool: %d %v", status, tool)
	}
	status, out := e.do("POST", "/api/agents/weather/tools/weather/execute", `{"data":{"location":"Lima"}}`)
	if status != 200 || out["location"] != "Lima" || out["temperature"] == nil {
		t.Errorf("execute: %d %v", status, out)
	}
	status, out = e.do("POST", "/api/agents/weather/tools/weather/execute", `{"data":{"city":"Lima"}}`)
	if status != 400 || !strings.Contains(out["error"].(string), "location") {
		t.Errorf("invalid input: %d %v", status, out)
	}
	status, out = e.do("POST", "/api/agents/weather/tools/weather/execute", `{}`)
	if status != 400 || !strings.Contains(out["error"].(string), "data is required") {
		t.Errorf("missing data: %d %v", status, out)
	}
	status, out = e.do("GET", "/api/agents/weather/tools/suggest-substitute", "")
	if status != 404 || out["error"] != "Tool with id suggest-substitute not found" {
		t.Errorf("tool of another agent: %d %v", status, out)
	}
	status, out = e.do("GET", "/api/agents/weather/tools/weather/execute", "")
	if status != 405 || out["error"] != "Method not allowed" {
		t.Errorf("GET execute: %d %v", status, out)
	}
}

const httpToolAgent = `
apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: forecast}
spec:
  id: forecast
  description: Forecast from the weather service.
  inputSchema: {type: object, required: [city], properties: {city: {type: string}}}
  outputSchema: {type: object, required: [summary], properties: {summary: {type: string}}}
  execute:
    http: {url: "URL"}
    timeout: 300ms
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: forecaster}
spec:
  model: {name: m}
  tools:
  - {key: forecast, toolRef: {name: forecast}}
`

func TestHTTPToolAgainstRealServer(t *testing.T) {
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in map[string]string
		_ = json.NewDecoder(r.Body).Decode(&in)
		if in["city"] == "Slowtown" {
			select {
			case <-time.After(3 * time.Second):
			case <-r.Context().Done():
				return
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"summary": "sunny in " + in["city"]})
	}))
	defer svc.Close()

	responder := scriptedmodel.ResponderFunc(func(r *scriptedmodel.Request) scriptedmodel.Reply {
		last := r.Messages[len(r.Messages)-1]
		if last.Role == "tool" {
			return scriptedmodel.Reply{Text: "forecast: " + last.Content}
		}
		return scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{{Name: "forecast", Arguments: `{"city":` + mustJSON(last.Content) + `}`}}}
	})
	e := startEnv(t, responder, envOptions{manifests: strings.Replace(httpToolAgent, "URL", svc.URL, 1)})

	status, out := e.do("POST", "/api/agents/forecaster/generate", userMessage("Bergen"))
	if status != 200 || !strings.Contains(out["text"].(string), "sunny in Bergen") {
		t.Errorf("%d %v", status, out)
	}
	start := time.Now()
	status, out = e.do("POST", "/api/agents/forecaster/generate", userMessage("Slowtown"))
	if status != 200 || !strings.Contains(out["text"].(string), "did not answer in time") {
		t.Errorf("timeout: %d %v", status, out)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the 300ms tool timeout took %v", d)
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
