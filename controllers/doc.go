// Package controllers holds the operator's reconcilers: Agent (agent_controller.go, its steps
// in agent_resolve.go, agent_mcp.go, agent_children.go and agent_status.go), Tool,
// FrontendAction and MCPServer (one *_controller.go each). Every one of them writes status
// through statusPatcher (status_patcher.go); the objects an Agent runs are rendered in
// controllers/render.
package controllers
