package agui

// Capabilities is AG-UI's AgentCapabilities (@ag-ui/core 1.0's AgentCapabilitiesSchema): what
// an agent says it supports. HttpAgent does not ask an endpoint for it (getCapabilities is
// left to subclasses), so Agentry's runtime serves it beside the AG-UI endpoint, at
// GET /api/agents/{id}/ag-ui/capabilities, and the chat reads it from there. Every field is
// optional in the protocol: nil was not declared, which is not the same as false.
type Capabilities struct {
	Identity       *CapabilityIdentity         `json:"identity,omitempty"`
	Transport      *TransportCapabilities      `json:"transport,omitempty"`
	Tools          *ToolsCapabilities          `json:"tools,omitempty"`
	HumanInTheLoop *HumanInTheLoopCapabilities `json:"humanInTheLoop,omitempty"`
	Reasoning      *ReasoningCapabilities      `json:"reasoning,omitempty"`
	// Custom holds what the protocol has no field for (Agentry: the agent's frontend actions).
	Custom map[string]any `json:"custom,omitempty"`
}

// CapabilityIdentity names the agent and its kind.
type CapabilityIdentity struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// TransportCapabilities: whether the endpoint streams server-sent events, and whether a dropped
// stream can be resumed.
type TransportCapabilities struct {
	Streaming *bool `json:"streaming,omitempty"`
	Resumable *bool `json:"resumable,omitempty"`
}

// ToolsCapabilities: whether the agent calls tools, its own (Items), and whether it accepts the
// client's (RunAgentInput.tools, whose calls end the run for the client).
type ToolsCapabilities struct {
	Supported      *bool  `json:"supported,omitempty"`
	Items          []Tool `json:"items"`
	ClientProvided *bool  `json:"clientProvided,omitempty"`
}

// HumanInTheLoopCapabilities: whether runs stop for a person (approvals, as RUN_FINISHED's
// interrupt outcome continued by RunAgentInput.resume).
type HumanInTheLoopCapabilities struct {
	Supported  *bool `json:"supported,omitempty"`
	Approvals  *bool `json:"approvals,omitempty"`
	Interrupts *bool `json:"interrupts,omitempty"`
}

// ReasoningCapabilities: whether a reasoning model's thinking is sent (REASONING_* events), and
// as it streams.
type ReasoningCapabilities struct {
	Supported *bool `json:"supported,omitempty"`
	Streaming *bool `json:"streaming,omitempty"`
}
