package server

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestAgentAsksAnAgent: a Tool with execute.a2a asks another agent over A2A (the runtime's own
// endpoint, reached through a proxy the test points at it once it listens); the other agent's
// answer is the tool's result, which the asking model uses. An agent that asks itself stops at
// the depth limit: the innermost call fails with a sentence the model sees, and the person
// still gets an answer.
func TestAgentAsksAnAgent(t *testing.T) {
	var target atomic.Pointer[url.URL]
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httputil.NewSingleHostReverseProxy(target.Load()).ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	script, err := scriptedmodel.ParseScript([]byte(`rules:
  - name: asked-back
    when: {lastRole: tool, lastTool: ask-loop}
    reply: {text: 'Loop ended: {{ .LastToolResult }}'}
  - name: after-ask
    when: {lastRole: tool}
    reply: {text: 'The forecaster said {{ .LastToolResult }}'}
  - name: ask
    when: {pattern: '^ask the forecaster'}
    reply:
      toolCalls: [{name: ask-forecaster, arguments: '{"message":"What is the weather in Paris?"}'}]
  - name: forecast
    when: {pattern: 'weather in Paris'}
    reply: {text: 'Sunny in Paris.'}
  - name: loop
    when: {pattern: 'loop'}
    reply:
      toolCalls: [{name: ask-loop, arguments: '{"message":"loop again"}'}]
fallback:
  text: Hello.
`))
	testutil.NoError(t, err)
	manifests := `
apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: ask-forecaster}
spec:
  id: ask-forecaster
  description: Asks the forecaster agent.
  inputSchema: {type: object, properties: {message: {type: string}}, required: [message]}
  execute:
    a2a: {url: "` + proxy.URL + `/a2a/forecaster"}
---
apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: ask-loop}
spec:
  id: ask-loop
  description: Asks the loop agent, which is this one.
  inputSchema: {type: object, properties: {message: {type: string}}, required: [message]}
  execute:
    a2a: {url: "` + proxy.URL + `/a2a/loop"}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: forecaster}
spec:
  model: {name: m}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: asker}
spec:
  model: {name: m}
  tools: [{key: ask-forecaster, toolRef: {name: ask-forecaster}}]
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: loop}
spec:
  model: {name: m}
  tools: [{key: ask-loop, toolRef: {name: ask-loop}}]
`
	rec := testutil.RecordSpans(t)
	prev := otel.GetTextMapPropagator()
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() { otel.SetTextMapPropagator(prev) })
	e := startEnv(t, script, envOptions{manifests: manifests})
	u, err := url.Parse(e.base)
	testutil.NoError(t, err)
	target.Store(u)

	status, body := e.doWith(http.MethodPost, "/api/agents/asker/generate", `{"messages":"ask the forecaster about Paris"}`, nil)
	if status != http.StatusOK || !strings.Contains(string(body), `The forecaster said {\"answer\":\"Sunny in Paris.\"}`) {
		t.Fatalf("asker: %d %s", status, body)
	}

	// One trace across both agents: the forecaster's run is a child of the asker's tool call.
	spans := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		spans[s.Name()] = s
	}
	asker, call, forecaster := spans["invoke_agent asker"], spans["execute_tool ask-forecaster"], spans["invoke_agent forecaster"]
	if asker == nil || call == nil || forecaster == nil {
		t.Fatalf("spans: %v", spans)
	}
	if forecaster.SpanContext().TraceID() != asker.SpanContext().TraceID() || forecaster.Parent().SpanID() != call.SpanContext().SpanID() {
		t.Errorf("the forecaster's run is not in the asker's trace under its tool call")
	}

	status, body = e.doWith(http.MethodPost, "/api/agents/loop/generate", `{"messages":"loop"}`, nil)
	if status != http.StatusOK || !strings.Contains(string(body), "Loop ended") || !strings.Contains(string(body), "it stops at 4") {
		t.Fatalf("loop: %d %s", status, body)
	}
}
