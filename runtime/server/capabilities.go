package server

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/internal/protocol/agui"
	"github.com/agentry-dev/agentry/runtime/agent"
)

// capabilitiesOf derives what an agent supports from its configuration, for
// GET …/ag-ui/capabilities and the agent listing. Only what the runtime knows is declared,
// false included: every agent here streams, re-attaches (GET …/ag-ui/runs/{runId} with
// Last-Event-ID), calls tools and accepts client tools whatever its manifest says; it relays a
// reasoning model's reasoning as it streams (a model that sends none produces none); the rest
// follows the manifest.
func capabilitiesOf(a *agent.Agent) agui.Capabilities {
	yes, held := true, len(a.Approvals) > 0
	c := agui.Capabilities{
		Identity:       &agui.CapabilityIdentity{Name: a.Name, Type: "agentry"},
		Transport:      &agui.TransportCapabilities{Streaming: &yes, Resumable: &yes},
		Tools:          &agui.ToolsCapabilities{Supported: &yes, Items: []agui.Tool{}, ClientProvided: &yes},
		HumanInTheLoop: &agui.HumanInTheLoopCapabilities{Supported: &held, Approvals: &held, Interrupts: &held},
		Reasoning:      &agui.ReasoningCapabilities{Supported: &yes, Streaming: &yes},
	}
	for _, k := range a.ToolKeys {
		t := a.Tools[k]
		c.Tools.Items = append(c.Tools.Items, agui.Tool{Name: k, Description: t.Description, Parameters: t.Input.Raw})
	}
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
