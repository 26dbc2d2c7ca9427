package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/agentry-dev/agentry/internal/platform/ids"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/metrics"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// EventType says what happened in a run.
type EventType int

// Run events, in the order they can occur within a step.
const (
	EventStepStarted EventType = iota
	// The model's reasoning, when it streams any: always before the step's text and tool
	// calls, and ended before they start.
	EventReasoningStart
	EventReasoningDelta
	EventReasoningEnd
	EventTextStart
	EventTextDelta
	EventTextEnd
	EventToolCallStart
	EventToolCallArgs
	EventToolCallEnd
	EventToolResult
	EventStepFinished
)

// Event is one thing that happened in a run. Sinks get events from one goroutine.
type Event struct {
	Type EventType
	Step int
	// MessageID is the assistant message of the step (text, and parent of tool calls). The
	// step's reasoning is a message of its own: ReasoningMessageID(MessageID).
	MessageID string
	// Delta is a text, reasoning or arguments fragment.
	Delta string
	// ToolCall identifies the call (ID, Name; Arguments complete on ToolCallEnd and ToolResult).
	ToolCall llm.ToolCall
	// Frontend marks calls the client executes.
	Frontend bool
	// Result is the tool's JSON output (on error: {"error": "..."}).
	Result  json.RawMessage
	IsError bool
	// FinishReason and Usage are set on EventStepFinished.
	FinishReason string
	Usage        llm.Usage
}

// Sink receives the events of a run. Returning an error aborts the run.
type Sink func(Event) error

// Input is one request to the agent.
type Input struct {
	Messages []llm.Message
	// ClientTools are tools the client executes (AG-UI frontend tools), in addition to the
	// agent's FrontendActions.
	ClientTools []tools.Definition
	// MaxSteps, when > 0, lowers the agent's limit for this request.
	MaxSteps int
	// Conversation names the conversation (thread) for traces, when there is one.
	Conversation string
}

// ToolResult is the outcome of one tool call.
type ToolResult struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Args       json.RawMessage `json:"args"`
	Result     json.RawMessage `json:"result"`
	IsError    bool            `json:"isError,omitempty"`
}

// Step is one model step of a run.
type Step struct {
	Text string `json:"text"`
	// Reasoning is the model's reasoning of the step; never part of Text or of the messages
	// the model sees again.
	Reasoning    string         `json:"reasoning,omitempty"`
	ToolCalls    []llm.ToolCall `json:"toolCalls"`
	ToolResults  []ToolResult   `json:"toolResults"`
	FinishReason string         `json:"finishReason"`
	Usage        llm.Usage      `json:"usage"`
}

// Result is the outcome of a run.
type Result struct {
	// Text is the last step's text.
	Text string
	// Reasoning is the run's reasoning, every step's in order (Mastra's reasoningText).
	Reasoning string
	// FinishReason: stop, length, content-filter, tool-calls (frontend tools are pending or
	// the step limit was reached with tool calls), or other.
	FinishReason string
	Usage        llm.Usage
	Steps        []Step
	// PendingToolCalls are frontend calls the client must execute and answer.
	PendingToolCalls []llm.ToolCall
	// Messages are the messages the run added to the conversation (assistant and tool).
	Messages []llm.Message
	// Suspended is set when the run stopped at tool calls that wait for approval (FinishReason
	// "suspended"): the state to store and continue with Resume once they are decided.
	Suspended *Suspension
}

// ToolCalls are every tool call of the run, in order.
func (r *Result) ToolCalls() []llm.ToolCall {
	out := []llm.ToolCall{}
	for _, s := range r.Steps {
		out = append(out, s.ToolCalls...)
	}
	return out
}

// ToolResults are every server tool result of the run, in order.
func (r *Result) ToolResults() []ToolResult {
	out := []ToolResult{}
	for _, s := range r.Steps {
		out = append(out, s.ToolResults...)
	}
	return out
}

func finishReason(openAI string) string {
	switch openAI {
	case "stop":
		return "stop"
	case "length":
		return "length"
	case "tool_calls", "function_call":
		return "tool-calls"
	case "content_filter":
		return "content-filter"
	default:
		return "other"
	}
}

// Run executes the loop. Events go to sink as they happen; the complete result is returned.
// When ctx is canceled (the client went away) the model request and running tools stop.
func (a *Agent) Run(ctx context.Context, in Input, sink Sink) (*Result, error) {
	return a.observed(ctx, in.Conversation, func(ctx context.Context) (*Result, error) { return a.run(ctx, in, sink) })
}

// observed runs fn as one run of the agent: its invoke_agent span and agentry_runs_total, or
// the run begun on ctx by BeginRun (observe.go), which EndRun then closes.
func (a *Agent) observed(ctx context.Context, conversation string, fn func(context.Context) (*Result, error)) (res *Result, err error) {
	if o := observing(ctx); o.join(a, conversation) {
		res, err = fn(ctx)
		o.res, o.err, o.outcome = res, err, runOutcome(ctx, err)
		return res, err
	}
	ctx, span := a.startRun(ctx, conversation)
	defer func() {
		endRun(span, res, err)
		metrics.Runs.WithLabelValues(a.ID, runOutcome(ctx, err)).Inc()
	}()
	return fn(ctx)
}

// withInstructions is the conversation as the model sees it: the agent's instructions first.
func (a *Agent) withInstructions(conversation []llm.Message, room int) []llm.Message {
	msgs := make([]llm.Message, 0, len(conversation)+room+1)
	if a.Instructions != "" {
		msgs = append(msgs, llm.Message{Role: "system", Content: a.Instructions})
	}
	return append(msgs, conversation...)
}

func (a *Agent) run(ctx context.Context, in Input, sink Sink) (*Result, error) {
	maxSteps := a.EffectiveMaxSteps()
	if in.MaxSteps > 0 && in.MaxSteps < maxSteps {
		maxSteps = in.MaxSteps
	}
	msgs := a.withInstructions(in.Messages, 0)
	return a.loop(ctx, &loopState{msgs: msgs, res: &Result{}, clientTools: in.ClientTools, maxSteps: maxSteps, conversation: in.Conversation}, sink)
}

// loopState is where a run is: the conversation the model sees, what the run has produced and
// the last finished step (0 before the first). A run stopped for approval continues from it.
type loopState struct {
	msgs         []llm.Message
	res          *Result
	clientTools  []tools.Definition
	maxSteps     int
	step         int
	conversation string
}

func (a *Agent) loop(ctx context.Context, ls *loopState, sink Sink) (*Result, error) {
	if sink == nil {
		sink = func(Event) error { return nil }
	}
	log := logr.FromContextOrDiscard(ctx).WithValues("agent", a.ID)
	defs, frontend := a.offeredTools(ls.clientTools)
	res := ls.res
	for step := ls.step + 1; ; step++ {
		msgID := ids.New("msg")
		if err := sink(Event{Type: EventStepStarted, Step: step, MessageID: msgID}); err != nil {
			return nil, err
		}
		resp, err := a.callModel(ctx, ls.msgs, defs, &streamHandler{sink: sink, step: step, msgID: msgID, frontend: frontend})
		if err != nil {
			return nil, err
		}
		log.V(1).Info("model step finished", "step", step, "finishReason", resp.FinishReason, "toolCalls", len(resp.ToolCalls))

		st := Step{Text: resp.Text, Reasoning: resp.Reasoning, ToolCalls: nonNil(resp.ToolCalls), ToolResults: []ToolResult{}, FinishReason: finishReason(resp.FinishReason), Usage: resp.Usage}
		assistant := llm.Message{ID: msgID, Role: "assistant", Content: resp.Text, ToolCalls: resp.ToolCalls}
		ls.msgs = append(ls.msgs, assistant)
		res.Messages = append(res.Messages, assistant)
		res.Usage.Add(resp.Usage)
		res.Text = resp.Text
		res.Reasoning += resp.Reasoning
		res.FinishReason = st.FinishReason

		pending, server, held := a.sortToolCalls(ctx, resp.ToolCalls, frontend)
		if len(server) > 0 {
			results, err := a.runTools(ctx, server, step, msgID, sink)
			if err != nil {
				return nil, err
			}
			st.ToolResults = results
			for _, r := range results {
				m := llm.Message{ID: ToolMessageID(msgID, r.ToolCallID), Role: "tool", Content: string(r.Result), ToolCallID: r.ToolCallID}
				ls.msgs = append(ls.msgs, m)
				res.Messages = append(res.Messages, m)
			}
		}
		if len(resp.ToolCalls) > 0 {
			res.FinishReason = "tool-calls"
			st.FinishReason = "tool-calls"
		}
		res.Steps = append(res.Steps, st)
		if err := sink(Event{Type: EventStepFinished, Step: step, MessageID: msgID, FinishReason: st.FinishReason, Usage: resp.Usage}); err != nil {
			return nil, err
		}
		ls.step = step
		if len(held) > 0 {
			a.suspend(ls, msgID, held, pending)
			metrics.RunSteps.WithLabelValues(a.ID).Observe(float64(step))
			return res, nil
		}
		if len(resp.ToolCalls) == 0 || len(pending) > 0 || step >= ls.maxSteps {
			res.PendingToolCalls = pending
			metrics.RunSteps.WithLabelValues(a.ID).Observe(float64(step))
			return res, nil
		}
	}
}

// callModel streams one model step to h and records it (span, metrics); h is closed after a
// successful stream.
func (a *Agent) callModel(ctx context.Context, msgs []llm.Message, defs []tools.Definition, h *streamHandler) (*llm.Response, error) {
	started := time.Now()
	chatCtx, chat := a.startChat(ctx)
	resp, err := a.Model.Stream(chatCtx, llm.Request{Messages: msgs, Tools: defs}, h)
	recordContent(chat, msgs, resp)
	endChat(chat, resp, err)
	metrics.ModelDuration.WithLabelValues(a.ID).Observe(time.Since(started).Seconds())
	if err != nil {
		outcome := "error"
		if ctx.Err() != nil {
			outcome = "canceled"
		}
		metrics.ModelRequests.WithLabelValues(a.ID, outcome).Inc()
		return nil, err
	}
	metrics.ModelRequests.WithLabelValues(a.ID, "ok").Inc()
	metrics.ModelTokens.WithLabelValues(a.ID, a.Model.ModelID(), "prompt").Add(float64(resp.Usage.PromptTokens))
	metrics.ModelTokens.WithLabelValues(a.ID, a.Model.ModelID(), "completion").Add(float64(resp.Usage.CompletionTokens))
	return resp, h.close()
}

// sortToolCalls splits a step's tool calls into those the client runs (pending; their spans
// mark the handoff), those the server runs now and those held for approval.
func (a *Agent) sortToolCalls(ctx context.Context, calls []llm.ToolCall, frontend map[string]bool) (pending, server, held []llm.ToolCall) {
	for _, tc := range calls {
		switch {
		case frontend[tc.Name]:
			pending = append(pending, tc)
			metrics.ToolCalls.WithLabelValues(a.ID, a.toolLabel(tc.Name), "frontend").Inc()
			_, fs := startTool(ctx, tc, "frontend")
			fs.End()
		case a.needsApproval(tc.Name):
			held = append(held, tc)
		default:
			server = append(server, tc)
		}
	}
	return pending, server, held
}

// Metric labels for tool names that are not configured: a request's client tools and names the
// model made up. Their names come from outside, so labelling with them would let a client
// create any number of series.
const (
	labelClientTool  = "client"
	labelUnknownTool = "unknown"
)

// toolLabel is the tool label of agentry_tool_calls_total: the name of a configured tool or
// FrontendAction, else a fixed label.
func (a *Agent) toolLabel(name string) string {
	if _, ok := a.Tools[name]; ok {
		return name
	}
	for _, f := range a.FrontendActions {
		if f.Name == name {
			return name
		}
	}
	return labelClientTool
}

// offeredTools merges the agent's server tools, its FrontendActions and the request's client
// tools. A server tool wins a name clash: its key is what the model must be able to call.
func (a *Agent) offeredTools(client []tools.Definition) ([]tools.Definition, map[string]bool) {
	defs := make([]tools.Definition, 0, len(a.ToolKeys)+len(a.FrontendActions)+len(client))
	seen := map[string]bool{}
	frontend := map[string]bool{}
	for _, k := range a.ToolKeys {
		defs = append(defs, a.Tools[k].Definition())
		seen[k] = true
	}
	add := func(d tools.Definition) {
		if d.Name == "" || seen[d.Name] {
			return
		}
		seen[d.Name] = true
		frontend[d.Name] = true
		defs = append(defs, d)
	}
	for _, f := range a.FrontendActions {
		add(f.Definition())
	}
	for _, d := range client {
		add(d)
	}
	return defs, frontend
}

func nonNil(calls []llm.ToolCall) []llm.ToolCall {
	if calls == nil {
		return []llm.ToolCall{}
	}
	return calls
}

// errorResult is what the model sees when a tool fails: the failure, so it can recover.
func errorResult(msg string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return b
}

// runTools executes the step's server tool calls concurrently. Results are reported as they
// complete and returned in call order.
func (a *Agent) runTools(ctx context.Context, calls []llm.ToolCall, step int, msgID string, sink Sink) ([]ToolResult, error) {
	type done struct {
		i int
		r ToolResult
	}
	ch := make(chan done, len(calls))
	for i, tc := range calls {
		go func() {
			ch <- done{i, a.callTool(ctx, tc)}
		}()
	}
	results := make([]ToolResult, len(calls))
	var sinkErr error
	for range calls {
		d := <-ch
		results[d.i] = d.r
		if sinkErr == nil {
			tc := calls[d.i]
			sinkErr = sink(Event{Type: EventToolResult, Step: step, MessageID: msgID, ToolCall: tc, Result: d.r.Result, IsError: d.r.IsError})
		}
	}
	if sinkErr != nil {
		return nil, sinkErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return results, nil
}

func (a *Agent) callTool(ctx context.Context, tc llm.ToolCall) (r ToolResult) {
	kind := "unknown"
	if t, ok := a.Tools[tc.Name]; ok {
		kind = t.Kind
	}
	ctx, span := startTool(ctx, tc, kind)
	errType := "tool_not_found"
	defer func() {
		if r.IsError {
			span.SetAttributes(semconv.ErrorTypeKey.String(errType))
			span.SetStatus(codes.Error, errType)
		}
		span.End()
	}()
	r = ToolResult{ToolCallID: tc.ID, ToolName: tc.Name, Args: RawArgs(tc.Arguments)}
	tool, ok := a.Tools[tc.Name]
	if !ok {
		r.Result, r.IsError = errorResult(fmt.Sprintf("tool %q is not available; use one of the offered tools", tc.Name)), true
		metrics.ToolCalls.WithLabelValues(a.ID, labelUnknownTool, "error").Inc()
		return r
	}
	out, err := tool.Call(ctx, json.RawMessage(tc.Arguments))
	if err != nil {
		outcome := "error"
		var ie *tools.InputError
		if errors.As(err, &ie) {
			outcome = "invalid_input"
		}
		metrics.ToolCalls.WithLabelValues(a.ID, tc.Name, outcome).Inc()
		logr.FromContextOrDiscard(ctx).V(1).Info("tool call failed", "agent", a.ID, "tool", tc.Name, "error", err.Error())
		r.Result, r.IsError = errorResult(err.Error()), true
		if errType = errorType(err); errType == "error" {
			errType = "tool_error" // the tool ran and failed (its server's error, a bad output)
		}
		return r
	}
	metrics.ToolCalls.WithLabelValues(a.ID, tc.Name, "ok").Inc()
	r.Result = out
	return r
}

// ToolMessageID is the id of the message that carries a tool call's result; AG-UI's
// TOOL_CALL_RESULT uses the same, so memory and clients agree on it. It includes the step's
// message id because tool call ids are only as unique as the model makes them.
func ToolMessageID(stepMessageID, toolCallID string) string {
	return "tool_" + strings.TrimPrefix(stepMessageID, "msg_") + "_" + toolCallID
}

// ReasoningMessageID is the id of a step's reasoning message: derived from the step's message,
// so every end of a stream names it the same way, and distinct from it, because AG-UI clients
// keep reasoning and text as separate messages keyed by id.
func ReasoningMessageID(stepMessageID string) string {
	return "rsn_" + strings.TrimPrefix(stepMessageID, "msg_")
}

// RawArgs keeps valid JSON arguments as they are and wraps anything else as a string, so
// results always serialise.
func RawArgs(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}
