package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentry-dev/agentry/internal/platform/ids"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/metrics"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// Approval is a server tool's rule that a person approves each call before it executes.
type Approval struct {
	Timeout time.Duration
}

// FinishSuspended is a run's finish reason when it stopped for approval (Mastra's word).
const FinishSuspended = "suspended"

// Held is a tool call waiting for a person's decision.
type Held struct {
	// InterruptID answers it over AG-UI: the suspension's id, a dot and the call's index.
	InterruptID string       `json:"interruptId"`
	ToolCall    llm.ToolCall `json:"toolCall"`
	ExpiresAt   time.Time    `json:"expiresAt"`
	Decision    *Decision    `json:"decision,omitempty"`
}

// Decision is a person's answer to a held call.
type Decision struct {
	Approved bool   `json:"approved"`
	Reason   string `json:"reason,omitempty"`
	// Input replaces the call's arguments (approved only); it must validate against the tool's
	// input schema.
	Input json.RawMessage `json:"input,omitempty"`
	// Expired: the answer came after ExpiresAt, so it counts as a decline whatever it said.
	Expired bool      `json:"expired,omitempty"`
	At      time.Time `json:"at"`
}

// Suspension is a run stopped at held tool calls: everything Resume needs, as JSON so a store
// can keep it and another replica continue it.
type Suspension struct {
	ID        string `json:"id"`
	Step      int    `json:"step"`
	MessageID string `json:"messageId"`
	// Conversation is what the model saw, without the system message, plus the step's
	// assistant message and the results of the step's tools that did not wait.
	Conversation []llm.Message      `json:"conversation"`
	Added        []llm.Message      `json:"added"`
	Steps        []Step             `json:"steps"`
	Text         string             `json:"text"`
	Usage        llm.Usage          `json:"usage"`
	MaxSteps     int                `json:"maxSteps"`
	ClientTools  []tools.Definition `json:"clientTools,omitempty"`
	// Frontend are the step's calls for the client, handed over once the held ones are done.
	Frontend       []llm.ToolCall `json:"frontend,omitempty"`
	Held           []Held         `json:"held"`
	ConversationID string         `json:"conversationId,omitempty"`
}

// ExpiresAt is when the last held call stops being answerable.
func (s *Suspension) ExpiresAt() time.Time {
	var t time.Time
	for _, h := range s.Held {
		if h.ExpiresAt.After(t) {
			t = h.ExpiresAt
		}
	}
	return t
}

// Undecided are the held calls still waiting.
func (s *Suspension) Undecided() []Held {
	var out []Held
	for _, h := range s.Held {
		if h.Decision == nil {
			out = append(out, h)
		}
	}
	return out
}

// SuspensionOf names the suspension an interrupt id belongs to.
func SuspensionOf(interruptID string) (string, bool) {
	i := strings.LastIndexByte(interruptID, '.')
	if i <= 0 {
		return "", false
	}
	if _, err := strconv.Atoi(interruptID[i+1:]); err != nil {
		return "", false
	}
	return interruptID[:i], true
}

// Errors of Decide: the caller answers 404, 409 and 400.
var (
	ErrNotHeld         = errors.New("no tool call waits for approval under that id")
	ErrAlreadyDecided  = errors.New("this tool call was already approved or declined")
	ErrInvalidDecision = errors.New("invalid decision")
)

// Decide records d for the held call with that interrupt or tool call id. An answer after the
// call expired is recorded as a decline. An edited input must validate against the tool's
// schema. It changes nothing when it fails.
func (a *Agent) Decide(s *Suspension, id string, d Decision, now time.Time) error {
	for i := range s.Held {
		h := &s.Held[i]
		if h.InterruptID != id && h.ToolCall.ID != id {
			continue
		}
		if h.Decision != nil {
			return ErrAlreadyDecided
		}
		d.At = now
		if now.After(h.ExpiresAt) {
			d = Decision{Approved: false, Reason: "the approval expired", Expired: true, At: now}
		}
		if d.Approved && len(d.Input) > 0 {
			t, ok := a.Tools[h.ToolCall.Name]
			if !ok {
				return fmt.Errorf("%w: tool %q is no longer available", ErrInvalidDecision, h.ToolCall.Name)
			}
			if err := t.Input.Validate(d.Input); err != nil {
				return fmt.Errorf("%w: the edited input does not match the tool's input schema: %v", ErrInvalidDecision, err)
			}
		}
		if !d.Approved {
			d.Input = nil
		}
		h.Decision = &d
		return nil
	}
	return ErrNotHeld
}

// ResponseSchema is the JSON Schema of an answer to a held call of the tool: approved, an
// optional reason and an optional edited input (the tool's own input schema).
func (a *Agent) ResponseSchema(toolName string) map[string]any {
	props := map[string]any{
		"approved": map[string]any{"type": "boolean"},
		"reason":   map[string]any{"type": "string"},
	}
	if t, ok := a.Tools[toolName]; ok && t.Input != nil {
		props["input"] = t.Input.Doc()
	}
	return map[string]any{"type": "object", "properties": props, "required": []string{"approved"}}
}

func (a *Agent) needsApproval(name string) bool {
	if _, ok := a.Tools[name]; !ok {
		return false
	}
	_, ok := a.Approvals[name]
	return ok
}

// suspend ends a run at held calls: the state goes on the result for the caller to store.
func (a *Agent) suspend(ls *loopState, msgID string, held, frontend []llm.ToolCall) {
	res := ls.res
	now := time.Now().UTC()
	s := &Suspension{
		ID: ids.New("apr"), Step: ls.step, MessageID: msgID, Added: res.Messages, Steps: res.Steps, Text: res.Text,
		Usage: res.Usage, MaxSteps: ls.maxSteps, ClientTools: ls.clientTools, Frontend: frontend, ConversationID: ls.conversation,
	}
	for _, m := range ls.msgs {
		if m.Role != "system" {
			s.Conversation = append(s.Conversation, m)
		}
	}
	for i, tc := range held {
		s.Held = append(s.Held, Held{InterruptID: s.ID + "." + strconv.Itoa(i), ToolCall: tc, ExpiresAt: now.Add(a.Approvals[tc.Name].Timeout)})
		metrics.ToolCalls.WithLabelValues(a.ID, tc.Name, "held").Inc()
	}
	res.FinishReason = FinishSuspended
	res.Suspended = s
}

// Resume continues a suspended run once every held call is decided: approved calls execute
// (with their edited input), declined ones answer the model that a person said no, then the
// loop goes on where it stopped.
func (a *Agent) Resume(ctx context.Context, s *Suspension, sink Sink) (*Result, error) {
	return a.observed(ctx, s.ConversationID, func(ctx context.Context) (*Result, error) { return a.resume(ctx, s, sink) })
}

func (a *Agent) resume(ctx context.Context, s *Suspension, sink Sink) (*Result, error) {
	if len(s.Undecided()) > 0 {
		return nil, fmt.Errorf("failed to resume run %q: %d tool calls are not decided yet", s.ID, len(s.Undecided()))
	}
	if sink == nil {
		sink = func(Event) error { return nil }
	}
	msgs := a.withInstructions(s.Conversation, len(s.Held))
	res := &Result{Text: s.Text, Usage: s.Usage, Steps: s.Steps, Messages: s.Added, FinishReason: "tool-calls"}
	var results []ToolResult
	for _, h := range s.Held {
		tc := h.ToolCall
		var r ToolResult
		if h.Decision.Approved {
			if len(h.Decision.Input) > 0 {
				tc.Arguments = string(h.Decision.Input)
			}
			r = a.callTool(ctx, tc)
		} else {
			r = ToolResult{ToolCallID: tc.ID, ToolName: tc.Name, Args: RawArgs(tc.Arguments), Result: declinedResult(h.Decision), IsError: true}
			metrics.ToolCalls.WithLabelValues(a.ID, tc.Name, "declined").Inc()
		}
		if err := sink(Event{Type: EventToolResult, Step: s.Step, MessageID: s.MessageID, ToolCall: tc, Result: r.Result, IsError: r.IsError}); err != nil {
			return nil, err
		}
		results = append(results, r)
		m := llm.Message{ID: ToolMessageID(s.MessageID, tc.ID), Role: "tool", Content: string(r.Result), ToolCallID: tc.ID}
		msgs = append(msgs, m)
		res.Messages = append(res.Messages, m)
	}
	if n := len(res.Steps); n > 0 {
		last := res.Steps[n-1]
		last.ToolResults = append(append([]ToolResult{}, last.ToolResults...), results...)
		res.Steps = append(append([]Step{}, res.Steps[:n-1]...), last)
	}
	if len(s.Frontend) > 0 || s.Step >= s.MaxSteps {
		res.PendingToolCalls = s.Frontend
		return res, nil
	}
	return a.loop(ctx, &loopState{msgs: msgs, res: res, clientTools: s.ClientTools, maxSteps: s.MaxSteps, step: s.Step, conversation: s.ConversationID}, sink)
}

// declinedResult is what the model sees for a call a person did not approve.
func declinedResult(d *Decision) json.RawMessage {
	msg := "A person declined this tool call; it was not executed."
	if d.Expired {
		msg = "Nobody approved this tool call in time; it was not executed."
	} else if d.Reason != "" {
		msg += " Their reason: " + d.Reason
	}
	return errorResult(msg)
}
