package a2aagent

import (
	"context"
	"fmt"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/agentry-dev/agentry/internal/protocol/a2awire"
	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// Executor runs one agent for each A2A message: the task's earlier messages and the new one
// are the conversation, the answer's text streams as one artifact, and the task ends completed,
// failed (the reason in words, never an internal error), or canceled.
type Executor struct {
	Agent *agent.Agent
	// PublicError says what may be shown of a run's error (the runtime's rule for every route).
	PublicError func(error) string
}

var _ a2asrv.AgentExecutor = (*Executor)(nil)

// Execute implements a2asrv.AgentExecutor.
func (x *Executor) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	if rc.StoredTask == nil {
		if err := q.Write(ctx, a2a.NewSubmittedTask(rc, rc.Message)); err != nil {
			return fmt.Errorf("failed to write task %q submitted: %w", rc.TaskID, err)
		}
	}
	if err := q.Write(ctx, a2a.NewStatusUpdateEvent(rc, a2a.TaskStateWorking, nil)); err != nil {
		return fmt.Errorf("failed to write task %q working: %w", rc.TaskID, err)
	}
	var artifact a2a.ArtifactID
	sink := func(ev agent.Event) error {
		if ev.Type != agent.EventTextDelta || ev.Delta == "" {
			return nil
		}
		var e *a2a.TaskArtifactUpdateEvent
		if artifact == "" {
			e = a2a.NewArtifactEvent(rc, a2a.TextPart{Text: ev.Delta})
			e.Artifact.Name = "answer"
			artifact = e.Artifact.ID
		} else {
			e = a2a.NewArtifactUpdateEvent(rc, artifact, a2a.TextPart{Text: ev.Delta})
		}
		return q.Write(ctx, e)
	}
	// A message from another agent says how deep in a chain of agents it is; the run's tools
	// that ask agents go one deeper (runtime/tools stops a chain at MaxA2ADepth).
	if rc.Message != nil {
		depth := tools.DepthOf(rc.Message.Metadata)
		if depth > tools.MaxA2ADepth {
			return x.finish(ctx, rc, q, a2a.TaskStateFailed, fmt.Sprintf("The chain of agents asking agents is %d deep; it stops at %d.", depth, tools.MaxA2ADepth))
		}
		ctx = tools.WithA2ADepth(ctx, depth)
	}
	msgs := conversation(rc)
	if len(msgs) == 0 {
		return x.finish(ctx, rc, q, a2a.TaskStateFailed, "The message has no text part: this agent answers text.")
	}
	res, err := x.Agent.Run(ctx, agent.Input{Messages: msgs, Conversation: rc.ContextID}, sink)
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err() // canceled: Cancel writes the final state
	case err != nil:
		return x.finish(ctx, rc, q, a2a.TaskStateFailed, x.public(err))
	case res.Suspended != nil:
		return x.finish(ctx, rc, q, a2a.TaskStateInputRequired, "A person must approve a tool call of this run; it cannot be answered over A2A yet.")
	}
	if artifact == "" && res.Text != "" {
		// A model that answered in one piece: the whole text is the artifact.
		e := a2a.NewArtifactEvent(rc, a2a.TextPart{Text: res.Text})
		e.Artifact.Name = "answer"
		if err := q.Write(ctx, e); err != nil {
			return fmt.Errorf("failed to write the answer of task %q: %w", rc.TaskID, err)
		}
	}
	return x.finish(ctx, rc, q, a2a.TaskStateCompleted, res.Text)
}

// Cancel implements a2asrv.AgentExecutor: the run's context is canceled by the SDK; the task
// ends canceled.
func (x *Executor) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	return x.finish(ctx, rc, q, a2a.TaskStateCanceled, "")
}

// finish writes the task's final state with text as the agent's message (none when empty).
func (x *Executor) finish(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue, state a2a.TaskState, text string) error {
	var msg *a2a.Message
	if text != "" {
		msg = a2a.NewMessageForTask(a2a.MessageRoleAgent, rc, a2a.TextPart{Text: text})
	}
	e := a2a.NewStatusUpdateEvent(rc, state, msg)
	e.Final = true
	if err := q.Write(ctx, e); err != nil {
		return fmt.Errorf("failed to write task %q %s: %w", rc.TaskID, state, err)
	}
	return nil
}

func (x *Executor) public(err error) string {
	if x.PublicError != nil {
		return x.PublicError(err)
	}
	return "The agent could not answer."
}

// conversation is the task's history and the new message as the model sees them: text parts
// only (the agent speaks text), user and agent roles.
func conversation(rc *a2asrv.RequestContext) []llm.Message {
	var msgs []*a2a.Message
	if rc.StoredTask != nil {
		msgs = append(msgs, rc.StoredTask.History...)
	}
	if rc.Message != nil {
		msgs = append(msgs, rc.Message)
	}
	out := make([]llm.Message, 0, len(msgs))
	for _, m := range msgs {
		t := a2awire.Text(m.Parts)
		if t == "" {
			continue
		}
		role := "user"
		if m.Role == a2a.MessageRoleAgent {
			role = "assistant"
		}
		out = append(out, llm.Message{Role: role, Content: t})
	}
	return out
}
