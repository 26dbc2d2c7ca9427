package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentry-dev/agentry/internal/platform/telemetry"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// Spans follow the OpenTelemetry GenAI semantic conventions: a run is "invoke_agent <agent>",
// each model call "chat <model>", each tool call "execute_tool <tool>". No prompt, completion,
// argument or result text goes on them (users' data; the tool's arguments may hold secrets);
// only names, ids, counts and outcomes.
//
// The tracer follows the global provider (telemetry.Tracer): it can be replaced.
var spans = telemetry.NewTracer("github.com/agentry-dev/agentry/runtime/agent")

func tracer() trace.Tracer { return spans.Get() }

// providerName is gen_ai.provider.name for the agent's provider.
func providerName(p string) attribute.KeyValue {
	switch p {
	case "azure-openai":
		return semconv.GenAIProviderNameAzureAIOpenAI
	case "", "openai":
		return semconv.GenAIProviderNameOpenAI
	}
	return semconv.GenAIProviderNameKey.String(p)
}

// spanStarts is what every run's and model call's span of one agent starts with: names and
// attributes that depend only on the agent, built once instead of on every span.
type spanStarts struct {
	runName, chatName string
	run, chat         []trace.SpanStartOption
}

func (a *Agent) spanStarts() *spanStarts {
	if s := a.starts.Load(); s != nil {
		return s
	}
	modelID := ""
	if a.Model != nil {
		modelID = a.Model.ModelID()
	}
	run := []attribute.KeyValue{
		semconv.GenAIOperationNameInvokeAgent, semconv.GenAIAgentID(a.ID), semconv.GenAIAgentName(a.Name), providerName(a.Provider),
	}
	if a.Model != nil {
		run = append(run, semconv.GenAIRequestModel(modelID))
	}
	s := &spanStarts{
		runName:  "invoke_agent " + a.ID,
		chatName: "chat " + modelID,
		run:      []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(run...)},
		chat: []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
			semconv.GenAIOperationNameChat, providerName(a.Provider), semconv.GenAIRequestModel(modelID), semconv.GenAIRequestStream(true))},
	}
	a.starts.Store(s) // two first runs at once build equal values: either may stay
	return s
}

func (a *Agent) startRun(ctx context.Context, conversation string) (context.Context, trace.Span) {
	s := a.spanStarts()
	if conversation == "" {
		return tracer().Start(ctx, s.runName, s.run...)
	}
	return tracer().Start(ctx, s.runName, append(s.run[:len(s.run):len(s.run)], trace.WithAttributes(semconv.GenAIConversationID(conversation)))...)
}

// finishReasons holds gen_ai.response.finish_reasons for the usual answers, built once (a
// string slice attribute is two allocations each time).
var finishReasons = map[string]attribute.KeyValue{}

func init() {
	for _, r := range []string{"stop", "length", "tool_calls", "tool-calls", "content_filter", "content-filter", "other", "suspended"} {
		finishReasons[r] = semconv.GenAIResponseFinishReasons(r)
	}
}

func finishReasonAttr(r string) attribute.KeyValue {
	if kv, ok := finishReasons[r]; ok {
		return kv
	}
	return semconv.GenAIResponseFinishReasons(r)
}

func endRun(span trace.Span, res *Result, err error) {
	if res != nil {
		span.SetAttributes(semconv.GenAIUsageInputTokensKey.Int64(res.Usage.PromptTokens), semconv.GenAIUsageOutputTokensKey.Int64(res.Usage.CompletionTokens),
			finishReasonAttr(res.FinishReason), attribute.Int("agentry.run.steps", len(res.Steps)))
	}
	failed(span, err)
	span.End()
}

func (a *Agent) startChat(ctx context.Context) (context.Context, trace.Span) {
	s := a.spanStarts()
	return tracer().Start(ctx, s.chatName, s.chat...)
}

// captureContent says whether prompts and completions go on chat spans: only when an operator
// opts in (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true).
func captureContent() bool { return telemetry.CaptureContent(os.Getenv) }

// recordContent puts the request's messages and the answer on the chat span, as the GenAI
// conventions' gen_ai.input.messages / gen_ai.output.messages, when the operator opted in.
func recordContent(span trace.Span, msgs []llm.Message, resp *llm.Response) {
	if !span.IsRecording() || !captureContent() { // no environment read per model call when not tracing
		return
	}
	type part struct {
		Type    string `json:"type"`
		Content string `json:"content"`
	}
	type message struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	in := make([]message, 0, len(msgs))
	for _, m := range msgs {
		in = append(in, message{Role: m.Role, Parts: []part{{Type: "text", Content: m.Content}}})
	}
	b, _ := json.Marshal(in)
	span.SetAttributes(attribute.String("gen_ai.input.messages", string(b)))
	if resp != nil {
		out := message{Role: "assistant"}
		if resp.Reasoning != "" {
			out.Parts = append(out.Parts, part{Type: "reasoning", Content: resp.Reasoning})
		}
		out.Parts = append(out.Parts, part{Type: "text", Content: resp.Text})
		b, _ = json.Marshal([]message{out})
		span.SetAttributes(attribute.String("gen_ai.output.messages", string(b)))
	}
}

func endChat(span trace.Span, resp *llm.Response, err error) {
	if resp != nil {
		span.SetAttributes(finishReasonAttr(resp.FinishReason),
			semconv.GenAIUsageInputTokensKey.Int64(resp.Usage.PromptTokens), semconv.GenAIUsageOutputTokensKey.Int64(resp.Usage.CompletionTokens))
	}
	failed(span, err)
	span.End()
}

// startTool starts an execute_tool span; kind is the tool's kind (cel, http, mcp, frontend).
func startTool(ctx context.Context, tc llm.ToolCall, kind string) (context.Context, trace.Span) {
	return tracer().Start(ctx, "execute_tool "+tc.Name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(tc.Name), semconv.GenAIToolCallID(tc.ID),
		semconv.GenAIToolType(toolType(kind)), attribute.String("agentry.tool.kind", kind)))
}

// toolType is gen_ai.tool.type: "function" runs here; an MCP or HTTP tool is an "extension"
// (it runs elsewhere); a frontend action runs in the client ("function" by its definition, kind
// says where).
func toolType(kind string) string {
	switch kind {
	case "http", "mcp":
		return "extension"
	}
	return "function"
}

// failed marks the span as an error with the error's type, never its message: errors may
// quote arguments, URLs or a server's answer.
func failed(span trace.Span, err error) {
	if err == nil {
		return
	}
	span.SetAttributes(semconv.ErrorTypeKey.String(errorType(err)))
	span.SetStatus(codes.Error, errorType(err))
}

// errorType names a failure's kind for error.type: a short, fixed vocabulary.
func errorType(err error) string {
	var ie *tools.InputError
	var me *llm.Error
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &ie):
		return "invalid_input"
	case errors.As(err, &me) && me.Status > 0:
		return fmt.Sprintf("http_%d", me.Status)
	}
	return "error"
}
