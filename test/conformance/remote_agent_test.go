package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// hangTimeout is the hanging tool's spec.execute.timeout.
const hangTimeout = 2 * time.Second

// remoteManifests is an Agent with three Tools asking the A2A agent at url (remote-agent.mjs):
// the message each one sends picks the remote's behaviour; the one that makes it hang has a
// short timeout.
func remoteManifests(url string) string {
	tool := func(name, timeout string) string {
		return fmt.Sprintf(`apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: %[1]s}
spec:
  id: %[1]s
  description: Asks the remote agent (official JS SDK).
  inputSchema: {type: object, required: [message], properties: {message: {type: string}}}
  execute:
    a2a: {url: %[2]q}
%[3]s---
`, name, url, timeout)
	}
	return tool("ask-remote", "") + tool("ask-failing", "") + tool("ask-hanging", "    timeout: "+hangTimeout.String()+"\n") +
		`apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: asker}
spec:
  model: {name: scripted, maxRetries: 0}
  tools:
  - {key: ask-remote, toolRef: {name: ask-remote}}
  - {key: ask-failing, toolRef: {name: ask-failing}}
  - {key: ask-hanging, toolRef: {name: ask-hanging}}
  endpoint:
    rateLimit: {requestsPerMinute: 0}
`
}

// generated is the part of a generate answer the test reads.
type generated struct {
	Text         string `json:"text"`
	FinishReason string `json:"finishReason"`
	ToolResults  []struct {
		ToolName string          `json:"toolName"`
		Result   json.RawMessage `json:"result"`
		IsError  bool            `json:"isError"`
	} `json:"toolResults"`
}

// TestAgentUsesJSSDKAgentAsTool: an Agentry agent uses an A2A agent served by the official
// JavaScript SDK as a tool. Its answer is the tool's result; a task it ends failed and a call it
// never answers are tool results the model sees (the run still answers), and the hanging call
// ends at the tool's timeout with the remote seeing the request go away.
func TestAgentUsesJSSDKAgentAsTool(t *testing.T) {
	remote, remoteURL := testutil.StartRemoteAgent(t)

	// The SDK serves the card; it names the endpoint the tools call.
	var card struct {
		URL             string            `json:"url"`
		ProtocolVersion string            `json:"protocolVersion"`
		Skills          []json.RawMessage `json:"skills"`
	}
	getJSON(t, remoteURL+".well-known/agent-card.json", &card)
	if card.URL != remoteURL || card.ProtocolVersion != "0.3.0" || len(card.Skills) != 1 {
		t.Fatalf("remote card: %+v, want url %s, protocolVersion 0.3.0, one skill", card, remoteURL)
	}

	dir := t.TempDir()
	testutil.Check(t, os.WriteFile(filepath.Join(dir, "remote.yaml"), []byte(remoteManifests(remoteURL)), 0o600))
	_, modelURL := testutil.Start(t, binary, ".", nil, `listening on (http://\S+)/v1`,
		"scripted-model", "--addr", "127.0.0.1:0", "--script", "remote-model-script.yaml")
	runtime, addr := testutil.Start(t, binary, ".", []string{"OPENAI_BASE_URL=" + modelURL + "/v1"}, `msg="serving agents" addr=(\S+)`,
		"serve", "--config", dir, "--addr", "127.0.0.1:0")
	client := &http.Client{Timeout: 30 * time.Second}
	generate := func(prompt string) (generated, time.Duration) {
		t.Helper()
		start := time.Now()
		res, err := client.Post("http://"+addr+"/api/agents/asker/generate", "application/json",
			strings.NewReader(`{"messages":"`+prompt+`"}`))
		testutil.Check(t, err)
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		took := time.Since(start)
		var out generated
		if res.StatusCode != http.StatusOK || json.Unmarshal(body, &out) != nil || len(out.ToolResults) != 1 {
			t.Fatalf("generate %s: %d %s\nruntime output:\n%s\nremote output:\n%s", prompt, res.StatusCode, body, runtime.Output(), remote.Output())
		}
		return out, took
	}

	// (a) The remote's answer is the tool's result, and the model's final text uses it.
	out, _ := generate("remote-echo")
	const heard = "Remote agent heard: What is the capital of Norway?"
	if r := out.ToolResults[0]; r.ToolName != "ask-remote" || r.IsError || string(r.Result) != `{"answer":"`+heard+`"}` {
		t.Errorf("echo: tool result %s %s (isError %v)", r.ToolName, r.Result, r.IsError)
	}
	if !strings.Contains(out.Text, heard) || out.FinishReason != "stop" {
		t.Errorf("echo: text %q (finish %q) lacks the remote's answer", out.Text, out.FinishReason)
	}

	// An answer in the completed task's status message (no artifact) is the answer too.
	out, _ = generate("remote-brief")
	if r := out.ToolResults[0]; r.IsError || string(r.Result) != `{"answer":"Briefly: answer briefly"}` {
		t.Errorf("brief: tool result %s (isError %v)", r.Result, r.IsError)
	}

	// (b) A task the remote ends failed is a tool error the model sees, with the remote's words.
	out, _ = generate("remote-fail")
	const failed = `{"error":"the other agent's task ended failed: the remote agent failed on purpose"}`
	if r := out.ToolResults[0]; r.ToolName != "ask-failing" || !r.IsError || string(r.Result) != failed {
		t.Errorf("fail: tool result %s %s (isError %v), want error %s", r.ToolName, r.Result, r.IsError, failed)
	}
	if !strings.Contains(out.Text, "the remote agent failed on purpose") {
		t.Errorf("fail: text %q", out.Text)
	}

	// (c) A remote that never answers: the run answers once the tool's timeout is up, with a
	// tool error saying so, and the remote sees the request go away.
	out, took := generate("remote-hang")
	if took < hangTimeout || took > hangTimeout+5*time.Second {
		t.Errorf("hang: generate took %v, want the tool's timeout %v plus a little", took, hangTimeout)
	}
	if r := out.ToolResults[0]; r.ToolName != "ask-hanging" || !r.IsError || !strings.Contains(string(r.Result), "did not answer in time") {
		t.Errorf("hang: tool result %s %s (isError %v), want a timeout error", r.ToolName, r.Result, r.IsError)
	}
	ended := regexp.MustCompile(`hanging task \S+ ended: the client went away`)
	testutil.Eventually(t, "the remote agent to see the hanging request end", 10*time.Second, 50*time.Millisecond, func() error {
		if !ended.MatchString(remote.Output()) {
			return fmt.Errorf("remote output:\n%s", remote.Output())
		}
		return nil
	})
}
