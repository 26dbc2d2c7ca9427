package agui

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/llm"
)

// AG-UI event types the endpoint sends.
const (
	RunStarted         = "RUN_STARTED"
	RunFinished        = "RUN_FINISHED"
	RunError           = "RUN_ERROR"
	StepStarted        = "STEP_STARTED"
	StepFinished       = "STEP_FINISHED"
	TextMessageStart   = "TEXT_MESSAGE_START"
	TextMessageContent = "TEXT_MESSAGE_CONTENT"
	TextMessageEnd     = "TEXT_MESSAGE_END"
	ToolCallStart      = "TOOL_CALL_START"
	ToolCallArgs       = "TOOL_CALL_ARGS"
	ToolCallEnd        = "TOOL_CALL_END"
	ToolCallResult     = "TOOL_CALL_RESULT"
	// ErrorType is the specification's failure event, sent before RUN_ERROR.
	ErrorType = "error"
)

// ProcessingFailed is the message of the failure events; the cause is logged, not sent.
const ProcessingFailed = "Agent processing failed"

// Event is one AG-UI event. Optional fields are omitted, never null.
type Event struct {
	Type            string       `json:"type"`
	ThreadID        string       `json:"threadId,omitempty"`
	RunID           string       `json:"runId,omitempty"`
	Timestamp       int64        `json:"timestamp"`
	MessageID       string       `json:"messageId,omitempty"`
	Role            string       `json:"role,omitempty"`
	Delta           string       `json:"delta,omitempty"`
	ToolCallID      string       `json:"toolCallId,omitempty"`
	ToolCallName    string       `json:"toolCallName,omitempty"`
	ParentMessageID string       `json:"parentMessageId,omitempty"`
	Content         *string      `json:"content,omitempty"`
	StepName        string       `json:"stepName,omitempty"`
	Message         string       `json:"message,omitempty"`
	Code            string       `json:"code,omitempty"`
	Outcome         *Outcome     `json:"outcome,omitempty"`
	Usage           []TokenUsage `json:"usage,omitempty"`
}

// Outcome is RUN_FINISHED's outcome.
type Outcome struct {
	Type               string      `json:"type"`
	PendingToolCallIDs []string    `json:"pendingToolCallIds,omitempty"`
	Interrupts         []Interrupt `json:"interrupts,omitempty"`
}

// Interrupt is something the run waits for: here, a person's approval of a tool call.
type Interrupt struct {
	ID             string         `json:"id"`
	Reason         string         `json:"reason"`
	Message        string         `json:"message,omitempty"`
	ToolCallID     string         `json:"toolCallId,omitempty"`
	ResponseSchema map[string]any `json:"responseSchema,omitempty"`
	ExpiresAt      string         `json:"expiresAt,omitempty"`
	Metadata       map[string]any `json:"metadata,omitempty"`
}

// TokenUsage is RUN_FINISHED's usage entry.
type TokenUsage struct {
	Provider     string `json:"provider,omitempty"`
	Model        string `json:"model,omitempty"`
	InputTokens  int64  `json:"inputTokens"`
	OutputTokens int64  `json:"outputTokens"`
	TotalTokens  int64  `json:"totalTokens"`
}

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

func (m *Mapper) event(typ string) Event {
	return Event{Type: typ, ThreadID: m.ThreadID, RunID: m.RunID, Timestamp: m.now()}
}

// Started is the first event of every run.
func (m *Mapper) Started() Event { return m.event(RunStarted) }

// Map converts one run event to zero or more AG-UI events.
func (m *Mapper) Map(e agent.Event) []Event {
	switch e.Type {
	case agent.EventStepStarted:
		ev := m.event(StepStarted)
		ev.StepName = stepName(e.Step)
		return []Event{ev}
	case agent.EventStepFinished:
		ev := m.event(StepFinished)
		ev.StepName = stepName(e.Step)
		return []Event{ev}
	case agent.EventTextStart:
		ev := m.event(TextMessageStart)
		ev.MessageID, ev.Role = e.MessageID, "assistant"
		return []Event{ev}
	case agent.EventTextDelta:
		if e.Delta == "" {
			return nil
		}
		ev := m.event(TextMessageContent)
		ev.MessageID, ev.Delta = e.MessageID, e.Delta
		return []Event{ev}
	case agent.EventTextEnd:
		ev := m.event(TextMessageEnd)
		ev.MessageID = e.MessageID
		return []Event{ev}
	case agent.EventToolCallStart:
		ev := m.event(ToolCallStart)
		ev.ToolCallID, ev.ToolCallName, ev.ParentMessageID = e.ToolCall.ID, e.ToolCall.Name, e.MessageID
		return []Event{ev}
	case agent.EventToolCallArgs:
		if e.Delta == "" {
			return nil
		}
		ev := m.event(ToolCallArgs)
		ev.ToolCallID, ev.Delta = e.ToolCall.ID, e.Delta
		return []Event{ev}
	case agent.EventToolCallEnd:
		ev := m.event(ToolCallEnd)
		ev.ToolCallID = e.ToolCall.ID
		return []Event{ev}
	case agent.EventToolResult:
		ev := m.event(ToolCallResult)
		content := string(e.Result)
		ev.MessageID, ev.ToolCallID, ev.Content, ev.Role = agent.ToolMessageID(e.MessageID, e.ToolCall.ID), e.ToolCall.ID, &content, "tool"
		return []Event{ev}
	}
	return nil
}

func stepName(n int) string { return fmt.Sprintf("step-%d", n) }

// Finished is the last event of a successful run. Frontend tool calls left for the client are
// named in the outcome, so the UI knows what to execute.
func (m *Mapper) Finished(pending []llm.ToolCall, usage llm.Usage, provider, modelID string) Event {
	ev := m.event(RunFinished)
	ev.Outcome = &Outcome{Type: "success"}
	for _, tc := range pending {
		ev.Outcome.PendingToolCallIDs = append(ev.Outcome.PendingToolCallIDs, tc.ID)
	}
	if usage.TotalTokens > 0 {
		ev.Usage = []TokenUsage{{Provider: provider, Model: modelID, InputTokens: usage.PromptTokens, OutputTokens: usage.CompletionTokens, TotalTokens: usage.TotalTokens}}
	}
	return ev
}

// Interrupted is the last event of a run that stopped for approval: one interrupt per tool
// call still waiting, answered by a later run's resume entries.
func (m *Mapper) Interrupted(held []agent.Held, schema func(tool string) map[string]any, usage llm.Usage, provider, modelID string) Event {
	ev := m.event(RunFinished)
	ev.Outcome = &Outcome{Type: "interrupt"}
	for _, h := range held {
		ev.Outcome.Interrupts = append(ev.Outcome.Interrupts, Interrupt{
			ID: h.InterruptID, Reason: agent.ReasonToolApproval, ToolCallID: h.ToolCall.ID,
			Message:        fmt.Sprintf("Approve the call of %s?", h.ToolCall.Name),
			ResponseSchema: schema(h.ToolCall.Name), ExpiresAt: h.ExpiresAt.UTC().Format(time.RFC3339Nano),
			Metadata: map[string]any{"toolName": h.ToolCall.Name, "arguments": agent.RawArgs(h.ToolCall.Arguments)},
		})
	}
	if usage.TotalTokens > 0 {
		ev.Usage = []TokenUsage{{Provider: provider, Model: modelID, InputTokens: usage.PromptTokens, OutputTokens: usage.CompletionTokens, TotalTokens: usage.TotalTokens}}
	}
	return ev
}

// Error codes on RUN_ERROR: a category the client can act on, never the internal cause.
const (
	CodeStorageUnavailable = "STORAGE_UNAVAILABLE"
)

// Failed are the events that end a run that failed after the stream started: the
// specification's error event, then RUN_ERROR with the same message (and code, when known).
func (m *Mapper) Failed(code string) []Event {
	errEv := m.event(ErrorType)
	errEv.Message = ProcessingFailed
	runErr := m.event(RunError)
	runErr.Message, runErr.Code = ProcessingFailed, code
	return []Event{errEv, runErr}
}

// Encode writes one event as an SSE frame: `data: <json>` and a blank line, LF only.
func Encode(ev any) ([]byte, error) {
	b, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b)+8)
	out = append(out, "data: "...)
	out = append(out, b...)
	return append(out, '\n', '\n'), nil
}
