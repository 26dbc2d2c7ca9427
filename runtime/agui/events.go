package agui

import (
	"encoding/json"
	"fmt"
	"time"

	wire "github.com/agentry-dev/agentry/internal/protocol/agui"
	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/llm"
)

// ProcessingFailed is the message of the failure events; the cause is logged, not sent.
const ProcessingFailed = "Agent processing failed"

// Mapper turns run events into AG-UI events for one run.
type Mapper struct {
	ThreadID string
	RunID    string
	// Now returns epoch milliseconds; time.Now by default.
	Now func() int64
}

func (m *Mapper) now() int64 {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now().UnixMilli()
}

func (m *Mapper) event(typ string) wire.Event {
	return wire.Event{Type: typ, ThreadID: m.ThreadID, RunID: m.RunID, Timestamp: m.now()}
}

// Started is the first event of every run.
func (m *Mapper) Started() wire.Event { return m.event(wire.RunStarted) }

// Map converts one run event to zero or more AG-UI events.
func (m *Mapper) Map(e agent.Event) []wire.Event {
	switch e.Type {
	case agent.EventStepStarted:
		ev := m.event(wire.StepStarted)
		ev.StepName = stepName(e.Step)
		return []wire.Event{ev}
	case agent.EventStepFinished:
		ev := m.event(wire.StepFinished)
		ev.StepName = stepName(e.Step)
		return []wire.Event{ev}
	case agent.EventReasoningStart:
		// One span with one message, both named by the step's reasoning id (the verifier keeps
		// spans and messages apart, so they may share it).
		id := agent.ReasoningMessageID(e.MessageID)
		span, msg := m.event(wire.ReasoningStart), m.event(wire.ReasoningMessageStart)
		span.MessageID, msg.MessageID, msg.Role = id, id, "reasoning"
		return []wire.Event{span, msg}
	case agent.EventReasoningDelta:
		if e.Delta == "" {
			return nil
		}
		ev := m.event(wire.ReasoningMessageContent)
		ev.MessageID, ev.Delta = agent.ReasoningMessageID(e.MessageID), e.Delta
		return []wire.Event{ev}
	case agent.EventReasoningEnd:
		id := agent.ReasoningMessageID(e.MessageID)
		msg, span := m.event(wire.ReasoningMessageEnd), m.event(wire.ReasoningEnd)
		msg.MessageID, span.MessageID = id, id
		return []wire.Event{msg, span}
	case agent.EventTextStart:
		ev := m.event(wire.TextMessageStart)
		ev.MessageID, ev.Role = e.MessageID, "assistant"
		return []wire.Event{ev}
	case agent.EventTextDelta:
		if e.Delta == "" {
			return nil
		}
		ev := m.event(wire.TextMessageContent)
		ev.MessageID, ev.Delta = e.MessageID, e.Delta
		return []wire.Event{ev}
	case agent.EventTextEnd:
		ev := m.event(wire.TextMessageEnd)
		ev.MessageID = e.MessageID
		return []wire.Event{ev}
	case agent.EventToolCallStart:
		ev := m.event(wire.ToolCallStart)
		ev.ToolCallID, ev.ToolCallName, ev.ParentMessageID = e.ToolCall.ID, e.ToolCall.Name, e.MessageID
		return []wire.Event{ev}
	case agent.EventToolCallArgs:
		if e.Delta == "" {
			return nil
		}
		ev := m.event(wire.ToolCallArgs)
		ev.ToolCallID, ev.Delta = e.ToolCall.ID, e.Delta
		return []wire.Event{ev}
	case agent.EventToolCallEnd:
		ev := m.event(wire.ToolCallEnd)
		ev.ToolCallID = e.ToolCall.ID
		return []wire.Event{ev}
	case agent.EventToolResult:
		ev := m.event(wire.ToolCallResult)
		ev.MessageID, ev.ToolCallID, ev.Content, ev.Role = agent.ToolMessageID(e.MessageID, e.ToolCall.ID), e.ToolCall.ID, jsonString(string(e.Result)), "tool"
		return []wire.Event{ev}
	}
	return nil
}

func stepName(n int) string { return fmt.Sprintf("step-%d", n) }

// Finished is the last event of a successful run. Frontend tool calls left for the client are
// named in the outcome, so the UI knows what to execute.
func (m *Mapper) Finished(pending []llm.ToolCall, usage llm.Usage, provider, modelID string) wire.Event {
	ev := m.event(wire.RunFinished)
	ev.Outcome = &wire.Outcome{Type: wire.OutcomeSuccess}
	for _, tc := range pending {
		ev.Outcome.PendingToolCallIDs = append(ev.Outcome.PendingToolCallIDs, tc.ID)
	}
	ev.Usage = usageOf(usage, provider, modelID)
	return ev
}

// Interrupted is the last event of a run that stopped for approval: one interrupt per tool
// call still waiting, answered by a later run's resume entries.
func (m *Mapper) Interrupted(held []agent.Held, schema func(tool string) map[string]any, usage llm.Usage, provider, modelID string) wire.Event {
	ev := m.event(wire.RunFinished)
	ev.Outcome = &wire.Outcome{Type: wire.OutcomeInterrupt}
	for _, h := range held {
		ev.Outcome.Interrupts = append(ev.Outcome.Interrupts, wire.Interrupt{
			ID: h.InterruptID, Reason: wire.ReasonToolApproval, ToolCallID: h.ToolCall.ID,
			Message:        fmt.Sprintf("Approve the call of %s?", h.ToolCall.Name),
			ResponseSchema: schema(h.ToolCall.Name), ExpiresAt: h.ExpiresAt.UTC().Format(time.RFC3339Nano),
			Metadata: wire.InterruptMetadata{ToolName: h.ToolCall.Name, Arguments: agent.RawArgs(h.ToolCall.Arguments)},
		})
	}
	ev.Usage = usageOf(usage, provider, modelID)
	return ev
}

// Error codes on RUN_ERROR: a category the client can act on, never the internal cause.
const (
	CodeStorageUnavailable = "STORAGE_UNAVAILABLE"
)

// Failed are the events that end a run that failed after the stream started: the
// specification's error event, then RUN_ERROR with the same message (and code, when known).
func (m *Mapper) Failed(code string) []wire.Event {
	errEv := m.event(wire.ErrorType)
	errEv.Message = ProcessingFailed
	runErr := m.event(wire.RunError)
	runErr.Message, runErr.Code = ProcessingFailed, code
	return []wire.Event{errEv, runErr}
}

// usageOf is RUN_FINISHED's usage entry, when the model reported any.
func usageOf(u llm.Usage, provider, modelID string) []wire.TokenUsage {
	if u.TotalTokens <= 0 {
		return nil
	}
	return []wire.TokenUsage{{Provider: provider, Model: modelID, InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}}
}

// jsonString is s as JSON content: a tool result's content is a string even when empty.
func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
