package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	wire "github.com/agentry-dev/agentry/internal/protocol/agui"
	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/memory"
	"github.com/agentry-dev/agentry/runtime/registry"
)

// pendingStore keeps the agent's runs stopped for approval: its memory store, so any replica
// sharing it resumes them, else this process's (the answer must reach this pod).
func (s *Server) pendingStore(e *registry.Entry) memory.Pending {
	if e.Memory != nil {
		return e.Memory
	}
	return s.localStore
}

// hold stores a run that stopped for approval, with the thread and resource it ran for: only
// the same resource may answer it.
func (s *Server) hold(ctx context.Context, e *registry.Entry, sus *agent.Suspension, thread, resource string) error {
	state, err := json.Marshal(sus)
	if err != nil {
		return fmt.Errorf("failed to encode pending run %q: %w", sus.ID, err)
	}
	if err := s.pendingStore(e).SavePending(ctx, e.Agent.ID, memory.PendingRun{ID: sus.ID, ThreadID: thread, ResourceID: resource, State: state, ExpiresAt: sus.ExpiresAt()}); err != nil {
		agent.FailRun(ctx, memoryErrorType(err))
		return err
	}
	return nil
}

// holdTurn keeps a generate or stream run that stopped for approval (user: the request's user
// header): the run, and the request's new messages in the thread (the rest of the turn is stored when it ends: until then the call
// has no result, which a model must never be shown). held is false when the run itself could
// not be stored.
func (s *Server) holdTurn(ctx context.Context, e *registry.Entry, in *generateInput, user string, sus *agent.Suspension) (held bool, err error) {
	thread, resource := "", user
	if in.Memory != nil {
		thread, resource = in.Memory.Thread, in.Memory.Resource
	}
	if err := s.hold(ctx, e, sus, thread, resource); err != nil {
		return false, err
	}
	if in.Memory != nil {
		return true, remember(ctx, e, in.Memory, in.Fresh)
	}
	return true, nil
}

// answer is one decision for a held call, named by its interrupt id or tool call id.
type answer struct {
	id       string
	decision agent.Decision
}

// decide records answers on the stopped run id in one update, so two deciders cannot both win;
// when nothing is left undecided the run is taken out of the store (it cannot be answered
// twice) and returned for Resume.
func (s *Server) decide(ctx context.Context, e *registry.Entry, id, resource string, answers []answer) (*agent.Suspension, *memoryRef, error) {
	sus, ref, err := s.decideRun(ctx, e, id, resource, answers, nil)
	if err != nil {
		return nil, nil, decisionError(err)
	}
	return sus, ref, nil
}

// decideRun is decide with the store's and the agent's errors as they are; with all, every call
// still waiting gets that decision.
func (s *Server) decideRun(ctx context.Context, e *registry.Entry, id, resource string, answers []answer, all *agent.Decision) (*agent.Suspension, *memoryRef, error) {
	var sus agent.Suspension
	ref := &memoryRef{}
	err := s.pendingStore(e).UpdatePending(ctx, e.Agent.ID, id, func(p *memory.PendingRun) (bool, error) {
		if p.ResourceID != resource {
			return false, memory.ErrPendingNotFound // another user's run: not theirs to see
		}
		if err := json.Unmarshal(p.State, &sus); err != nil {
			return false, fmt.Errorf("failed to decode pending run %q: %w", id, err)
		}
		now := time.Now()
		todo := answers
		if all != nil {
			todo = nil
			for _, h := range sus.Undecided() {
				todo = append(todo, answer{id: h.InterruptID, decision: *all})
			}
			if len(todo) == 0 {
				return false, agent.ErrNotHeld
			}
		}
		for _, a := range todo {
			if err := e.Agent.Decide(&sus, a.id, a.decision, now); err != nil {
				return false, err
			}
		}
		state, err := json.Marshal(&sus)
		if err != nil {
			return false, err
		}
		p.State = state
		ref.Thread, ref.Resource = p.ThreadID, p.ResourceID
		return len(sus.Undecided()) == 0, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return &sus, ref, nil
}

// Messages of the approval answers.
const (
	msgNotPending      = "No tool call waits for approval under that id: it was never held, or it was already answered"
	msgAlreadyDecided  = "This tool call was already approved or declined"
	msgApprovalStorage = "the approval could not be read or stored: " // + memory.ErrUnavailable
)

func decisionError(err error) *echo.HTTPError {
	switch {
	case errors.Is(err, memory.ErrPendingNotFound), errors.Is(err, agent.ErrNotHeld):
		return echo.NewHTTPError(http.StatusNotFound, msgNotPending)
	case errors.Is(err, agent.ErrAlreadyDecided):
		return echo.NewHTTPError(http.StatusConflict, msgAlreadyDecided)
	case errors.Is(err, agent.ErrInvalidDecision):
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	return echo.NewHTTPError(http.StatusServiceUnavailable, msgApprovalStorage+memory.ErrUnavailable.Error())
}

// resumeAnswers reads AG-UI resume entries: every one must answer an interrupt of the same
// stopped run (returned), resolved with {approved, reason?, input?} or cancelled (a decline).
func resumeAnswers(entries []wire.ResumeEntry) (string, []answer, error) {
	var run string
	var out []answer
	for i, r := range entries {
		id, ok := agent.SuspensionOf(r.InterruptID)
		if !ok {
			return "", nil, fmt.Errorf("resume[%d].interruptId %q is not an interrupt of this agent", i, r.InterruptID)
		}
		if run != "" && id != run {
			return "", nil, fmt.Errorf("resume[%d] answers another run's interrupt; resume one run at a time", i)
		}
		run = id
		switch r.Status {
		case wire.ResumeCancelled:
			out = append(out, answer{id: r.InterruptID, decision: agent.Decision{Reason: "cancelled"}})
		case wire.ResumeResolved:
			d, err := decisionPayload(r.Payload)
			if err != nil {
				return "", nil, fmt.Errorf("resume[%d].payload %s", i, err)
			}
			out = append(out, answer{id: r.InterruptID, decision: d})
		default:
			return "", nil, fmt.Errorf("resume[%d].status must be resolved or cancelled", i)
		}
	}
	return run, out, nil
}

func decisionPayload(raw json.RawMessage) (agent.Decision, error) {
	var p struct {
		Approved *bool           `json:"approved"`
		Reason   string          `json:"reason"`
		Input    json.RawMessage `json:"input"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &p) != nil {
		return agent.Decision{}, errors.New("must be an object {approved, reason?, input?}")
	}
	if p.Approved == nil {
		return agent.Decision{}, errors.New("needs approved (true or false)")
	}
	input, err := editedInput(p.Input)
	if err != nil {
		return agent.Decision{}, err
	}
	return agent.Decision{Approved: *p.Approved, Reason: p.Reason, Input: input}, nil
}

// editedInput is an answer's edited arguments: none when absent or null, else an object (its
// schema is checked by Decide).
func editedInput(raw json.RawMessage) (json.RawMessage, error) {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return nil, nil
	}
	if !strings.HasPrefix(t, "{") {
		return nil, errors.New("input must be an object (the tool's arguments)")
	}
	return raw, nil
}

// toolCallDecision is the body of Mastra's approve-tool-call and decline-tool-call.
type toolCallDecision struct {
	RunID      string          `json:"runId"`
	ToolCallID string          `json:"toolCallId"`
	Input      json.RawMessage `json:"input"`
	Reason     string          `json:"reason"`
	ResourceID string          `json:"resourceId"`
}

// approveToolCall serves POST /api/agents/{agentId}/approve-tool-call.
func (s *Server) approveToolCall(c echo.Context) error { return s.toolCallDecision(c, true) }

// declineToolCall serves POST /api/agents/{agentId}/decline-tool-call.
func (s *Server) declineToolCall(c echo.Context) error { return s.toolCallDecision(c, false) }

// toolCallDecision decides one held call of a generate or stream run and, when it was the last
// one waiting, continues the run and answers as generate does.
func (s *Server) toolCallDecision(c echo.Context, approved bool) error {
	e := agentOf(c)
	var req toolCallDecision
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	if req.RunID == "" || req.ToolCallID == "" {
		return echo.NewHTTPError(http.StatusBadRequest, "runId and toolCallId are required")
	}
	d := agent.Decision{Approved: approved, Reason: req.Reason}
	if approved {
		input, err := editedInput(req.Input)
		if err != nil {
			return echo.NewHTTPError(http.StatusBadRequest, err.Error())
		}
		d.Input = input
	}
	resource := req.ResourceID
	resource = cmp.Or(resource, c.Request().Header.Get(limitFor(e).userHeader))
	sus, ref, err := s.decide(s.beginResume(c, e), e, req.RunID, resource, []answer{{id: req.ToolCallID, decision: d}})
	if err != nil {
		return err
	}
	if len(sus.Undecided()) > 0 {
		return c.JSON(http.StatusOK, suspendedOut(sus))
	}
	ctx, shuttingDown, cancel := s.runContext(c)
	defer cancel()
	res, err := e.Agent.Resume(ctx, sus, nil)
	if err != nil {
		if shuttingDown() {
			return c.JSON(http.StatusServiceUnavailable, jsonError{Error: msgShuttingDown})
		}
		if ctx.Err() != nil {
			return nil
		}
		s.opts.Logger.Error(err, "resumed run failed", "agent", e.Agent.ID, "runId", sus.ID)
		return c.JSON(http.StatusInternalServerError, jsonError{Error: publicMessage(err)})
	}
	if res.Suspended != nil {
		if err := s.hold(ctx, e, res.Suspended, ref.Thread, ref.Resource); err != nil {
			return decisionError(err)
		}
		return c.JSON(http.StatusOK, generateOut(res, res.Suspended.ID))
	}
	if e.Memory != nil && ref.Thread != "" {
		if err := remember(ctx, e, ref, res.Messages); err != nil {
			return memoryFailure(err, http.StatusInternalServerError, "")
		}
	}
	return c.JSON(http.StatusOK, generateOut(res, sus.ID))
}

// approvalOut is a held call in a suspended generate answer.
type approvalOut struct {
	InterruptID string          `json:"interruptId"`
	ToolCallID  string          `json:"toolCallId"`
	ToolName    string          `json:"toolName"`
	Args        json.RawMessage `json:"args"`
	ExpiresAt   time.Time       `json:"expiresAt"`
}

func approvalsOut(held []agent.Held) []approvalOut {
	out := make([]approvalOut, 0, len(held))
	for _, h := range held {
		out = append(out, approvalOut{InterruptID: h.InterruptID, ToolCallID: h.ToolCall.ID, ToolName: h.ToolCall.Name, Args: argsJSON(h.ToolCall.Arguments), ExpiresAt: h.ExpiresAt})
	}
	return out
}

// suspendedOut answers a decision that leaves other calls of the run waiting.
func suspendedOut(sus *agent.Suspension) generateResponse {
	res := &agent.Result{Text: sus.Text, Usage: sus.Usage, Steps: sus.Steps, FinishReason: agent.FinishSuspended, Suspended: sus}
	return generateOut(res, sus.ID)
}
