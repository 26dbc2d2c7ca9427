// Package agent runs the agent loop: model steps with streaming, server tools executed
// concurrently, frontend tools handed back to the client, at most MaxSteps steps.
package agent

import (
	"encoding/json"
	"sync/atomic"

	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// HardMaxSteps is the cap on model steps per request, whatever is configured or asked.
const HardMaxSteps = 100

// FrontendAction is a client-side tool defined on the agent.
type FrontendAction struct {
	Name          string          `json:"name"`
	DisplayName   string          `json:"displayName,omitempty"`
	ExecutionText string          `json:"executionText,omitempty"`
	Description   string          `json:"description"`
	Parameters    json.RawMessage `json:"parameters,omitempty"`
}

// Definition is the tool the model is offered for the action.
func (f FrontendAction) Definition() tools.Definition {
	params := f.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return tools.Definition{Name: f.Name, Description: f.Description, Parameters: params}
}

// DisabledTool is a tool-map entry that does not fire, with the reason.
type DisabledTool struct {
	Key    string `json:"key"`
	ToolID string `json:"toolId,omitempty"`
	Reason string `json:"reason"`
}

// Agent is a runnable agent.
type Agent struct {
	ID           string
	Name         string
	Instructions string
	Provider     string
	Model        llm.Client
	// Tools are the server tools that fire, by key (which equals the tool's id).
	Tools map[string]*tools.Tool
	// ToolKeys is the order tools are offered in.
	ToolKeys []string
	// Disabled lists tool-map entries that do not fire.
	Disabled        []DisabledTool
	FrontendActions []FrontendAction
	MaxSteps        int
	// Approvals are the server tools (by key) a person must approve before they execute.
	Approvals map[string]Approval

	starts atomic.Pointer[spanStarts] // built on the first span (trace.go)
}

// Tool returns the firing server tool with the given key.
func (a *Agent) Tool(key string) (*tools.Tool, bool) {
	t, ok := a.Tools[key]
	return t, ok
}

// EffectiveMaxSteps is the agent's step limit, capped at HardMaxSteps.
func (a *Agent) EffectiveMaxSteps() int {
	if a.MaxSteps <= 0 || a.MaxSteps > HardMaxSteps {
		return HardMaxSteps
	}
	return a.MaxSteps
}
