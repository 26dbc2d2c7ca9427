package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// mcpManifests is an Agent using the MCP reference server's tools: every tool over streamable
// HTTP, and get-sum over SSE under a prefix.
func mcpManifests(httpURL, sseURL string) string {
	return fmt.Sprintf(`apiVersion: agentry.dev/v1alpha1
kind: MCPServer
metadata: {name: everything}
spec:
  url: %s
---
apiVersion: agentry.dev/v1alpha1
kind: MCPServer
metadata: {name: everything-sse}
spec:
  url: %s
  transport: sse
  tools: [echo, get-sum]
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: mcp}
spec:
  model: {name: scripted, maxRetries: 0}
  tools:
  - {key: everything, mcpServerRef: {name: everything}}
  - {key: sse_get-sum, mcpServerRef: {name: everything-sse}, toolName: get-sum, prefix: sse_}
`, httpURL, sseURL)
}

// The MCP project's reference server (@modelcontextprotocol/server-everything, from the npm
// registry) over streamable HTTP and over SSE: the runtime lists its tools, and an agent calls
// them through generate and through AG-UI with the real @ag-ui/client (mcp.test.mjs).
func TestMCPReferenceServer(t *testing.T) {
	for _, pkg := range []string{"@ag-ui/client", "@modelcontextprotocol/server-everything"} {
		if _, err := os.Stat(filepath.Join("node_modules", pkg, "package.json")); err != nil {
			t.Fatalf("%s is not installed: run `npm ci` in test/conformance (make test does)", pkg)
		}
	}
	httpURL := testutil.StartEverything(t, "streamableHttp")
	sseURL := testutil.StartEverything(t, "sse")
	dir := t.TempDir()
	testutil.Check(t, os.WriteFile(filepath.Join(dir, "mcp.yaml"), []byte(mcpManifests(httpURL, sseURL)), 0o600))
	_, modelURL := testutil.Start(t, binary, ".", nil, `listening on (http://\S+)/v1`,
		"scripted-model", "--addr", "127.0.0.1:0", "--script", "model-script.yaml")
	runtime, addr := testutil.Start(t, binary, ".", []string{"OPENAI_BASE_URL=" + modelURL + "/v1"}, `msg="serving agents" addr=(\S+)`,
		"serve", "--config", dir, "--addr", "127.0.0.1:0")
	base := "http://" + addr

	// The agent offers the reference server's tools, and get-sum over SSE under its prefix.
	var info struct {
		Tools map[string]json.RawMessage `json:"tools"`
	}
	getJSON(t, base+"/api/agents/mcp", &info)
	for _, name := range []string{"echo", "get-sum", "get-structured-content", "sse_get-sum"} {
		if _, ok := info.Tools[name]; !ok {
			t.Errorf("agent info lacks tool %q: %v\nruntime output:\n%s", name, keys(info.Tools), runtime.Output())
		}
	}

	// generate: the tool's text content reaches the model (as every tool result does: JSON, here
	// a string), and the answer.
	for prompt, want := range map[string]string{
		"mcp-echo":    `Tool echo answered "Echo: from agentry"`,
		"mcp-sse-sum": `Tool sse_get-sum answered "The sum of 2 and 3 is 5."`,
	} {
		var out struct {
			Text string `json:"text"`
		}
		postJSON(t, base+"/api/agents/mcp/generate", `{"messages":[{"role":"user","content":"`+prompt+`"}]}`, &out)
		if out.Text != want {
			t.Errorf("generate %s: %q, want %q", prompt, out.Text, want)
		}
	}
	// A call the server refuses is a result the model sees, not a failed run.
	var bad struct {
		Text string `json:"text"`
	}
	postJSON(t, base+"/api/agents/mcp/generate", `{"messages":[{"role":"user","content":"mcp-tool-error"}]}`, &bad)
	if !strings.HasPrefix(bad.Text, "Tool get-sum answered ") || !strings.Contains(bad.Text, "error") {
		t.Errorf("a refused call: %q", bad.Text)
	}

	node := exec.Command("node", "--test", "--test-reporter=spec", "mcp.test.mjs")
	node.Env = append(os.Environ(), "AGENTRY_URL="+base)
	out, err := node.CombinedOutput()
	t.Logf("node --test mcp.test.mjs:\n%s", out)
	if err != nil || !strings.Contains(string(out), "ℹ fail 0") {
		t.Fatalf("MCP AG-UI suite failed: %v\nruntime output:\n%s", err, runtime.Output())
	}
}

func keys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	res, err := http.Get(url)
	testutil.Check(t, err)
	decode(t, res, v)
}

func postJSON(t *testing.T, url, body string, v any) {
	t.Helper()
	res, err := http.Post(url, "application/json", bytes.NewReader([]byte(body)))
	testutil.Check(t, err)
	decode(t, res, v)
}

func decode(t *testing.T, res *http.Response, v any) {
	t.Helper()
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d %s", res.Request.Method, res.Request.URL, res.StatusCode, data)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v: %s", res.Request.URL, err, data)
	}
}
