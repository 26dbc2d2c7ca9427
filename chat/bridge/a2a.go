package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/protocol/a2awire"
	"github.com/agentry-dev/agentry/internal/protocol/agui"
)

// a2aClient is the official A2A SDK's client of the agent at url: an agent card's URL
// (…/agent-card.json) is read for the endpoint it names, any other URL is the endpoint.
func a2aClient(ctx context.Context, client *http.Client, url string, headers map[string]string) (*a2aclient.Client, error) {
	h := http.Header{}
	for k, v := range headers {
		h.Set(k, v)
	}
	hc := a2awire.Client(client, h)
	opt := a2aclient.WithJSONRPCTransport(hc)
	if strings.HasSuffix(url, "agent-card.json") {
		card, err := agentcard.NewResolver(hc).Resolve(ctx, url, agentcard.WithPath(""))
		if err != nil {
			return nil, fmt.Errorf("failed to read the agent card: %w", err)
		}
		return a2aclient.NewFromCard(ctx, card, opt)
	}
	return a2aclient.NewFromEndpoints(ctx, []a2a.AgentInterface{{URL: url, Transport: a2a.TransportProtocolJSONRPC}}, opt)
}

// callA2A sends the person's last message to an A2A agent (message/stream, the conversation
// as the task's context) and relays the streamed answer as one AG-UI text message, so clients
// handle every provider alike.
func (b *Bridge) callA2A(ctx context.Context, p *Plan, callID, url string, headers map[string]string, msgs []model.Message) (*output, *runError) {
	var last string
	for _, m := range toAGUI(p.cfg.AgentID, p.group != "", msgs) {
		var text string
		if m.Role == "user" && json.Unmarshal(m.Content, &text) == nil && text != "" {
			last = text
		}
	}
	if last == "" {
		return nil, fail(model.RunErrProtocol, "the conversation has no message it can send", nil)
	}
	client := b.o.Client
	if p.cfg.AgentRef != "" {
		client = b.o.ClusterClient
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// Each event puts the idle limit off again.
	idle := time.AfterFunc(b.o.IdleTimeout, func() { cancel(errIdle) })
	defer idle.Stop()
	c, err := a2aClient(ctx, client, url, headers)
	if err != nil {
		return nil, b.transportFailure(ctx, err)
	}
	now := func() int64 { return time.Now().UnixMilli() }
	b.publish(p, model.MustJSON(agui.Event{Type: agui.RunStarted, ThreadID: p.run.ConversationID, RunID: p.run.RunID, Timestamp: now()}))
	out := newOutput()
	msgID := "msg_" + callID // the same when another replica calls again: built anew, not twice
	started := false
	say := func(text string) {
		if text == "" {
			return
		}
		if !started {
			started = true
			ev := agui.Event{Type: agui.TextMessageStart, MessageID: msgID, Role: "assistant", Timestamp: now()}
			out.apply(&ev)
			b.publish(p, model.MustJSON(ev))
		}
		ev := agui.Event{Type: agui.TextMessageContent, MessageID: msgID, Delta: text, Timestamp: now()}
		out.apply(&ev)
		b.publish(p, model.MustJSON(ev))
	}
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: last})
	msg.ContextID = p.run.ConversationID
	var final *a2a.TaskStatus
	for ev, err := range c.SendStreamingMessage(ctx, &a2a.MessageSendParams{Message: msg}) {
		if err != nil {
			return out, b.a2aFailure(ctx, err)
		}
		idle.Reset(b.o.IdleTimeout)
		switch e := ev.(type) {
		case *a2a.TaskArtifactUpdateEvent:
			say(a2awire.Text(e.Artifact.Parts))
		case *a2a.Message:
			say(a2awire.Text(e.Parts))
			final = &a2a.TaskStatus{State: a2a.TaskStateCompleted}
		case *a2a.Task:
			for _, a := range e.Artifacts {
				say(a2awire.Text(a.Parts))
			}
			if e.Status.State.Terminal() {
				final = &e.Status
			}
		case *a2a.TaskStatusUpdateEvent:
			if e.Final {
				final = &e.Status
			}
		}
	}
	switch {
	case final == nil:
		return out, fail(model.RunErrProtocol, "its stream ended before the task did", nil)
	case final.State == a2a.TaskStateFailed || final.State == a2a.TaskStateRejected:
		reason := "it could not answer"
		if final.Message != nil && a2awire.Text(final.Message.Parts) != "" {
			reason = "it said: " + clip(a2awire.Text(final.Message.Parts), 200)
		}
		return out, fail(model.RunErrAgent, reason, nil)
	case !started && final.Message != nil:
		say(a2awire.Text(final.Message.Parts)) // an answer given only in the final status
	}
	if started {
		ev := agui.Event{Type: agui.TextMessageEnd, MessageID: msgID, Timestamp: now()}
		out.apply(&ev)
		b.publish(p, model.MustJSON(ev))
	}
	out.finished = true
	out.finish = model.MustJSON(agui.Event{Type: agui.RunFinished, ThreadID: p.run.ConversationID, RunID: p.run.RunID, Timestamp: now()})
	return out, nil
}

// a2aFailure names what went wrong with an A2A call: the agent's refusal, or the transport.
func (b *Bridge) a2aFailure(ctx context.Context, err error) *runError {
	// The SDK's JSON-RPC transport reports an HTTP refusal by its status code only.
	if msg := err.Error(); strings.Contains(msg, "401") || strings.Contains(msg, "403") {
		return fail(model.RunErrUnauthorized, "it refused the chat service's credentials", err)
	}
	return b.transportFailure(ctx, err)
}
