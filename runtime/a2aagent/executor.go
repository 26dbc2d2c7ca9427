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
	// Approvals keeps runs stopped for a person's approval (the runtime's store, which its
	// other routes share): the task waits input-required until a follow-up message answers.
	Approvals Approvals
}

var _ a2asrv.AgentExecutor = (*Executor)(nil)

// Execute implements a2asrv.AgentExecutor.
func (x *Executor) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	if rc.StoredTask == nil {
		if err := q.Write(ctx, a2a.NewSubmittedTask(rc, rc.Message)); err != nil {
			return fmt.Errorf("failed to write task %q submitted: %w", rc.TaskID, err)
		}
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
	if run := pendingRun(rc); run != "" {
		return x.answer(ctx, rc, q, run)
	}
	msgs := conversation(rc)
	if len(msgs) == 0 {
		return x.finish(ctx, rc, q, a2a.TaskStateFailed, "The message has no text part: this agent answers text.")
	}
	if err := x.working(ctx, rc, q); err != nil {
		return err
	}
	out := &answerStream{rc: rc, q: q}
	res, err := x.Agent.Run(ctx, agent.Input{Messages: msgs, Conversation: rc.ContextID}, out.sink(ctx))
	return x.end(ctx, rc, q, out, res, err)
}

// working marks the task working, and no longer waiting for an approval.
func (x *Executor) working(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	e := a2a.NewStatusUpdateEvent(rc, a2a.TaskStateWorking, nil)
	if pendingRun(rc) != "" {
		e.Metadata = map[string]any{MetaPendingRun: ""}
	}
	if err := q.Write(ctx, e); err != nil {
		return fmt.Errorf("failed to write task %q working: %w", rc.TaskID, err)
	}
	return nil
}

// answerStream writes the answer's text as one artifact, streamed as it comes.
type answerStream struct {
	rc       *a2asrv.RequestContext
	q        eventqueue.Queue
	artifact a2a.ArtifactID
}

func (a *answerStream) sink(ctx context.Context) agent.Sink {
	return func(ev agent.Event) error {
		if ev.Type != agent.EventTextDelta || ev.Delta == "" {
			return nil
		}
		return a.write(ctx, ev.Delta)
	}
}

func (a *answerStream) write(ctx context.Context, text string) error {
	var e *a2a.TaskArtifactUpdateEvent
	if a.artifact == "" {
		e = a2a.NewArtifactEvent(a.rc, a2a.TextPart{Text: text})
		e.Artifact.Name = "answer"
		a.artifact = e.Artifact.ID
	} else {
		e = a2a.NewArtifactUpdateEvent(a.rc, a.artifact, a2a.TextPart{Text: text})
	}
	return a.q.Write(ctx, e)
}

// end writes how a run (or a resumed one) ended: canceled, failed, waiting for an approval, or
// completed with its answer.
func (x *Executor) end(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue, out *answerStream, res *agent.Result, err error) error {
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err() // canceled: Cancel writes the final state
	case err != nil:
		return x.finish(ctx, rc, q, a2a.TaskStateFailed, x.public(err))
	case res.Suspended != nil:
		return x.suspend(ctx, rc, q, res.Suspended)
	}
	if out.artifact == "" && res.Text != "" {
		// A model that answered in one piece: the whole text is the artifact.
		if err := out.write(ctx, res.Text); err != nil {
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
	// The SDK has put a follow-up message in the stored task's history already.
	if rc.Message != nil && (len(msgs) == 0 || msgs[len(msgs)-1].ID != rc.Message.ID) {
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
