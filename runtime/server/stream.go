package server

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/registry"
	"github.com/agentry-dev/agentry/runtime/runlog"
)

// streamChunk is one Mastra-style stream chunk: {type, runId, from, payload}.
type streamChunk struct {
	Type    string `json:"type"`
	RunID   string `json:"runId"`
	From    string `json:"from"`
	Payload any    `json:"payload"`
}

// stream serves POST /api/agents/{agentId}/stream: the generate request, answered as
// server-sent Mastra-style chunks and a final `data: [DONE]`. As an AG-UI run, the run goes on
// when its client leaves; GET .../stream/runs/{runId} re-attaches to it.
func (s *Server) stream(c echo.Context) error {
	e := agentOf(c)
	in, err := s.parseGenerate(c)
	if err != nil {
		return err
	}
	runID := in.RunID
	user := c.Request().Header.Get(limitFor(e).userHeader)
	resource := user
	if in.Memory != nil {
		resource = in.Memory.Resource
	}
	if resource, err = boundResource(c, resource); err != nil {
		return err
	}
	r, err := s.startRun(c, e, streamRunKey(runID), resource)
	if err != nil {
		return err
	}
	r.run(func(ctx context.Context, out eventOut, shuttingDown func() bool) {
		s.streamRun(ctx, e, in, user, runID, r.log, shuttingDown)
	})
	return s.follow(c, e, r.log, 0)
}

// streamRunKey is the key of a stream run among the runs: its runId may also be an AG-UI run's.
func streamRunKey(runID string) string { return "stream/" + runID }

// streamRun runs a stream request's turn into its log.
func (s *Server) streamRun(ctx context.Context, e *registry.Entry, in *generateInput, user, runID string, out *runlog.Log, shuttingDown func() bool) {
	chunk := func(typ string, payload any) error {
		return out.Send(streamChunk{Type: typ, RunID: runID, From: "AGENT", Payload: payload})
	}
	done := func() { _ = out.AppendRaw([]byte("[DONE]")) }
	_ = chunk("start", map[string]any{})
	res, err := e.Agent.Run(ctx, in.Input, sinkForMemory(in.Memory != nil, func(ev agent.Event) error {
		switch ev.Type {
		case agent.EventStepStarted:
			return chunk("step-start", map[string]any{"messageId": ev.MessageID})
		case agent.EventReasoningStart:
			// Mastra's reasoning chunks; their id is the reasoning message's, as on AG-UI.
			return chunk("reasoning-start", map[string]any{"id": agent.ReasoningMessageID(ev.MessageID)})
		case agent.EventReasoningDelta:
			return chunk("reasoning-delta", map[string]any{"id": agent.ReasoningMessageID(ev.MessageID), "text": ev.Delta})
		case agent.EventReasoningEnd:
			return chunk("reasoning-end", map[string]any{"id": agent.ReasoningMessageID(ev.MessageID)})
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
	switch {
	case err != nil && shuttingDown():
		_ = chunk("error", map[string]any{"error": msgShuttingDown})
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		_ = chunk("error", map[string]any{"error": "The run took longer than the run timeout", "code": codeRunTimeout})
	case err != nil && ctx.Err() != nil:
		_ = chunk("error", map[string]any{"error": "The run was canceled", "code": codeRunCanceled})
	case err != nil:
		s.opts.Logger.Error(err, "stream run failed", "agent", e.Agent.ID, "runId", runID)
		_ = chunk("error", map[string]any{"error": publicMessage(err)})
	case res.Suspended != nil:
		// As generate: the run waits for approve-tool-call / decline-tool-call with this runId.
		if _, err := s.holdTurn(ctx, e, in, user, res.Suspended); err != nil {
			s.opts.Logger.Error(err, "stream could not store its pending approval", "agent", e.Agent.ID, "runId", runID)
			_ = chunk("error", map[string]any{"error": memoryErrorMessage(err)})
			break
		}
		for _, a := range approvalsOut(res.Suspended.Undecided()) {
			_ = chunk("tool-call-approval", a)
		}
		_ = chunk("finish", map[string]any{"finishReason": res.FinishReason, "usage": res.Usage, "text": res.Text, "runId": res.Suspended.ID})
	default:
		if in.Memory != nil {
			if err := remember(ctx, e, in.Memory, in.Fresh, res.Messages); err != nil {
				s.opts.Logger.Error(err, "stream could not store its turn", "agent", e.Agent.ID, "runId", runID)
				_ = chunk("error", map[string]any{"error": memoryErrorMessage(err)})
				break
			}
		}
		_ = chunk("finish", map[string]any{"finishReason": res.FinishReason, "usage": res.Usage, "text": res.Text})
	}
	done()
}
