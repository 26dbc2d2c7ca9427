package a2aagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/agentry-dev/agentry/runtime/agent"
)

// MetaPendingRun is the task metadata key naming the run an input-required task waits on
// (empty once it goes on). The client reads the calls from the status message's data part.
const MetaPendingRun = "agentry.dev/pending-run"

// Approvals keeps runs stopped for a person's approval, so the answer may reach any replica
// sharing the agent's store.
type Approvals interface {
	// Hold stores a stopped run of the conversation (the task's context) for resource.
	Hold(ctx context.Context, sus *agent.Suspension, conversation, resource string) error
	// DecideAll records d for every call of the run that still waits and returns the run, taken
	// out of the store. agent.ErrNotHeld when resource has no such run waiting.
	DecideAll(ctx context.Context, runID, resource string, d agent.Decision) (*agent.Suspension, error)
}

// ApprovalRequest is the data part of an input-required task's status message: the calls the
// run waits on. The answer is a follow-up message to the task: text (approve or decline) or a
// data part {"approved": true|false, "reason": "…"}.
type ApprovalRequest struct {
	RunID     string         `json:"runId"`
	ToolCalls []ApprovalCall `json:"toolCalls"`
}

// ApprovalCall is one call waiting for approval.
type ApprovalCall struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Args       json.RawMessage `json:"args"`
}

// pendingRun is the run the task waits on, "" when it waits on none.
func pendingRun(rc *a2asrv.RequestContext) string {
	if rc.StoredTask == nil || rc.StoredTask.Status.State != a2a.TaskStateInputRequired {
		return ""
	}
	run, _ := rc.StoredTask.Metadata[MetaPendingRun].(string)
	return run
}

// suspend holds a run stopped for approval and ends the task's turn input-required, naming the
// calls in words and as data.
func (x *Executor) suspend(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue, sus *agent.Suspension) error {
	if x.Approvals == nil {
		return x.finish(ctx, rc, q, a2a.TaskStateFailed, "A tool call of this run needs a person's approval, which this runtime cannot keep.")
	}
	if err := x.Approvals.Hold(ctx, sus, rc.ContextID, ResourceOf(ctx)); err != nil {
		return x.finish(ctx, rc, q, a2a.TaskStateFailed, "A tool call of this run needs a person's approval, which could not be stored; send the message again.")
	}
	req := ApprovalRequest{RunID: sus.ID}
	var names []string
	for _, h := range sus.Undecided() {
		req.ToolCalls = append(req.ToolCalls, ApprovalCall{ToolCallID: h.ToolCall.ID, ToolName: h.ToolCall.Name, Args: json.RawMessage(h.ToolCall.Arguments)})
		names = append(names, fmt.Sprintf("%s %s", h.ToolCall.Name, h.ToolCall.Arguments))
	}
	data := map[string]any{}
	raw, _ := json.Marshal(map[string]ApprovalRequest{"approval": req})
	_ = json.Unmarshal(raw, &data)
	text := fmt.Sprintf("The agent asks to run %s. Answer approve or decline.", strings.Join(names, " and "))
	return x.wait(ctx, rc, q, sus.ID, text, a2a.DataPart{Data: data})
}

// wait ends the turn input-required on run, with the message's parts.
func (x *Executor) wait(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue, run, text string, more ...a2a.Part) error {
	parts := append(a2a.ContentParts{a2a.TextPart{Text: text}}, more...)
	e := a2a.NewStatusUpdateEvent(rc, a2a.TaskStateInputRequired, a2a.NewMessageForTask(a2a.MessageRoleAgent, rc, parts...))
	e.Final = true
	e.Metadata = map[string]any{MetaPendingRun: run}
	if err := q.Write(ctx, e); err != nil {
		return fmt.Errorf("failed to write task %q input-required: %w", rc.TaskID, err)
	}
	return nil
}

// answer takes a follow-up message as the decision on the calls run waits on, and goes on.
func (x *Executor) answer(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue, run string) error {
	d, ok := decisionOf(rc.Message)
	if !ok {
		return x.wait(ctx, rc, q, run, `The agent waits for an approval: answer approve or decline (or a data part {"approved": true|false, "reason": "…"}).`)
	}
	if x.Approvals == nil {
		return x.finish(ctx, rc, q, a2a.TaskStateFailed, "This runtime keeps no approvals.")
	}
	sus, err := x.Approvals.DecideAll(ctx, run, ResourceOf(ctx), d)
	switch {
	case errors.Is(err, agent.ErrNotHeld):
		return x.finish(ctx, rc, q, a2a.TaskStateFailed, "No tool call of this task waits for approval any more: it was answered already or its run is gone.")
	case err != nil:
		return x.finish(ctx, rc, q, a2a.TaskStateFailed, "The approval could not be read or stored; send it again.")
	}
	if err := x.working(ctx, rc, q); err != nil {
		return err
	}
	out := &answerStream{rc: rc, q: q}
	res, err := x.Agent.Resume(ctx, sus, out.sink(ctx))
	return x.end(ctx, rc, q, out, res, err)
}

// decisionOf reads an answer to an approval: a data part {"approved": bool, "reason"?} or the
// text approve/yes or decline/no.
func decisionOf(m *a2a.Message) (agent.Decision, bool) {
	if m == nil {
		return agent.Decision{}, false
	}
	for _, p := range m.Parts {
		if dp, ok := p.(a2a.DataPart); ok {
			approved, ok := dp.Data["approved"].(bool)
			if !ok {
				continue
			}
			reason, _ := dp.Data["reason"].(string)
			return agent.Decision{Approved: approved, Reason: reason}, true
		}
	}
	for _, p := range m.Parts {
		tp, ok := p.(a2a.TextPart)
		if !ok {
			continue
		}
		switch strings.ToLower(strings.Trim(strings.TrimSpace(tp.Text), ".!")) {
		case "approve", "approved", "yes", "y", "ok":
			return agent.Decision{Approved: true}, true
		case "decline", "declined", "deny", "no", "n", "reject":
			return agent.Decision{Approved: false, Reason: "declined over A2A"}, true
		}
	}
	return agent.Decision{}, false
}
