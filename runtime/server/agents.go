package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/protocol/agui"
	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/registry"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// toolInfo is a tool as listed by the API (Mastra's field names; schemas as JSON objects).
type toolInfo struct {
	ID           string          `json:"id"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// RequireApproval and ApprovalTimeout: a person decides each call (tool entries with
	// requireApproval); the tool cannot be executed directly.
	RequireApproval bool   `json:"requireApproval,omitempty"`
	ApprovalTimeout string `json:"approvalTimeout,omitempty"`
}

// agentInfo is an agent as listed by GET /api/agents.
type agentInfo struct {
	Name            string                          `json:"name"`
	Instructions    string                          `json:"instructions"`
	Provider        string                          `json:"provider"`
	ModelID         string                          `json:"modelId"`
	Tools           map[string]toolInfo             `json:"tools"`
	FrontendActions map[string]agent.FrontendAction `json:"frontendActions"`
	DisabledTools   []agent.DisabledTool            `json:"disabledTools,omitempty"`
	MaxSteps        int                             `json:"maxSteps"`
	Platform        *v1alpha1.PlatformSpec          `json:"platform,omitempty"`
	// Capabilities are what GET …/ag-ui/capabilities answers (AG-UI's AgentCapabilities).
	Capabilities agui.Capabilities `json:"capabilities"`
}

func describeTool(a *agent.Agent, key string) toolInfo {
	t := a.Tools[key]
	info := toolInfo{ID: t.ID, Description: t.Description, InputSchema: t.Input.Raw}
	if t.Output != nil {
		info.OutputSchema = t.Output.Raw
	}
	if ap, ok := a.Approvals[key]; ok {
		info.RequireApproval, info.ApprovalTimeout = true, ap.Timeout.String()
	}
	return info
}

func describe(e *registry.Entry) agentInfo {
	a := e.Agent
	info := agentInfo{
		Name:            a.Name,
		Instructions:    a.Instructions,
		Provider:        a.Provider,
		ModelID:         a.Model.ModelID(),
		Tools:           map[string]toolInfo{},
		FrontendActions: map[string]agent.FrontendAction{},
		DisabledTools:   a.Disabled,
		MaxSteps:        a.EffectiveMaxSteps(),
		Platform:        e.Manifest.Spec.Platform,
		Capabilities:    capabilitiesOf(a),
	}
	for _, k := range a.ToolKeys {
		info.Tools[k] = describeTool(a, k)
	}
	for _, f := range a.FrontendActions {
		info.FrontendActions[f.Name] = f
	}
	return info
}

func (s *Server) listAgents(c echo.Context) error {
	out := map[string]agentInfo{}
	for _, id := range s.opts.Registry.IDs() {
		e, _ := s.opts.Registry.Get(id)
		// Agents behind auth are listed only to callers that present their headers or token.
		if res, err := s.auth.check(c.Request(), e); err != nil || !res.ok {
			continue
		}
		out[id] = describe(e)
	}
	return c.JSON(http.StatusOK, out)
}

func agentNotFound(id string) error {
	return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("Agent with id %s not found", id))
}

// lookup finds the agent of the request or answers 404.
func (s *Server) lookup(c echo.Context) (*registry.Entry, error) {
	id := c.Param("agentId")
	if q, ok := c.Get("agentry.agentId").(string); ok {
		id = q
	}
	e, ok := s.opts.Registry.Get(id)
	if !ok {
		return nil, agentNotFound(id)
	}
	return e, nil
}

func (s *Server) getAgent(c echo.Context) error {
	return c.JSON(http.StatusOK, describe(agentOf(c)))
}

func (s *Server) tool(c echo.Context) (*tools.Tool, error) {
	e := agentOf(c)
	id := c.Param("toolId")
	t, ok := e.Agent.Tool(id)
	if !ok {
		return nil, echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("Tool with id %s not found", id))
	}
	return t, nil
}

func (s *Server) getTool(c echo.Context) error {
	if _, err := s.tool(c); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, describeTool(agentOf(c).Agent, c.Param("toolId")))
}

// msgNeedsApproval refuses the direct execution of a tool a person must approve: it would
// bypass the approval.
const msgNeedsApproval = "This tool needs a person's approval for each call; it runs only within an agent run"

func (s *Server) executeTool(c echo.Context) error {
	t, err := s.tool(c)
	if err != nil {
		return err
	}
	if _, held := agentOf(c).Agent.Approvals[c.Param("toolId")]; held {
		return echo.NewHTTPError(http.StatusForbidden, msgNeedsApproval)
	}
	var body struct {
		Data json.RawMessage `json:"data"`
	}
	if err := decodeBody(c, &body); err != nil {
		return err
	}
	if len(body.Data) == 0 || string(body.Data) == "null" {
		return echo.NewHTTPError(http.StatusBadRequest, "data is required: the tool's input object")
	}
	out, err := t.Call(c.Request().Context(), body.Data)
	if err != nil {
		var ie *tools.InputError
		if errors.As(err, &ie) {
			return echo.NewHTTPError(http.StatusBadRequest, err.Error())
		}
		// The cause may name the tool's endpoint, its address or its answer: log it only.
		s.opts.Logger.Error(err, "tool execution failed", "agent", agentOf(c).Agent.ID, "tool", c.Param("toolId"))
		return echo.NewHTTPError(http.StatusInternalServerError, "Tool execution failed")
	}
	return c.JSONBlob(http.StatusOK, out)
}
