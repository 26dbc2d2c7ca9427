package server

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/runtime/agent"
)

// capabilities is what an agent supports, in AG-UI's AgentCapabilities shape (@ag-ui/core
// 1.0's AgentCapabilitiesSchema). HttpAgent does not ask an endpoint for it (getCapabilities is
// left to subclasses), so Agentry serves it beside the AG-UI endpoint, at
// GET /api/agents/{id}/ag-ui/capabilities, and in the agent listing. Only what the runtime
// knows is declared, false included: every agent here streams, re-attaches and accepts client
// tools whatever its manifest says; the rest follows the manifest.
type capabilities struct {
	Identity       capIdentity    `json:"identity"`
	Transport      capTransport   `json:"transport"`
	Tools          capTools       `json:"tools"`
	HumanInTheLoop capHumanInLoop `json:"humanInTheLoop"`
	Reasoning      capReasoning   `json:"reasoning"`
	// Custom names the agent's frontend actions (its own client-side tools, which the chat
	// shows with their display names); absent without any.
	Custom map[string]any `json:"custom,omitempty"`
}

type capIdentity struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type capTransport struct {
	// Streaming: the AG-UI endpoint answers with server-sent events.
	Streaming bool `json:"streaming"`
	// Resumable: a dropped stream is re-attached at GET …/ag-ui/runs/{runId} with Last-Event-ID.
	Resumable bool `json:"resumable"`
}

type capTools struct {
	Supported bool `json:"supported"`
	// Items are the server tools that fire (AG-UI Tool: name, description, parameters).
	Items []capTool `json:"items"`
	// ClientProvided: RunAgentInput.tools are offered to the model, and their calls end the run
	// for the client (frontend tools).
	ClientProvided bool `json:"clientProvided"`
}

type capTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

type capHumanInLoop struct {
	Supported bool `json:"supported"`
	// Approvals and Interrupts: tools with requireApproval end a run with RUN_FINISHED's
	// interrupt outcome and continue from RunAgentInput.resume.
	Approvals  bool `json:"approvals"`
	Interrupts bool `json:"interrupts"`
}

type capReasoning struct {
	// The runtime relays a reasoning model's reasoning as REASONING_* events as it streams; a
	// model that sends none simply produces none.
	Supported bool `json:"supported"`
	Streaming bool `json:"streaming"`
}

// capabilitiesOf derives an agent's capabilities from its configuration.
func capabilitiesOf(a *agent.Agent) capabilities {
	c := capabilities{
		Identity:  capIdentity{Name: a.Name, Type: "agentry"},
		Transport: capTransport{Streaming: true, Resumable: true},
		Tools:     capTools{Items: []capTool{}, ClientProvided: true},
		Reasoning: capReasoning{Supported: true, Streaming: true},
	}
	for _, k := range a.ToolKeys {
		t := a.Tools[k]
		c.Tools.Items = append(c.Tools.Items, capTool{Name: k, Description: t.Description, Parameters: t.Input.Raw})
	}
	// Tool calling works with client tools alone: every agent supports it.
	c.Tools.Supported = true
	held := len(a.Approvals) > 0
	c.HumanInTheLoop = capHumanInLoop{Supported: held, Approvals: held, Interrupts: held}
	if len(a.FrontendActions) > 0 {
		names := make([]string, len(a.FrontendActions))
		for i, f := range a.FrontendActions {
			names[i] = f.Name
		}
		c.Custom = map[string]any{"frontendActions": names}
	}
	return c
}

// aguiCapabilities serves GET /api/agents/{id}/ag-ui/capabilities, behind the same guard as
// the AG-UI endpoint.
func (s *Server) aguiCapabilities(c echo.Context) error {
	return c.JSON(http.StatusOK, capabilitiesOf(agentOf(c).Agent))
}

// Capabilities are an agent's capabilities as GET …/ag-ui/capabilities answers them (JSON), for
// an in-process chat (`agentry dev`) that registers the agent without asking over HTTP.
func Capabilities(a *agent.Agent) json.RawMessage {
	b, _ := json.Marshal(capabilitiesOf(a))
	return b
}
