package model

import (
	"encoding/json"
	"time"
)

// Agentic message types (category agentic): what an agent run leaves in the conversation.
// Clients render TypeAssistant as the agent's reply and TypeAgentError as a failed run; the
// bridge turns assistant and tool-result messages back into AG-UI messages for the next run.
const (
	TypeAssistant  = "assistant"   // the agent's text, with the tool calls it made (AssistantData)
	TypeToolResult = "tool_result" // a tool's result: a server tool's, or a frontend action's posted by the client (ToolResultData)
	TypeAgentError = "agent_error" // a run that failed (AgentErrorData); the text says why, for people
)

// ToolCall is one tool call of an assistant message. Frontend calls are frontend actions the
// client executes; DisplayName and ExecutionText are the action's, for the UI.
type ToolCall struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Arguments     string `json:"arguments"` // JSON text, complete
	Frontend      bool   `json:"frontend,omitempty"`
	DisplayName   string `json:"displayName,omitempty"`
	ExecutionText string `json:"executionText,omitempty"`
}

// AssistantData is the data of a TypeAssistant message. When AwaitingActions is set, the run
// paused for those frontend calls and Executor (the user who started the run) is the client
// that executes them; a client executes a call only on the live message.created event, never
// from history, and only when it is the executor.
type AssistantData struct {
	RunID           string     `json:"runId"`
	AgentID         string     `json:"agentId"`
	MessageID       string     `json:"messageId,omitempty"` // the AG-UI message id
	ToolCalls       []ToolCall `json:"toolCalls,omitempty"`
	AwaitingActions []string   `json:"awaitingActions,omitempty"`
	Executor        string     `json:"executor,omitempty"`
	// TraceID is the W3C trace the run was part of, when that trace is sampled: the chat
	// service's own, or a caller's traceparent it passed on.
	TraceID string `json:"traceId,omitempty"`
	// Reasoning is what a reasoning model thought before this message (AG-UI reasoning
	// events): kept beside the text, never in it, for clients to show folded; never sent back
	// to the agent.
	Reasoning *Reasoning `json:"reasoning,omitempty"`
}

// Reasoning is an agent's reasoning before one of its messages, and how long it took (from
// the first reasoning event to the end of the reasoning, as the chat service received them;
// absent when unknown: a generate answer arrives all at once).
type Reasoning struct {
	Text       string `json:"text"`
	DurationMs int64  `json:"durationMs,omitempty"`
}

// ToolResultData is the data of a TypeToolResult message.
type ToolResultData struct {
	RunID      string `json:"runId"`
	AgentID    string `json:"agentId"`
	ToolCallID string `json:"toolCallId"`
	Name       string `json:"name"`
	Result     string `json:"result,omitempty"` // the result as the tool or the client returned it
	Error      string `json:"error,omitempty"`  // set when the call failed or was not answered in time
	Frontend   bool   `json:"frontend,omitempty"`
}

// AgentErrorData is the data of a TypeAgentError message. Code is one of the RunErr… codes.
type AgentErrorData struct {
	RunID   string `json:"runId"`
	AgentID string `json:"agentId"`
	Code    string `json:"code"`
}

// Codes of failed runs (AgentErrorData.Code and the RUN_ERROR frames the bridge relays).
const (
	RunErrUnreachable    = "AGENT_UNREACHABLE"      // connection refused, DNS, reset
	RunErrTLS            = "AGENT_TLS_ERROR"        // certificate or handshake failure
	RunErrUnauthorized   = "AGENT_UNAUTHORIZED"     // 401/403: the configured headers are wrong or missing
	RunErrHTTP           = "AGENT_HTTP_ERROR"       // another non-2xx status
	RunErrContentType    = "AGENT_BAD_CONTENT_TYPE" // not text/event-stream (ag-ui) or JSON (mastra)
	RunErrAgent          = "AGENT_RUN_ERROR"        // the agent sent RUN_ERROR or an error event
	RunErrIdleTimeout    = "AGENT_IDLE_TIMEOUT"     // the stream stopped sending
	RunErrRunTimeout     = "AGENT_RUN_TIMEOUT"      // the run went over the total time limit
	RunErrProtocol       = "AGENT_PROTOCOL_ERROR"   // the stream ended without RUN_FINISHED, or sent what is not AG-UI
	RunErrNotReady       = "AGENT_NOT_READY"        // an in-cluster Agent without an endpoint yet
	RunErrShuttingDown   = "SERVICE_SHUTTING_DOWN"  // the chat service stopped during the run
	RunErrTooManyActions = "AGENT_TOO_MANY_STEPS"   // the run kept asking for frontend actions
	RunErrInterrupted    = "AGENT_RUN_INTERRUPTED"  // the agent's replica went away mid-run (killed, node lost)
)

// AgentRun is the one run a conversation may have at a time. Pending names the frontend
// action calls waiting for the executor's result.
type AgentRun struct {
	ConversationID string          `json:"conversationId"`
	RunID          string          `json:"runId"`
	AgentID        string          `json:"agentId"`
	StartedBy      string          `json:"startedBy"`
	Pending        []PendingAction `json:"pending"`
	ExpiresAt      time.Time       `json:"expiresAt"`
	// Owner is the replica bridging the run; CallID the agent call in flight (its AG-UI
	// runId, "" between calls), which another replica re-attaches to when it takes the run
	// over.
	Owner  string `json:"-"`
	CallID string `json:"-"`
}

// PendingAction is a frontend action call a run waits for.
type PendingAction struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// MustJSON encodes v, which must be encodable (the types above are).
func MustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
