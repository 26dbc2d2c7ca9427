package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agentry-dev/agentry/internal/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/testutil"
	"github.com/agentry-dev/agentry/internal/testutil/mcptest"
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
