package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/devkit/testutil/mcptest"
)

// mcpAgent is an agent using every tool of one MCP server and one tool of another, by name.
func mcpAgent(url, transport, extra string) string {
	return fmt.Sprintf(`apiVersion: agentry.dev/v1alpha1
kind: MCPServer
metadata: {name: everything}
spec:
  url: %s
  transport: %s
  timeout: 3s
%s---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: mcp-user}
spec:
  instructions: Use the tools.
  model: {name: scripted}
  tools:
  - key: everything
    mcpServerRef: {name: everything}
    prefix: t_
  - key: echo
    mcpServerRef: {name: everything}
    toolName: echo
`, url, transport, extra)
}

func generateText(t *testing.T, e *env) map[string]any {
	t.Helper()
	status, out := e.do("POST", "/api/agents/mcp-user/generate", userMessage("go"))
	if status != 200 {
		t.Fatalf("generate: %d %v", status, out)
	}
	return out
}

func toolResults(out map[string]any) []map[string]any {
	var r []map[string]any
	for _, x := range out["toolResults"].([]any) {
		r = append(r, x.(map[string]any))
	}
	return r
}

// The model sees the server's tools under the entries' names, calls them through generate,
// and gets text, structured content and tool errors back as results.
func TestMCPToolsThroughGenerate(t *testing.T) {
	for _, transport := range []string{"streamable-http", "sse"} {
		t.Run(transport, func(t *testing.T) {
			srv := mcptest.Start(t, mcptest.Options{})
			url := srv.URL
			if transport == "sse" {
				url = srv.SSEURL
			}
			e := startEnv(t, scriptedmodel.Sequence(
				scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{
					{Name: "echo", Arguments: `{"text":"hi"}`},
					{Name: "t_add", Arguments: `{"a":2,"b":3}`},
					{Name: "t_fail", Arguments: `{"text":"boom"}`},
					{Name: "t_echo", Arguments: `{"text":7}`},
				}},
				scriptedmodel.Reply{Text: "done"},
			), envOptions{manifests: mcpAgent(url, transport, "")})
			out := generateText(t, e)
			if out["text"] != "done" {
				t.Fatalf("text %v", out["text"])
			}
			r := toolResults(out)
			if len(r) != 4 {
				t.Fatalf("results %v", r)
			}
			if r[0]["result"] != "echo: hi" || r[0]["isError"] == true {
				t.Errorf("echo: %v", r[0])
			}
			if sum, _ := r[1]["result"].(map[string]any)["sum"].(float64); sum != 5 {
				t.Errorf("add: %v", r[1])
			}
			if msg, _ := r[2]["result"].(map[string]any)["error"].(string); r[2]["isError"] != true || !strings.Contains(msg, "failed: boom") {
				t.Errorf("fail: %v", r[2])
			}
			// Arguments are validated against the server's schema before the server is called.
			if msg, _ := r[3]["result"].(map[string]any)["error"].(string); r[3]["isError"] != true || !strings.Contains(msg, "invalid input") {
				t.Errorf("echo with a number: %v", r[3])
			}
			if n := srv.Calls.Load(); n != 3 {
				t.Errorf("the server got %d calls, want 3", n)
			}
			offered := e.model.Requests()[0].Tools
			want := []string{"echo", "t_add", "t_echo", "t_fail", "t_slow"}
			for _, w := range want {
				found := false
				for _, o := range offered {
					found = found || o == w
				}
				if !found {
					t.Errorf("the model was not offered %s: %v", w, offered)
				}
			}
		})
	}
}

// AG-UI streams TOOL_CALL_* and TOOL_CALL_RESULT for an MCP tool like any other.
func TestMCPToolThroughAGUI(t *testing.T) {
	srv := mcptest.Start(t, mcptest.Options{})
	e := startEnv(t, scriptedmodel.Sequence(
		scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{{Name: "echo", Arguments: `{"text":"over ag-ui"}`}}},
		scriptedmodel.Reply{Text: "ok"},
	), envOptions{manifests: mcpAgent(srv.URL, "streamable-http", "")})
	events := aguiRun(t, e.base, "mcp-user", `{"threadId":"t","runId":"r","messages":[{"id":"u1","role":"user","content":"go"}]}`)
	var types []string
	var result string
	for _, ev := range events {
		types = append(types, ev["type"].(string))
		if ev["type"] == "TOOL_CALL_RESULT" {
			result, _ = ev["content"].(string)
		}
	}
	joined := strings.Join(types, ",")
	start, end, res := strings.Index(joined, "TOOL_CALL_START,TOOL_CALL_ARGS"), strings.Index(joined, "TOOL_CALL_END"), strings.Index(joined, "TOOL_CALL_RESULT")
	if start < 0 || end < start || res < end || !strings.HasSuffix(joined, "RUN_FINISHED") {
		t.Fatalf("events %s", joined)
	}
	var got string
	if err := json.Unmarshal([]byte(result), &got); err != nil || got != "echo: over ag-ui" {
		t.Fatalf("TOOL_CALL_RESULT content %q", result)
	}
}

// Headers come from the Secret named by headersSecretRef; without them the server refuses
// and the agent still starts, reporting the tools it cannot offer.
func TestMCPServerWithBearerToken(t *testing.T) {
	srv := mcptest.Start(t, mcptest.Options{Token: "tok-123"})
	secrets := t.TempDir()
	testutil.NoError(t, os.MkdirAll(filepath.Join(secrets, "mcp-auth"), 0o700))
	testutil.NoError(t, os.WriteFile(filepath.Join(secrets, "mcp-auth", "Authorization"), []byte("Bearer tok-123"), 0o600))
	e := startEnv(t, scriptedmodel.Sequence(
		scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{{Name: "echo", Arguments: `{"text":"authed"}`}}},
		scriptedmodel.Reply{Text: "ok"},
	), envOptions{manifests: mcpAgent(srv.URL, "streamable-http", "  headersSecretRef: {name: mcp-auth}\n"), secretsDir: secrets})
	if r := toolResults(generateText(t, e)); r[0]["result"] != "echo: authed" {
		t.Fatalf("result %v", r[0])
	}

	// Without the Secret, or with a token the server refuses: the tools are reported as not
	// offered, saying why, and the agent serves.
	wrong := t.TempDir()
	testutil.NoError(t, os.MkdirAll(filepath.Join(wrong, "mcp-auth"), 0o700))
	testutil.NoError(t, os.WriteFile(filepath.Join(wrong, "mcp-auth", "Authorization"), []byte("Bearer wrong"), 0o600))
	for dir, why := range map[string]string{t.TempDir(): `the headers Secret \"mcp-auth\" could not be read`, wrong: "401 Unauthorized"} {
		e2 := startEnv(t, scriptedmodel.Sequence(scriptedmodel.Reply{Text: "no tools"}), envOptions{manifests: mcpAgent(srv.URL, "streamable-http", "  headersSecretRef: {name: mcp-auth}\n"), secretsDir: dir})
		found := false
		for _, w := range e2.warning {
			found = found || (w.Agent == "mcp-user" && strings.Contains(w.Message, "everything"))
		}
		if !found {
			t.Fatalf("no warning about the server: %v", e2.warning)
		}
		status, raw := e2.raw("GET", "/api/agents/mcp-user", "")
		if status != 200 || !strings.Contains(string(raw), why) || strings.Contains(string(raw), "wrong") {
			t.Fatalf("agent info %d %s, want %q", status, raw, why)
		}
		if out := generateText(t, e2); out["text"] != "no tools" {
			t.Fatalf("%v", out)
		}
	}
}

// A server that dies during a call: the call is a tool error the model sees; once the server
// is back the next request reconnects. A server restarted between requests (its sessions
// gone) is reconnected to without the call failing.
func TestMCPServerRestarts(t *testing.T) {
	srv := mcptest.Start(t, mcptest.Options{})
	e := startEnv(t, scriptedmodel.ResponderFunc(func(req *scriptedmodel.Request) scriptedmodel.Reply {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" {
			return scriptedmodel.Reply{Text: "after: " + last.Content}
		}
		return scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{{Name: "t_slow", Arguments: `{"text":"` + last.Content + `"}`}}}
	}), envOptions{manifests: mcpAgent(srv.URL, "streamable-http", "")})
	call := func(d string) map[string]any {
		status, out := e.do("POST", "/api/agents/mcp-user/generate", userMessage(d))
		if status != 200 {
			t.Fatalf("generate: %d %v", status, out)
		}
		return toolResults(out)[0]
	}
	if r := call("10ms"); r["result"] != "done after 10ms" {
		t.Fatalf("first call %v", r)
	}

	calls := srv.Calls.Load()
	go func() { // the server dies once the call has reached it
		for deadline := time.Now().Add(10 * time.Second); srv.Calls.Load() == calls && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		srv.Stop()
	}()
	r := call("5s")
	if r["isError"] != true {
		t.Fatalf("a call to a server that died mid-call: %v", r)
	}
	srv.Restart(t)
	if r := call("10ms"); r["result"] != "done after 10ms" {
		t.Fatalf("after the server came back: %v", r)
	}
	srv.Restart(t) // the session the runtime holds is unknown to the new process
	if r := call("10ms"); r["result"] != "done after 10ms" {
		t.Fatalf("after a restart between requests: %v", r)
	}
}

// A tool call that exceeds the server's timeout ends with a tool error; a hanging server
// leaves the agent's other tools and other agents alone.
func TestMCPTimeouts(t *testing.T) {
	srv := mcptest.Start(t, mcptest.Options{})
	hanging := mcptest.Hanging(t)
	manifests := mcpAgent(srv.URL, "streamable-http", "") + fmt.Sprintf(`---
apiVersion: agentry.dev/v1alpha1
kind: MCPServer
metadata: {name: hangs}
spec: {url: %q, timeout: 500ms}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: stuck}
spec:
  model: {name: scripted}
  tools:
  - {key: hangs, mcpServerRef: {name: hangs}}
`, hanging)
	start := time.Now()
	e := startEnv(t, scriptedmodel.Sequence(
		scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{{Name: "t_slow", Arguments: `{"text":"10s"}`}}},
		scriptedmodel.Reply{Text: "gave up"},
	), envOptions{manifests: manifests})
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("start-up took %s with a hanging server", d)
	}
	begin := time.Now()
	out := generateText(t, e)
	r := toolResults(out)[0]
	msg, _ := r["result"].(map[string]any)["error"].(string)
	if r["isError"] != true || !strings.Contains(msg, "did not answer in time") {
		t.Fatalf("result %v", r)
	}
	if d := time.Since(begin); d < 3*time.Second || d > 8*time.Second {
		t.Fatalf("the call ended after %s, want the 3s timeout", d)
	}
	status, info := e.do("GET", "/api/agents/stuck", "")
	if status != 200 || !strings.Contains(fmt.Sprint(info), "Timeout") {
		t.Fatalf("stuck agent: %d %v", status, info)
	}
}

// Mastra's stream route and conversation memory with an MCP tool: the stream carries the call
// and its result, the turn (call, result, answer) is stored, and the next turn's model input
// recalls the MCP tool's result.
func TestMCPToolThroughStreamAndMemory(t *testing.T) {
	srv := mcptest.Start(t, mcptest.Options{})
	db := "file:" + filepath.Join(t.TempDir(), "memory.db")
	e := startEnv(t, scriptedmodel.Sequence(
		scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{{Name: "t_add", Arguments: `{"a":2,"b":40}`}}},
		scriptedmodel.Reply{Text: "it is 42"},
		scriptedmodel.Reply{Text: "you are welcome"},
	), envOptions{manifests: mcpAgent(srv.URL, "streamable-http", "") + fmt.Sprintf("  memory: {url: %q}\n", db)})

	status, raw := e.raw("POST", "/api/agents/mcp-user/stream", `{"messages":"add them","memory":{"thread":"sums","resource":"alice"}}`)
	body := string(raw)
	if status != 200 || !strings.Contains(body, `"toolName":"t_add"`) || !strings.Contains(body, `"result":{"sum":42}`) || !strings.Contains(body, "it is 42") {
		t.Fatalf("stream: %d\n%s", status, body)
	}
	e.model.Reset()
	if status, out := e.do("POST", "/api/agents/mcp-user/generate", `{"messages":"thanks","memory":{"thread":"sums","resource":"alice"}}`); status != 200 || out["text"] != "you are welcome" {
		t.Fatalf("turn 2: %d %v", status, out)
	}
	var recalled []string
	for _, m := range e.model.Requests()[0].Messages {
		recalled = append(recalled, m.Role+":"+m.Content)
	}
	if got := strings.Join(recalled, "|"); !strings.Contains(got, `tool:{"sum":42}`) || !strings.Contains(got, "assistant:it is 42") {
		t.Fatalf("turn 2 model input: %s", got)
	}
}
