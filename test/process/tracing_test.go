package process

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

var (
	collectorOnce sync.Once
	collectorBin  string
	collectorErr  error
)

// collector starts a real OpenTelemetry Collector (built once per run from hack/otelcol).
func collector(t *testing.T) *testutil.Collector {
	t.Helper()
	collectorOnce.Do(func() { collectorBin, collectorErr = testutil.CollectorBinary("../..") })
	if collectorErr != nil {
		t.Fatal(collectorErr)
	}
	return testutil.StartCollector(t, collectorBin)
}

func find(spans []testutil.Span, match func(testutil.Span) bool) (testutil.Span, bool) {
	for _, s := range spans {
		if match(s) {
			return s, true
		}
	}
	return testutil.Span{}, false
}

const (
	kindInternal = 1
	kindServer   = 2
	kindClient   = 3
	statusError  = 2
)

// TestTraceFromChatMessageToModelCall: with OTEL_EXPORTER_OTLP_ENDPOINT set, a chat message to
// the chef in `agentry dev` is one trace in a real collector: the send, the chat bridge's run
// (a client span), the runtime's run (its child, across the HTTP call's traceparent), the model
// calls and the tool call, with the GenAI attributes; the answer carries the trace id; no
// secret and no message text in any attribute.
func TestTraceFromChatMessageToModelCall(t *testing.T) {
	col := collector(t)
	dir := t.TempDir()
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + col.Endpoint, "OTEL_SERVICE_NAME=agentry-dev-test"}
	samples, err := filepath.Abs("../../config/samples")
	testutil.Check(t, err)
	p, base := testutil.Start(t, binary, dir, env, `Chat service: (http://\S+)/chat/v1`, "dev", "--addr", "127.0.0.1:0", "--dir", samples, "--model-pace", "0")
	base += "/chat/v1"
	key, err := os.ReadFile(filepath.Join(dir, ".agentry", "chat-api-key"))
	testutil.Check(t, err)
	apiKey := strings.TrimSpace(string(key))
	status, raw, err := devCall(http.MethodPost, base+"/users/alice/auth_tokens", "", apiKey, map[string]any{})
	if err != nil || status != http.StatusCreated {
		t.Fatalf("token: %d %v %s", status, err, raw)
	}
	var tok struct{ AuthToken string }
	_ = json.Unmarshal(raw, &tok)
	question := "What can I use instead of butter?"
	if status, raw, err = devCall(http.MethodPost, base+"/messages", tok.AuthToken, "", map[string]any{"receiver": "chef", "receiverType": "user", "text": question}); err != nil || status != http.StatusCreated {
		t.Fatalf("send: %d %v %s", status, err, raw)
	}
	answer := waitAnswer(t, base, tok.AuthToken, p)
	var data struct{ TraceID string }
	_ = json.Unmarshal(answer.Data, &data)
	if len(data.TraceID) != 32 {
		t.Fatalf("the answer carries no trace id: %s", answer.Data)
	}

	// The processes export their spans in batches: wait for every span the checks need.
	spans := col.WaitSpans(t, 30*time.Second, func(spans []testutil.Span) bool {
		n := map[string]int{}
		for _, s := range spans {
			if s.TraceID == data.TraceID && strings.HasPrefix(s.Name, "chat ") && s.Kind == kindClient {
				n["model call"]++
			} else if s.TraceID == data.TraceID {
				n[s.Name]++
			}
		}
		// the send, the bridge's run and the runtime's, 2 model calls, the tool
		return n["chat send_message"] > 0 && n["invoke_agent chef"] >= 2 && n["model call"] >= 2 && n["execute_tool suggest-substitute"] > 0
	})
	var trace []testutil.Span
	for _, s := range spans {
		if s.TraceID == data.TraceID {
			trace = append(trace, s)
		}
	}
	checkDevTrace(t, trace)
	noSecrets(t, spans, apiKey, tok.AuthToken, question, "olive oil")

	checkCallerTraceparent(t, col, base, tok.AuthToken)
}

// checkDevTrace checks a chat message's trace in agentry dev: the send span, its child the
// bridge's run, whose child is the runtime's run (across the HTTP call's traceparent), and the
// run's children, two model calls and one tool call, with the GenAI attributes.
func checkDevTrace(t *testing.T, trace []testutil.Span) {
	t.Helper()
	send, ok := find(trace, func(s testutil.Span) bool { return s.Name == "chat send_message" && s.Kind == kindServer })
	if !ok {
		t.Fatalf("no send span in %+v", trace)
	}
	bridge, ok := find(trace, func(s testutil.Span) bool { return s.Name == "invoke_agent chef" && s.Kind == kindClient })
	if !ok || bridge.ParentSpanID != send.SpanID {
		t.Fatalf("the bridge's run is not the send's child: %+v", bridge)
	}
	run, ok := find(trace, func(s testutil.Span) bool { return s.Name == "invoke_agent chef" && s.Kind == kindInternal })
	if !ok || run.ParentSpanID != bridge.SpanID {
		t.Fatalf("the runtime's run is not the bridge's child (traceparent over HTTP): %+v", run)
	}
	chats, tools := 0, 0
	for _, s := range trace {
		switch {
		case strings.HasPrefix(s.Name, "chat ") && s.Kind == kindClient:
			chats++
			if s.ParentSpanID != run.SpanID || s.Attributes["gen_ai.operation.name"] != "chat" || s.Attributes["gen_ai.provider.name"] != "openai" {
				t.Errorf("model call span %+v", s)
			}
			if in, _ := s.Attributes["gen_ai.usage.input_tokens"].(string); in == "" || in == "0" {
				t.Errorf("model call without input tokens: %+v", s.Attributes)
			}
		case s.Name == "execute_tool suggest-substitute":
			tools++
			if s.ParentSpanID != run.SpanID || s.Attributes["gen_ai.tool.type"] != "function" || s.Attributes["agentry.tool.kind"] != "cel" || s.StatusCode == statusError {
				t.Errorf("tool span %+v", s)
			}
		}
	}
	if chats != 2 || tools != 1 {
		t.Errorf("%d model call spans, %d tool spans", chats, tools)
	}
	for k, want := range map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.id": "chef", "gen_ai.conversation.id": bridge.Attributes["gen_ai.conversation.id"].(string)} {
		if run.Attributes[k] != want {
			t.Errorf("runtime run %s = %v, want %q", k, run.Attributes[k], want)
		}
	}
	if run.Service != "agentry-dev-test" {
		t.Errorf("service %q", run.Service)
	}
}

// checkCallerTraceparent sends a message as another system that traces would: its traceparent
// is continued by the send span.
func checkCallerTraceparent(t *testing.T, col *testutil.Collector, base, token string) {
	t.Helper()
	const callerTrace, callerSpan = "6bf92f3577b34da6a3ce929d0e0e4738", "00f067aa0ba902b9"
	body, _ := json.Marshal(map[string]any{"receiver": "chef", "receiverType": "user", "text": "Hello, chef."})
	req, _ := http.NewRequest(http.MethodPost, base+"/messages", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("traceparent", "00-"+callerTrace+"-"+callerSpan+"-01")
	if status, raw, err := doCall(req); err != nil || status != http.StatusCreated {
		t.Fatalf("send with traceparent: %d %v %s", status, err, raw)
	}
	spans := col.WaitSpans(t, 20*time.Second, func(spans []testutil.Span) bool {
		_, ok := find(spans, func(s testutil.Span) bool { return s.TraceID == callerTrace && s.Name == "chat send_message" })
		return ok
	})
	if send, _ := find(spans, func(s testutil.Span) bool { return s.TraceID == callerTrace && s.Name == "chat send_message" }); send.ParentSpanID != callerSpan {
		t.Errorf("the send span does not continue the caller's span: %+v", send)
	}
}

// waitAnswer polls the user's conversation with the chef until the chef's answer is there.
func waitAnswer(t *testing.T, base, token string, p *testutil.Proc) chatMessage {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		_, raw, _ := devCall(http.MethodGet, base+"/users/chef/messages?limit=20", token, "", nil)
		var page struct{ Items []chatMessage }
		_ = json.Unmarshal(raw, &page)
		for _, m := range page.Items {
			if m.Sender == "chef" && m.Type == "assistant" && strings.Contains(m.Text, "olive oil") {
				return m
			}
		}
	}
	t.Fatalf("no answer from the chef\n%s", p.Output())
	return chatMessage{}
}

// noSecrets fails when any attribute of any span holds one of the values.
func noSecrets(t *testing.T, spans []testutil.Span, values ...string) {
	t.Helper()
	for _, s := range spans {
		for k, v := range s.Attributes {
			for _, secret := range values {
				if secret != "" && strings.Contains(fmt.Sprint(v), secret) {
					t.Errorf("span %s attribute %s holds %q", s.Name, k, secret)
				}
			}
		}
	}
}

// TestTracedFailures: `agentry serve` continues a caller's traceparent; a tool that fails and
// a model call that fails are error spans (error.type set); the model key is in no attribute.
func TestTracedFailures(t *testing.T) {
	col := collector(t)
	script := filepath.Join(t.TempDir(), "script.yaml")
	if err := os.WriteFile(script, []byte(`rules:
  - name: after-the-broken-tool
    when: {lastRole: tool}
    reply: {text: "The tool failed."}
  - name: break-the-tool
    when: {pattern: "break the tool"}
    reply:
      toolCalls: [{name: suggest-substitute, arguments: "{}"}]
  - name: break-the-model
    when: {pattern: "break the model"}
    reply: {status: 500, error: "the model is down"}
fallback: {text: "ok"}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, modelURL := start(t, nil, `listening on (http://\S+)`, "scripted-model", "--addr", "127.0.0.1:0", "--script", script, "--require-api-key", "sk-trace-secret-42")
	env := []string{"OPENAI_BASE_URL=" + modelURL, "OPENAI_API_KEY=sk-trace-secret-42", "OTEL_EXPORTER_OTLP_ENDPOINT=" + col.Endpoint}
	p, addr := start(t, env, `msg="serving agents" addr=(\S+)`, "serve", "--config", "config/samples", "--addr", "127.0.0.1:0")

	generate := func(text, traceparent string) int {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/api/agents/chef/generate",
			strings.NewReader(fmt.Sprintf(`{"messages":[{"role":"user","content":%q}]}`, text)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("traceparent", traceparent)
		res, err := http.DefaultClient.Do(req)
		testutil.Check(t, err)
		_ = res.Body.Close()
		return res.StatusCode
	}
	const toolTrace, modelTrace = "4bf92f3577b34da6a3ce929d0e0e4736", "5bf92f3577b34da6a3ce929d0e0e4737"
	if s := generate("please break the tool", "00-"+toolTrace+"-00f067aa0ba902b7-01"); s != http.StatusOK {
		t.Fatalf("tool failure run: %d\n%s", s, p.Output())
	}
	if s := generate("please break the model", "00-"+modelTrace+"-00f067aa0ba902b8-01"); s != http.StatusInternalServerError {
		t.Fatalf("model failure run: %d\n%s", s, p.Output())
	}
	spans := col.WaitSpans(t, 20*time.Second, func(spans []testutil.Span) bool {
		_, a := find(spans, func(s testutil.Span) bool { return s.TraceID == toolTrace && s.Name == "invoke_agent chef" })
		_, b := find(spans, func(s testutil.Span) bool { return s.TraceID == modelTrace && s.Name == "invoke_agent chef" })
		return a && b
	})
	tool, ok := find(spans, func(s testutil.Span) bool {
		return s.TraceID == toolTrace && s.Name == "execute_tool suggest-substitute"
	})
	if !ok || tool.StatusCode != statusError || tool.Attributes["error.type"] != "invalid_input" {
		t.Errorf("the failed tool's span: %+v", tool)
	}
	run, _ := find(spans, func(s testutil.Span) bool { return s.TraceID == toolTrace && s.Name == "invoke_agent chef" })
	if run.ParentSpanID != "00f067aa0ba902b7" || run.StatusCode == statusError {
		t.Errorf("the run continues the caller's span and succeeds (the model read the tool's error): %+v", run)
	}
	chat, ok := find(spans, func(s testutil.Span) bool { return s.TraceID == modelTrace && strings.HasPrefix(s.Name, "chat ") })
	if !ok || chat.StatusCode != statusError || chat.Attributes["error.type"] != "http_500" {
		t.Errorf("the failed model call's span: %+v", chat)
	}
	failedRun, _ := find(spans, func(s testutil.Span) bool { return s.TraceID == modelTrace && s.Name == "invoke_agent chef" })
	if failedRun.StatusCode != statusError {
		t.Errorf("the failed run's span: %+v", failedRun)
	}
	noSecrets(t, spans, "sk-trace-secret-42", "break the tool", "break the model")
}
