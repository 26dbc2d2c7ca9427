package server

import (
	"encoding/json"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/metrics"
)

// streamChunk is one Mastra-style stream chunk: {type, runId, from, payload}.
type streamChunk struct {
	Type    string `json:"type"`
	RunID   string `json:"runId"`
	From    string `json:"from"`
	Payload any    `json:"payload"`
}

// stream serves POST /api/agents/{agentId}/stream: the generate request, answered as
// server-sent Mastra-style chunks and a final `data: [DONE]`.
func (s *Server) stream(c echo.Context) error {
	e := agentOf(c)
	in, err := s.parseGenerate(c)
	if err != nil {
		return err
	}
	runID := in.RunID
	out := s.openStream(c)
	defer out.Close()
	metrics.ActiveStreams.WithLabelValues(e.Agent.ID).Inc()
	defer metrics.ActiveStreams.WithLabelValues(e.Agent.ID).Dec()
	chunk := func(typ string, payload any) error {
		return out.Send(streamChunk{Type: typ, RunID: runID, From: "AGENT", Payload: payload})
	}
	if err := chunk("start", map[string]any{}); err != nil {
		return nil
	}
	ctx, shuttingDown, cancel := s.runContext(c)
	defer cancel()
	res, err := e.Agent.Run(ctx, in.Input, sinkForMemory(in.Memory != nil, func(ev agent.Event) error {
		switch ev.Type {
		case agent.EventStepStarted:
			return chunk("step-start", map[string]any{"messageId": ev.MessageID})
		case agent.EventTextDelta:
			return chunk("text-delta", map[string]any{"id": ev.MessageID, "text": ev.Delta})
		case agent.EventToolCallEnd:
			return chunk("tool-call", map[string]any{"toolCallId": ev.ToolCall.ID, "toolName": ev.ToolCall.Name, "args": argsJSON(ev.ToolCall.Arguments)})
		case agent.EventToolResult:
			p := map[string]any{"toolCallId": ev.ToolCall.ID, "toolName": ev.ToolCall.Name, "result": json.RawMessage(ev.Result)}
			if ev.IsError {
				p["isError"] = true
			}
			return chunk("tool-result", p)
		case agent.EventStepFinished:
			return chunk("step-finish", map[string]any{"finishReason": ev.FinishReason, "usage": ev.Usage})
		}
		return nil
	}))
	if err != nil {
		if shuttingDown() {
			_ = chunk("error", map[string]any{"error": msgShuttingDown})
			out.SendData("[DONE]")
			return nil
		}
		if ctx.Err() != nil || out.Failed() {
			return nil
		}
		s.opts.Logger.Error(err, "stream run failed", "agent", e.Agent.ID, "runId", runID)
		_ = chunk("error", map[string]any{"error": publicMessage(err)})
		out.SendData("[DONE]")
		return nil
	}
	if res.Suspended != nil {
		// As generate: the run waits for approve-tool-call / decline-tool-call with this runId.
		if _, err := s.holdTurn(ctx, c, e, in, res.Suspended); err != nil {
			s.opts.Logger.Error(err, "stream could not store its pending approval", "agent", e.Agent.ID, "runId", runID)
			_ = chunk("error", map[string]any{"error": memoryErrorMessage(err)})
			out.SendData("[DONE]")
			return nil
		}
		for _, a := range approvalsOut(res.Suspended.Undecided()) {
			_ = chunk("tool-call-approval", a)
		}
		_ = chunk("finish", map[string]any{"finishReason": res.FinishReason, "usage": res.Usage, "text": res.Text, "runId": res.Suspended.ID})
		out.SendData("[DONE]")
		return nil
	}
	if in.Memory != nil {
		if err := remember(ctx, e, in.Memory, in.Fresh, res.Messages); err != nil {
			s.opts.Logger.Error(err, "stream could not store its turn", "agent", e.Agent.ID, "runId", runID)
			_ = chunk("error", map[string]any{"error": memoryErrorMessage(err)})
			out.SendData("[DONE]")
			return nil
		}
	}
	_ = chunk("finish", map[string]any{"finishReason": res.FinishReason, "usage": res.Usage, "text": res.Text})
	out.SendData("[DONE]")
	return nil
}
