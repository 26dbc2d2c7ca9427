package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/devkit/testutil/mcptest"
)

// Tool calls of every kind that runs outside the process are execute_tool spans under the
// run: an HTTP tool and an MCP server's tools (gen_ai.tool.type "extension", the kind in
// agentry.tool.kind), a failing MCP tool as an error span; no argument or result text on any.
func TestToolSpansOfHTTPAndMCPTools(t *testing.T) {
	rec := testutil.RecordSpans(t)

	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in map[string]string
		_ = json.NewDecoder(r.Body).Decode(&in)
		_ = json.NewEncoder(w).Encode(map[string]string{"summary": "sunny in " + in["city"]})
	}))
	defer svc.Close()
	mcp := mcptest.Start(t, mcptest.Options{})
	manifests := strings.Replace(httpToolAgent, "URL", svc.URL, 1) + "---\n" + mcpAgent(mcp.URL, "streamable-http", "")
	// Both agents get the same script: each model call's first step calls its tools.
	e := startEnv(t, scriptedmodel.ResponderFunc(func(r *scriptedmodel.Request) scriptedmodel.Reply {
		if r.Messages[len(r.Messages)-1].Role == "tool" {
			return scriptedmodel.Reply{Text: "done"}
		}
		if len(r.Tools) == 1 {
			return scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{{Name: "forecast", Arguments: `{"city":"Secretville"}`}}}
		}
		return scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{
			{Name: "echo", Arguments: `{"text":"private words"}`},
			{Name: "t_fail", Arguments: `{"text":"boom"}`},
		}}
	}), envOptions{manifests: manifests})

	for _, agent := range []string{"forecaster", "mcp-user"} {
		if status, out := e.do("POST", "/api/agents/"+agent+"/generate", userMessage("go")); status != 200 || out["text"] != "done" {
			t.Fatalf("%s: %d %v", agent, status, out)
		}
	}
	spans := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		spans[s.Name()] = s
		for _, kv := range s.Attributes() {
			for _, secret := range []string{"Secretville", "sunny", "private words", "boom"} {
				if strings.Contains(kv.Value.Emit(), secret) {
					t.Errorf("%s: attribute %s holds %q", s.Name(), kv.Key, secret)
				}
			}
		}
	}
	for name, want := range map[string]struct {
		kind   string
		failed bool
		run    string
	}{
		"execute_tool forecast": {"http", false, "invoke_agent forecaster"},
		"execute_tool echo":     {"mcp", false, "invoke_agent mcp-user"},
		"execute_tool t_fail":   {"mcp", true, "invoke_agent mcp-user"},
	} {
		s, ok := spans[name]
		if !ok {
			t.Errorf("no span %q", name)
			continue
		}
		a := testutil.SpanAttrs(s)
		if a["gen_ai.operation.name"] != "execute_tool" || a["gen_ai.tool.type"] != "extension" || a["agentry.tool.kind"] != want.kind {
			t.Errorf("%s: %v", name, a)
		}
		if failed := s.Status().Code == codes.Error; failed != want.failed || (failed && a["error.type"] != "tool_error") {
			t.Errorf("%s: status %v, error.type %q", name, s.Status(), a["error.type"])
		}
		if run := spans[want.run]; run == nil || s.Parent().SpanID() != run.SpanContext().SpanID() {
			t.Errorf("%s is not a child of %s", name, want.run)
		}
	}
}

// An agent with memory recalls and stores its thread around the run: that work is inside the
// run's span, so a direct call without a traceparent is one trace (not one for the recall, one
// for the run and one for the store), counted once in agentry_runs_total. A call refused by the
// store is an error span named by its cause, and no run.
func TestMemoryWorkIsInsideTheRunSpan(t *testing.T) {
	rec := testutil.RecordSpans(t)
	dbURL := "file:" + filepath.Join(t.TempDir(), "memory.db")
	e := startEnv(t, scriptedmodel.DevScript(), envOptions{manifests: memoryAgent(dbURL)})
	const runsOK, runsError = `agentry_runs_total{agent="rememberer",outcome="ok"}`, `agentry_runs_total{agent="rememberer",outcome="error"}`

	for _, call := range []struct{ route, body string }{
		{"generate", `{"messages":"What is the weather in Oslo?","memory":{"thread":"g","resource":"alice"}}`},
		{"stream", `{"messages":"What is the weather in Oslo?","memory":{"thread":"s","resource":"alice"}}`},
		{"ag-ui", `{"threadId":"a","messages":[{"id":"u1","role":"user","content":"What is the weather in Oslo?"}],"forwardedProps":{"resourceId":"alice"}}`},
	} {
		rec.Reset()
		e.model.Reset()
		ok0 := e.counter(t, runsOK)
		if status, raw := e.raw("POST", "/api/agents/rememberer/"+call.route, call.body); status != 200 {
			t.Fatalf("%s: %d %s", call.route, status, raw)
		}
		if d := e.counter(t, runsOK) - ok0; d != 1 {
			t.Errorf("%s: ok runs counted %v, want 1", call.route, d)
		}
		var run sdktrace.ReadOnlySpan
		names := map[string]int{}
		for _, s := range rec.Ended() {
			names[s.Name()]++
			if s.Name() == "invoke_agent rememberer" {
				run = s
			}
		}
		if run == nil || names["invoke_agent rememberer"] != 1 || run.Parent().IsValid() {
			t.Fatalf("%s: want one root run span, got %v", call.route, names)
		}
		if a := testutil.SpanAttrs(run); a["gen_ai.conversation.id"] == "" || run.Status().Code == codes.Error {
			t.Errorf("%s: run span %v %v", call.route, a, run.Status())
		}
		for _, s := range rec.Ended() {
			if s.SpanContext().TraceID() != run.SpanContext().TraceID() {
				t.Errorf("%s: span %q is in another trace", call.route, s.Name())
			}
			if strings.HasPrefix(s.Name(), "memory ") && s.Parent().SpanID() != run.SpanContext().SpanID() {
				t.Errorf("%s: %q is not a child of the run", call.route, s.Name())
			}
		}
		if names["chat m"] < 1 || names["memory save"] < 1 || (call.route != "ag-ui" && names["memory recall"] != 1) {
			t.Errorf("%s: spans %v", call.route, names)
		}
	}

	// Another resource's thread: refused before any run.
	rec.Reset()
	ok0, err0 := e.counter(t, runsOK), e.counter(t, runsError)
	if status, raw := e.raw("POST", "/api/agents/rememberer/generate", `{"messages":"hi","memory":{"thread":"g","resource":"mallory"}}`); status != 403 {
		t.Fatalf("generate on another resource's thread: %d %s", status, raw)
	}
	var refused sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "invoke_agent rememberer" {
			refused = s
		}
	}
	if refused == nil || refused.Status().Code != codes.Error || testutil.SpanAttrs(refused)["error.type"] != "thread_forbidden" {
		t.Errorf("refused call's run span: %v", refused)
	}
	if e.counter(t, runsOK) != ok0 || e.counter(t, runsError) != err0 {
		t.Errorf("a refused call was counted as a run")
	}
}
