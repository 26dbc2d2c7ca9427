package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/internal/platform/ids"
	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/llm"
)

// genericAgentError is the message of a 500 whose failure has none.
const genericAgentError = "Agent error"

// generateRequest is the body of POST /api/agents/{agentId}/generate.
type generateRequest struct {
	Messages json.RawMessage `json:"messages"`
	RunID    string          `json:"runId"`
	MaxSteps int             `json:"maxSteps"`
	Memory   *struct {
		Thread   json.RawMessage `json:"thread"`
		Resource string          `json:"resource"`
	} `json:"memory"`
	// ThreadID and ResourceID are Mastra's older way to name the thread.
	ThreadID   string `json:"threadId"`
	ResourceID string `json:"resourceId"`
}

// decodeBody reads a JSON object body, answering 400 (or 413) when it cannot.
func decodeBody(c echo.Context, v any) error {
	data, err := io.ReadAll(c.Request().Body)
	if err != nil {
		var he *echo.HTTPError
		if errors.As(err, &he) {
			return he
		}
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return echo.ErrStatusRequestEntityTooLarge
		}
		return echo.NewHTTPError(http.StatusBadRequest, "failed to read the request body")
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return echo.NewHTTPError(http.StatusBadRequest, "request body is empty; send a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "invalid JSON body: "+err.Error())
	}
	return nil
}

// parseMessages accepts what Mastra's generate accepts: a string, a list of strings, or a list
// of {role, content} where content is a string or a list of text parts.
func parseMessages(raw json.RawMessage) ([]llm.Message, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, errors.New("messages is required")
	}
	var single string
	if json.Unmarshal(raw, &single) == nil {
		if strings.TrimSpace(single) == "" {
			return nil, errors.New("messages must not be empty")
		}
		return []llm.Message{{Role: "user", Content: single}}, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, errors.New("messages must be a string or an array of {role, content}")
	}
	if len(list) == 0 {
		return nil, errors.New("messages must not be empty")
	}
	out := make([]llm.Message, 0, len(list))
	for i, item := range list {
		if json.Unmarshal(item, &single) == nil {
			out = append(out, llm.Message{Role: "user", Content: single})
			continue
		}
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(item, &m); err != nil {
			return nil, fmt.Errorf("messages[%d] must be a string or an object with role and content", i)
		}
		switch m.Role {
		case "user", "assistant", "system":
		case "":
			return nil, fmt.Errorf("messages[%d].role is required", i)
		default:
			return nil, fmt.Errorf("messages[%d].role %q is not supported; use user, assistant or system", i, m.Role)
		}
		text, err := contentText(m.Content)
		if err != nil {
			return nil, fmt.Errorf("messages[%d].content %s", i, err)
		}
		out = append(out, llm.Message{Role: m.Role, Content: text})
	}
	return out, nil
}

func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", errors.New("is required")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("must be a string or an array of text parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type != "text" {
			return "", fmt.Errorf("has a %q part; only text parts are supported", p.Type)
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// Mastra's generate result shapes.
type toolCallOut struct {
	Type       string          `json:"type"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Args       json.RawMessage `json:"args"`
}

type toolResultOut struct {
	Type       string          `json:"type"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Args       json.RawMessage `json:"args"`
	Result     json.RawMessage `json:"result"`
	IsError    bool            `json:"isError,omitempty"`
}

type stepOut struct {
	StepType     string          `json:"stepType"`
	Text         string          `json:"text"`
	Reasoning    string          `json:"reasoning,omitempty"`
	ToolCalls    []toolCallOut   `json:"toolCalls"`
	ToolResults  []toolResultOut `json:"toolResults"`
	FinishReason string          `json:"finishReason"`
	Usage        llm.Usage       `json:"usage"`
}

type generateResponse struct {
	Text string `json:"text"`
	// Reasoning and ReasoningText are Mastra's two names for the run's reasoning (a reasoning
	// model's thinking, never part of text); both are absent when the model sent none.
	Reasoning     string          `json:"reasoning,omitempty"`
	ReasoningText string          `json:"reasoningText,omitempty"`
	FinishReason  string          `json:"finishReason"`
	Usage         llm.Usage       `json:"usage"`
	ToolCalls     []toolCallOut   `json:"toolCalls"`
	ToolResults   []toolResultOut `json:"toolResults"`
	Steps         []stepOut       `json:"steps"`
	RunID         string          `json:"runId"`
	// PendingApprovals are the tool calls a suspended run waits for (finishReason
	// "suspended"; runId is then the one approve-tool-call and decline-tool-call take).
	PendingApprovals []approvalOut `json:"pendingApprovals,omitempty"`
}

func callsOut(calls []llm.ToolCall) []toolCallOut {
	out := make([]toolCallOut, 0, len(calls))
	for _, c := range calls {
		out = append(out, toolCallOut{Type: "tool-call", ToolCallID: c.ID, ToolName: c.Name, Args: argsJSON(c.Arguments)})
	}
	return out
}

func resultsOut(results []agent.ToolResult) []toolResultOut {
	out := make([]toolResultOut, 0, len(results))
	for _, r := range results {
		out = append(out, toolResultOut{Type: "tool-result", ToolCallID: r.ToolCallID, ToolName: r.ToolName, Args: r.Args, Result: r.Result, IsError: r.IsError})
	}
	return out
}

func argsJSON(s string) json.RawMessage { return agent.RawArgs(s) }

// generateInput is a parsed generate (or stream) request.
type generateInput struct {
	agent.Input
	RunID  string
	Memory *memoryRef
	// Fresh are the request's messages as they will be stored (with ids).
	Fresh []llm.Message
}

// parseGenerate reads the body shared by generate and stream; errors are 400s, and the memory
// errors of withMemory (403, 500) — all answered before a stream starts.
func (s *Server) parseGenerate(c echo.Context) (*generateInput, error) {
	var req generateRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	msgs, err := parseMessages(req.Messages)
	if err != nil {
		return nil, echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	if req.MaxSteps < 0 {
		return nil, echo.NewHTTPError(http.StatusBadRequest, "maxSteps must be positive")
	}
	ref, err := parseMemoryRef(&req)
	if err != nil {
		return nil, echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	if ref != nil {
		if ref.Resource, err = boundResource(c, ref.Resource); err != nil {
			return nil, err
		}
	}
	in := &generateInput{Input: agent.Input{Messages: msgs, MaxSteps: req.MaxSteps, Conversation: req.ThreadID}, RunID: req.RunID, Memory: ref}
	if in.RunID == "" {
		in.RunID = ids.New("run")
	}
	if ref != nil {
		if in.Fresh, err = s.withMemory(beginRun(c, agentOf(c), ref.Thread), agentOf(c), ref, &in.Input); err != nil {
			return nil, err
		}
	}
	return in, nil
}

func (s *Server) generate(c echo.Context) error {
	e := agentOf(c)
	in, err := s.parseGenerate(c)
	if err != nil {
		return err
	}
	runID := in.RunID
	ctx, shuttingDown, cancel := s.runContext(c)
	defer cancel()
	res, err := e.Agent.Run(ctx, in.Input, nil)
	if err != nil {
		if shuttingDown() {
			return c.JSON(http.StatusServiceUnavailable, jsonError{Error: msgShuttingDown})
		}
		if ctx.Err() != nil {
			// The client is gone; there is nobody to answer.
			return nil
		}
		s.opts.Logger.Error(err, "generate failed", "agent", e.Agent.ID, "runId", runID)
		return c.JSON(http.StatusInternalServerError, jsonError{Error: publicMessage(err)})
	}
	if res.Suspended != nil {
		if held, err := s.holdTurn(ctx, e, in, c.Request().Header.Get(limitFor(e).userHeader), res.Suspended); err != nil {
			s.opts.Logger.Error(err, "generate could not store its pending approval", "agent", e.Agent.ID, "runId", runID)
			if !held {
				return decisionError(err)
			}
			return memoryFailure(err, http.StatusInternalServerError, "")
		}
		return c.JSON(http.StatusOK, generateOut(res, res.Suspended.ID))
	}
	if in.Memory != nil {
		if err := remember(ctx, e, in.Memory, in.Fresh, res.Messages); err != nil {
			s.opts.Logger.Error(err, "generate could not store its turn", "agent", e.Agent.ID, "runId", runID)
			return memoryFailure(err, http.StatusInternalServerError, "")
		}
	}
	return c.JSON(http.StatusOK, generateOut(res, runID))
}

// generateOut is Mastra's generate answer for a run's result.
func generateOut(res *agent.Result, runID string) generateResponse {
	out := generateResponse{
		Text:          res.Text,
		Reasoning:     res.Reasoning,
		ReasoningText: res.Reasoning,
		FinishReason:  res.FinishReason,
		Usage:         res.Usage,
		ToolCalls:     callsOut(res.ToolCalls()),
		ToolResults:   resultsOut(res.ToolResults()),
		Steps:         make([]stepOut, 0, len(res.Steps)),
		RunID:         runID,
	}
	for i, st := range res.Steps {
		typ := "initial"
		if i > 0 {
			typ = "tool-result"
		}
		out.Steps = append(out.Steps, stepOut{
			StepType: typ, Text: st.Text, Reasoning: st.Reasoning, ToolCalls: callsOut(st.ToolCalls), ToolResults: resultsOut(st.ToolResults),
			FinishReason: st.FinishReason, Usage: st.Usage,
		})
	}
	if res.Suspended != nil {
		out.PendingApprovals = approvalsOut(res.Suspended.Undecided())
	}
	return out
}
