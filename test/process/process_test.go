// Package process runs the agentry binary as users do: separate processes, real ports, the
// scripted model as its own process behind OPENAI_BASE_URL.
package process

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

var (
	binary string
	// runtimeBinary is the runtime pods' build (-tags agentry_runtime).
	runtimeBinary string
)

func TestMain(m *testing.M) { testutil.RunWithBinaries(m, "../..", &binary, &runtimeBinary) }

func start(t *testing.T, env []string, ready string, args ...string) (*testutil.Proc, string) {
	t.Helper()
	return testutil.Start(t, binary, "../..", env, ready, args...)
}

// devReady matches the dev banner's chat line, printed once the agents' table is out and the
// chat knows the agents: a test reading the banner or calling the chat starts there.
const devReady = `Chat service: http://(\S+)/chat/v1`

func cleanEnv() []string { return testutil.CleanEnv() }

func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	testutil.Check(t, err)
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("not JSON: %s", raw)
	}
	return resp.StatusCode, out
}

const butter = `{"messages":[{"role":"user","content":"What can I use instead of butter?"}]}`

// TestServeAgainstSeparateModelProcess: OPENAI_BASE_URL pointed at an OpenAI-compatible server
// (the scripted model as its own process, requiring a key) works unchanged.
func TestServeAgainstSeparateModelProcess(t *testing.T) {
	_, modelURL := start(t, nil, `listening on (http://\S+)`, "scripted-model", "--addr", "127.0.0.1:0", "--require-api-key", "sk-test-123")
	env := []string{"OPENAI_BASE_URL=" + modelURL, "OPENAI_API_KEY=sk-test-123"}
	p, addr := start(t, env, `msg="serving agents" addr=(\S+)`, "serve", "--config", "config/samples", "--addr", "127.0.0.1:0")
	status, out := post(t, "http://"+addr+"/api/agents/chef/generate", butter)
	if status != 200 || !strings.Contains(fmt.Sprint(out["text"]), "olive oil") {
		t.Fatalf("%d %v\n%s", status, out, p.Output())
	}
	if strings.Contains(p.Output(), "sk-test-123") {
		t.Error("the API key must never be logged")
	}

	// The same server with a wrong key: the model's 401 comes back as a clear 500.
	env = []string{"OPENAI_BASE_URL=" + modelURL, "OPENAI_API_KEY=sk-wrong"}
	_, addr = start(t, env, `msg="serving agents" addr=(\S+)`, "serve", "--config", "config/samples", "--addr", "127.0.0.1:0")
	status, out = post(t, "http://"+addr+"/api/agents/weather/generate", `{"messages":"What is the weather in Paris?"}`)
	if msg := fmt.Sprint(out["error"]); status != 500 || !strings.Contains(msg, "401") || !strings.Contains(msg, "OPENAI_API_KEY") || strings.Contains(msg, "sk-wrong") {
		t.Errorf("%d %v", status, out)
	}
}

// TestDevWithoutKey is the README's newcomer path: agentry dev with no key, then the curl.
func TestDevWithoutKey(t *testing.T) {
	p, addr := start(t, nil, devReady, "dev", "--addr", "127.0.0.1:0")
	if !strings.Contains(p.Output(), "No OPENAI_API_KEY is set") {
		t.Errorf("the banner must say the scripted model is in use:\n%s", p.Output())
	}
	// Each agent's line names the route its platform provider calls.
	for _, route := range []string{`chef\s+POST http://\S+/api/agents/chef/ag-ui\n`, `weather\s+POST http://\S+/api/agents/weather/generate\n`} {
		if !regexp.MustCompile(route).MatchString(p.Output()) {
			t.Errorf("the banner does not match %s:\n%s", route, p.Output())
		}
	}
	resp, err := http.Get("http://" + addr + "/api/agents")
	testutil.Check(t, err)
	var list map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if _, ok := list["chef"]; !ok {
		t.Errorf("chef missing: %v", list)
	}
	if _, ok := list["weather"]; !ok {
		t.Errorf("weather missing: %v", list)
	}
	status, out := post(t, "http://"+addr+"/api/agents/chef/generate", butter)
	if status != 200 || out["text"] == "" || len(out["toolResults"].([]any)) != 1 {
		t.Errorf("%d %v", status, out)
	}
	status, out = post(t, "http://"+addr+"/api/agents/weather/generate", `{"messages":"What is the weather in Paris?"}`)
	if status != 200 || !strings.Contains(fmt.Sprint(out["text"]), "Paris") {
		t.Errorf("%d %v", status, out)
	}
	// The sample agent with MCP tools: dev serves the kitchen MCP server it uses.
	if !strings.Contains(p.Output(), "Sample MCP server (kitchen unit conversions): http://127.0.0.1:4112/mcp") {
		t.Errorf("the banner must name the sample MCP server:\n%s", p.Output())
	}
	status, out = post(t, "http://"+addr+"/api/agents/sous-chef/generate", `{"messages":"How many ml is 2 cups?"}`)
	results, _ := out["toolResults"].([]any)
	if status != 200 || out["text"] != "2 cups is 473.18 ml." || len(results) != 1 {
		t.Fatalf("sous-chef: %d %v", status, out)
	}
	if r := results[0].(map[string]any); r["toolName"] != "convert-units" || r["result"].(map[string]any)["quantity"] != 473.18 {
		t.Errorf("the MCP tool's structured result: %v", r)
	}
	// The tool metrics count MCP calls as they count every tool's.
	res, err := http.Get("http://" + addr + "/metrics")
	testutil.Check(t, err)
	metricsText, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if want := `agentry_tool_calls_total{agent="sous-chef",outcome="ok",tool="convert-units"} 1`; !strings.Contains(string(metricsText), want) {
		t.Errorf("metrics lack %s:\n%s", want, grepLines(string(metricsText), "agentry_tool_calls_total"))
	}
}

func TestServeRejectsInvalidConfig(t *testing.T) {
	dir := t.TempDir()
	bad := `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: broken}
spec:
  model: {name: m}
  maxSteps: 500
---
apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: badcel}
spec:
  id: badcel
  description: d
  inputSchema: {type: object}
  execute: {cel: "{'a': input.}"}
`
	file := filepath.Join(dir, "agents.yaml")
	testutil.Check(t, os.WriteFile(file, []byte(bad), 0o600))
	cmd := exec.Command(binary, "serve", "--config", dir, "--addr", "127.0.0.1:0")
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("start-up must fail:\n%s", out)
	}
	text := string(out)
	for _, want := range []string{file, `Agent "broken"`, "spec.maxSteps"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	// The Agent error stops loading before Tools compile; fix it and the CEL error shows.
	fixed := strings.Replace(bad, "maxSteps: 500", "maxSteps: 5", 1)
	_ = os.WriteFile(file, []byte(fixed), 0o600)
	cmd = exec.Command(binary, "serve", "--config", dir, "--addr", "127.0.0.1:0")
	cmd.Env = cleanEnv()
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), `Tool "badcel"`) || !strings.Contains(string(out), "spec.execute.cel") {
		t.Errorf("CEL error must name the tool and field:\n%s", out)
	}
}

func TestServeWarnsAboutMismatchedToolKey(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"tool_weather.yaml"} {
		data, _ := os.ReadFile(filepath.Join("../../config/samples", f))
		_ = os.WriteFile(filepath.Join(dir, f), data, 0o600)
	}
	agent := `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: mixup}
spec:
  model: {name: m}
  tools: [{key: getWeather, toolRef: {name: weather}}]
`
	_ = os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte(agent), 0o600)
	p, _ := start(t, nil, `msg="serving agents"`, "serve", "--config", dir, "--addr", "127.0.0.1:0")
	out := p.Output()
	if !strings.Contains(out, "level=WARN") || !strings.Contains(out, `tool key \"getWeather\" differs from the id \"weather\"`) {
		t.Errorf("start-up must warn naming key and id:\n%s", out)
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
