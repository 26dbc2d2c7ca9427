// Package agui is the AG-UI 1.0 wire format, the one place both ends of Agentry spell it: the
// runtime's endpoint (runtime/agui maps agent runs to these events) and the chat service's
// agent bridge (chat/bridge reads them). It holds the event names, the events and their
// outcomes, and RunAgentInput and its messages. Events travel as server-sent events
// (internal/protocol/sse).
package agui

import "encoding/json"

// Event types.
const (
	RunStarted         = "RUN_STARTED"
	RunFinished        = "RUN_FINISHED"
	RunError           = "RUN_ERROR"
	StepStarted        = "STEP_STARTED"
	StepFinished       = "STEP_FINISHED"
	TextMessageStart   = "TEXT_MESSAGE_START"
	TextMessageContent = "TEXT_MESSAGE_CONTENT"
	TextMessageEnd     = "TEXT_MESSAGE_END"
	TextMessageChunk   = "TEXT_MESSAGE_CHUNK"
	ToolCallStart      = "TOOL_CALL_START"
	ToolCallArgs       = "TOOL_CALL_ARGS"
	ToolCallEnd        = "TOOL_CALL_END"
	ToolCallChunk      = "TOOL_CALL_CHUNK"
	ToolCallResult     = "TOOL_CALL_RESULT"
	// A reasoning span (REASONING_START/END) holds reasoning messages, each streamed as
	// REASONING_MESSAGE_START, _CONTENT and _END; the runtime sends one message per span.
	ReasoningStart          = "REASONING_START"
	ReasoningMessageStart   = "REASONING_MESSAGE_START"
	ReasoningMessageContent = "REASONING_MESSAGE_CONTENT"
	ReasoningMessageEnd     = "REASONING_MESSAGE_END"
	ReasoningMessageChunk   = "REASONING_MESSAGE_CHUNK"
	ReasoningEnd            = "REASONING_END"
	// ErrorType is the specification's failure event, sent before RUN_ERROR.
	ErrorType = "error"
)

// RUN_FINISHED outcome types, and the reason of a tool-approval interrupt.
const (
	OutcomeSuccess     = "success"
	OutcomeInterrupt   = "interrupt"
	ReasonToolApproval = "tool_approval"
	ResumeResolved     = "resolved"
	ResumeCancelled    = "cancelled"
)

// Event is one AG-UI event, as sent and as read. Optional fields are omitted, never null.
type Event struct {
	Type            string          `json:"type"`
	ThreadID        string          `json:"threadId,omitempty"`
	RunID           string          `json:"runId,omitempty"`
	Timestamp       int64           `json:"timestamp"`
	MessageID       string          `json:"messageId,omitempty"`
	Role            string          `json:"role,omitempty"`
	Delta           string          `json:"delta,omitempty"`
	ToolCallID      string          `json:"toolCallId,omitempty"`
	ToolCallName    string          `json:"toolCallName,omitempty"`
	ParentMessageID string          `json:"parentMessageId,omitempty"`
	Content         json.RawMessage `json:"content,omitempty"`
	StepName        string          `json:"stepName,omitempty"`
	Message         string          `json:"message,omitempty"`
	Code            string          `json:"code,omitempty"`
	Outcome         *Outcome        `json:"outcome,omitempty"`
	Usage           []TokenUsage    `json:"usage,omitempty"`
}

// Outcome is RUN_FINISHED's outcome: frontend tool calls left for the client, or interrupts.
type Outcome struct {
	Type               string      `json:"type"`
	PendingToolCallIDs []string    `json:"pendingToolCallIds,omitempty"`
	Interrupts         []Interrupt `json:"interrupts,omitempty"`
}

// Interrupt is something a run waits for: here, a person's approval of a tool call.
type Interrupt struct {
	ID             string            `json:"id"`
	Reason         string            `json:"reason"`
	Message        string            `json:"message,omitempty"`
	ToolCallID     string            `json:"toolCallId,omitempty"`
	ResponseSchema map[string]any    `json:"responseSchema,omitempty"`
	ExpiresAt      string            `json:"expiresAt,omitempty"`
	Metadata       InterruptMetadata `json:"metadata,omitzero"`
}

// InterruptMetadata names the tool call an approval is asked for.
type InterruptMetadata struct {
	Arguments json.RawMessage `json:"arguments,omitempty"`
	ToolName  string          `json:"toolName,omitempty"`
}

// TokenUsage is RUN_FINISHED's usage entry.
type TokenUsage struct {
	Provider     string `json:"provider,omitempty"`
	Model        string `json:"model,omitempty"`
	InputTokens  int64  `json:"inputTokens"`
	OutputTokens int64  `json:"outputTokens"`
	TotalTokens  int64  `json:"totalTokens"`
}

// Text is s as a JSON string (message or result content); "" is no content.
func Text(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	b, _ := json.Marshal(s)
	return b
}
