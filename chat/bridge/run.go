package bridge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/chat/agentref"
	"github.com/agentry-dev/agentry/chat/jwtsign"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/platform/ids"
	"github.com/agentry-dev/agentry/internal/protocol/agui"
)

// execute runs p to its end: calls the agent, persists each call's output, pauses for
// frontend actions and continues, until the agent finishes without pending actions or the run
// fails. Whatever happens, the conversation is released and, on failure, holds an error message.
func (b *Bridge) execute(p *Plan, trigger model.Message) {
	defer b.tracked(p)()
	ctx, span := b.startRun(p)
	var rerr *runError
	defer func() { endRun(span, rerr) }()
	ctx, cancel := context.WithTimeout(ctx, b.o.RunTimeout)
	defer cancel()
	release := true
	defer func() {
		if release {
			b.release(p)
		}
	}()
	log := b.log.WithValues("run", p.run.RunID, "agent", p.cfg.AgentID, "conversation", p.run.ConversationID)
	start := time.Now()
	rerr = b.steps(ctx, p)
	if b.handedOver(p, rerr) {
		// Another replica finishes it: nothing to fail, nothing to release.
		release = false
		log.Info("agent run handed over to another replica")
		return
	}
	if rerr != nil {
		b.o.Metrics.AgentRun(rerr.Code, time.Since(start))
		if rerr.Code == model.RunErrUnreachable || rerr.Code == model.RunErrTLS || rerr.Cause != nil {
			log.Info("agent run failed", "code", rerr.Code, "reason", rerr.Reason, "cause", errString(rerr.Cause))
		} else {
			log.Info("agent run failed", "code", rerr.Code, "reason", rerr.Reason)
		}
		b.failRun(p, rerr)
		return
	}
	b.o.Metrics.AgentRun("", time.Since(start))
	log.V(1).Info("agent run finished", "duration", time.Since(start).String(), "trigger", trigger.ID)
}

// release ends p's claim on its conversation (a no-op once FinishAgentRun did).
func (b *Bridge) release(p *Plan) {
	rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer rcancel()
	if err := b.o.Store.EndAgentRun(rctx, p.run.ConversationID, p.run.RunID); err != nil {
		b.log.Error(err, "failed to release an agent run", "run", p.run.RunID)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Credentials are the headers of one call of the agent cfg at url for subject: its stored
// headers and, with auth chat-jwt or service-account, `Authorization: Bearer <token>` (signed
// by this chat for the person, or the chat's ServiceAccount token) in place of any stored
// Authorization. The error is a sentence for the person.
func (b *Bridge) Credentials(ctx context.Context, cfg model.AgentConfig, url, subject, conversation string, headers map[string]string) (map[string]string, error) {
	var tok string
	var err error
	switch cfg.Auth {
	case model.AgentAuthChatJWT:
		tok, err = b.signed(ctx, cfg, url, subject, conversation)
	case model.AgentAuthServiceAccount:
		tok, err = b.serviceToken(ctx, cfg)
	default:
		return headers, nil
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(headers)+1)
	for k, v := range headers {
		if !strings.EqualFold(k, "Authorization") {
			out[k] = v
		}
	}
	out["Authorization"] = "Bearer " + tok
	return out, nil
}

// signed is a token this chat signs for the person subject (chat-jwt).
func (b *Bridge) signed(ctx context.Context, cfg model.AgentConfig, url, subject, conversation string) (string, error) {
	if b.o.Signer == nil {
		return "", errors.New("it takes tokens signed by this chat, and this chat signs none; an admin should start it with --issuer-url")
	}
	person := jwtsign.Person{UID: subject}
	if subject != ServiceSubject {
		// A person who signed in through an identity provider: the token names that account too.
		u, err := b.o.Store.GetUser(ctx, subject)
		if err != nil {
			b.log.Error(err, "failed to read the person a token is for", "agent", cfg.AgentID)
			return "", errors.New("the chat could not sign its token for it")
		}
		person.ProviderIssuer, person.ProviderSubject = u.ProviderIssuer, u.ProviderSubject
	}
	tok, err := b.o.Signer.Sign(ctx, person, cmp.Or(cfg.TokenAudience, url), conversation)
	if err != nil {
		b.log.Error(err, "failed to sign a token for an agent", "agent", cfg.AgentID)
		return "", errors.New("the chat could not sign its token for it")
	}
	return tok, nil
}

// serviceToken is the chat's ServiceAccount token for the in-cluster Agent of cfg, audience
// the Agent's own unless the configuration names another (service-account).
func (b *Bridge) serviceToken(ctx context.Context, cfg model.AgentConfig) (string, error) {
	if b.o.ServiceTokens == nil {
		return "", errors.New("it takes this chat's ServiceAccount token, and this chat has none; it must run in the cluster with --service-account")
	}
	namespace, name, err := agentref.ParseRef(cfg.AgentRef)
	if err != nil {
		return "", errors.New("its agentRef is not namespace/name")
	}
	tok, err := b.o.ServiceTokens.Token(ctx, cmp.Or(cfg.TokenAudience, v1alpha1.AgentAudience(namespace, name)))
	if err != nil {
		b.log.Error(err, "failed to get a ServiceAccount token for an agent", "agent", cfg.AgentID)
		return "", errors.New("the chat could not get its ServiceAccount token for it")
	}
	return tok, nil
}

// steps calls the agent until it finishes without pending frontend actions.
func (b *Bridge) steps(ctx context.Context, p *Plan) *runError {
	headers, err := b.o.Store.AgentHeaders(ctx, p.cfg.AgentID)
	if err != nil {
		return fail(model.RunErrUnreachable, "its configuration could not be read", err)
	}
	actions := map[string]model.FrontendAction{}
	list, err := b.o.Store.ListActions(ctx, p.cfg.AgentID)
	if err != nil {
		return fail(model.RunErrUnreachable, "its frontend actions could not be read", err)
	}
	for _, a := range list {
		actions[a.Name] = a
	}
	url, rerr := b.endpoint(ctx, p.cfg)
	if rerr != nil {
		return rerr
	}
	parent := ""
	for step := 0; step < b.o.MaxSteps; step++ {
		if ctx.Err() != nil {
			return b.transportFailure(ctx, ctx.Err())
		}
		if step == 0 && p.waiting {
			// Taken over while it waited for frontend actions: their results, then the next call.
			if rerr := b.awaitActions(ctx, p, nil); rerr != nil {
				return rerr
			}
			continue
		}
		msgs, err := b.history(ctx, p)
		if err != nil {
			return b.storeFailure(ctx, "read the conversation", err)
		}
		callID := p.run.RunID
		if step > 0 {
			callID = ids.New("run")
		}
		// A fresh token per call: a run with frontend actions may outlast one.
		callHeaders, err := b.Credentials(ctx, p.cfg, url, p.sender, p.run.ConversationID, headers)
		if err != nil {
			return fail(model.RunErrUnauthorized, err.Error(), err)
		}
		var out *output
		switch p.cfg.Provider {
		case model.ProviderMastra, model.ProviderA2A:
			// Recorded too, so another replica can take the run over; with no run to re-attach
			// to, it calls again (a Mastra answer comes whole, an A2A one under this run's message
			// id: a client builds it anew, never twice).
			if rerr := b.recordCall(ctx, p, callID); rerr != nil {
				return rerr
			}
			if p.cfg.Provider == model.ProviderMastra {
				out, rerr = b.callMastra(ctx, p, callID, url, callHeaders, msgs)
			} else {
				out, rerr = b.callA2A(ctx, p, callID, url, callHeaders, msgs)
			}
		default:
			if step == 0 && p.takeover != "" {
				// Taken over from another replica: its call goes on in the runtime.
				p.inCall.Store(true)
				out, rerr = b.rejoinAGUI(ctx, p, url, p.takeover, callHeaders, actions)
				if rerr == nil || !errors.Is(rerr.Cause, errCallGone) {
					callID = p.takeover
					break
				}
				// The agent no longer has the call (the replica of it that kept it stopped too,
				// an agent without shared memory) or cannot be re-attached to: nothing of the
				// answer was stored, so it is asked again, as the person would by sending again.
				b.log.Info("the agent call taken over is gone; calling the agent again", "agent", p.cfg.AgentID, "run", p.run.RunID, "call", p.takeover)
				callID = ids.New("run")
			}
			conversation := toAGUI(p.cfg.AgentID, p.group != "", msgs)
			in := runInput(p.run.ConversationID, callID, conversation, toolsOf(list))
			in.ParentRunID = parent
			if step == 0 && p.resume != nil {
				in.Resume = []agui.ResumeEntry{p.resume.entry()}
			}
			if len(conversation) == 0 && in.Resume == nil {
				return fail(model.RunErrProtocol, "the conversation has no message it can send", nil)
			}
			// Recorded before the call, so another replica can re-attach to it if this one stops.
			if rerr := b.recordCall(ctx, p, callID); rerr != nil {
				return rerr
			}
			out, rerr = b.callAGUI(ctx, p, url, callHeaders, in, actions)
		}
		if b.handedOver(p, rerr) {
			return rerr
		}
		if !b.stillOwner(ctx, p) {
			return fail(model.RunErrShuttingDown, "another replica took the run over", errHandedOver)
		}
		p.inCall.Store(false)
		b.endCall(p)
		// Before the answer is stored: whoever sees the answer finds its usage counted.
		b.recordUsage(p, callID, out)
		pending := b.persist(p, out, actions, rerr == nil)
		if p.cfg.Provider == model.ProviderAGUI && rerr == nil && len(pending) > 0 {
			// Stored: a replica taking the run over from here must not replay this call. (A run
			// that ended released its row already.)
			if err := b.o.Store.SetAgentRunCall(ctx, p.run.RunID, b.o.Replica, ""); err != nil && model.CodeOf(err) != model.ErrNotFound {
				b.log.Error(err, "failed to clear the agent call of a run", "run", p.run.RunID)
			}
		}
		if rerr != nil {
			return rerr
		}
		if out.finish != nil {
			b.publish(p, out.finish)
		}
		if len(out.interrupts) > 0 {
			// The run stopped for approval: it is over for now (the conversation is free), and
			// continues as a new run once someone decides.
			if err := b.requestApprovals(ctx, p, out.interrupts, out.byCall); err != nil {
				return b.storeFailure(ctx, "store the approval request", err)
			}
			return nil
		}
		if len(pending) == 0 {
			return nil
		}
		if rerr := b.awaitActions(ctx, p, pending); rerr != nil {
			return rerr
		}
		parent = callID
	}
	return fail(model.RunErrTooManyActions, fmt.Sprintf("it asked for frontend actions more than %d times in one run", b.o.MaxSteps-1), nil)
}

// recordCall records the agent call about to start as the run's call in flight.
func (b *Bridge) recordCall(ctx context.Context, p *Plan, callID string) *runError {
	if err := b.o.Store.SetAgentRunCall(ctx, p.run.RunID, b.o.Replica, callID); err != nil {
		if model.CodeOf(err) == model.ErrNotFound {
			return fail(model.RunErrShuttingDown, "another replica took the run over", errHandedOver)
		}
		return b.storeFailure(ctx, "record the agent call", err)
	}
	p.inCall.Store(true)
	return nil
}

func (b *Bridge) storeFailure(ctx context.Context, what string, err error) *runError {
	if ctx.Err() != nil {
		return b.transportFailure(ctx, ctx.Err())
	}
	return fail(model.RunErrUnreachable, "the chat service could not "+what, err)
}

// endpoint is the URL to call: the configured one, or the in-cluster Agent's.
func (b *Bridge) endpoint(ctx context.Context, cfg model.AgentConfig) (string, *runError) {
	if cfg.AgentRef == "" {
		return cfg.DeploymentURL, nil
	}
	if b.o.Resolver == nil {
		return "", fail(model.RunErrNotReady, "it names an in-cluster Agent, but this chat service does not run in a cluster", nil)
	}
	route := agentref.RouteAGUI
	switch cfg.Provider {
	case model.ProviderMastra:
		route = agentref.RouteGenerate
	case model.ProviderA2A:
		route = agentref.RouteA2A
	}
	url, err := b.o.Resolver.Resolve(ctx, cfg.AgentRef, route)
	if err != nil {
		return "", fail(model.RunErrNotReady, "its in-cluster Agent is not ready: "+clip(err.Error(), 200), err)
	}
	return url, nil
}

// URL is where a configuration's agent is called (its in-cluster Agent resolved).
func (b *Bridge) URL(ctx context.Context, cfg model.AgentConfig) (string, error) {
	url, rerr := b.endpoint(ctx, cfg)
	if rerr != nil {
		return "", errors.New(rerr.Reason)
	}
	return url, nil
}

// persist stores one call's output in one transaction and returns the frontend calls left for
// the client. A call that failed keeps what arrived complete (text, finished tool results)
// but asks the client for nothing.
func (b *Bridge) persist(p *Plan, out *output, actions map[string]model.FrontendAction, ok bool) []model.PendingAction {
	if out == nil {
		return nil
	}
	receiverType, receiver := model.ReceiverUser, p.sender
	if p.group != "" {
		receiverType, receiver = model.ReceiverGroup, p.group
	}
	var pending []model.PendingAction
	msgs := make([]model.Message, 0, len(out.entries))
	for _, e := range out.entries {
		m := model.Message{Sender: p.cfg.AgentID, ReceiverType: receiverType, ReceiverID: receiver, Category: model.CategoryAgentic}
		if e.result != nil {
			r := *e.result
			r.RunID, r.AgentID = p.run.RunID, p.cfg.AgentID
			if r.Name == "" && r.ToolCallID == p.resumed.toolCallID {
				r.Name = p.resumed.toolName
			}
			m.Type, m.Data = model.TypeToolResult, model.MustJSON(r)
			msgs = append(msgs, m)
			continue
		}
		d := model.AssistantData{RunID: p.run.RunID, AgentID: p.cfg.AgentID, MessageID: e.messageID, TraceID: p.traceID, Reasoning: e.reasoning}
		if d.Reasoning != nil {
			d.Reasoning.Text = noNUL(d.Reasoning.Text)
		}
		for _, c := range e.calls {
			tc := c.ToolCall
			tc.Arguments = c.args.String()
			if a, isAction := actions[tc.Name]; isAction {
				tc.Frontend, tc.DisplayName, tc.ExecutionText = true, a.DisplayName, a.ExecutionText
				if ok && !out.results[tc.ID] {
					d.AwaitingActions = append(d.AwaitingActions, tc.ID)
					pending = append(pending, model.PendingAction{ID: tc.ID, Name: tc.Name})
				}
			}
			d.ToolCalls = append(d.ToolCalls, tc)
		}
		if len(d.AwaitingActions) > 0 {
			d.Executor = p.sender
		}
		m.Type, m.Text, m.Data = model.TypeAssistant, noNUL(e.text.String()), model.MustJSON(d)
		if m.Text == "" && len(d.ToolCalls) == 0 {
			continue
		}
		msgs = append(msgs, m)
	}
	if ok && len(pending) == 0 {
		// The run's last call: store the answer and release the conversation together.
		if err := b.withStore(func(ctx context.Context) error {
			_, err := b.o.Store.FinishAgentRun(ctx, p.run.ConversationID, p.run.RunID, b.o.Replica, msgs)
			return err
		}); err != nil && model.CodeOf(err) != model.ErrNotFound { // not found: another replica stores it
			b.log.Error(err, "failed to store the agent's messages", "run", p.run.RunID)
			b.release(p) // before RUN_FINISHED goes out, as FinishAgentRun would have
		}
		b.o.Publisher.Notify()
		return nil
	}
	if len(msgs) == 0 {
		return pending
	}
	if len(pending) > 0 {
		// Claim the calls before the client can see them, so its result finds them pending.
		r := p.run
		r.Pending, r.ExpiresAt = pending, time.Now().Add(b.o.RunTimeout+30*time.Second)
		if err := b.withStore(func(ctx context.Context) error { return b.o.Store.UpdateAgentRun(ctx, r) }); err != nil {
			b.log.Error(err, "failed to record pending frontend actions", "run", p.run.RunID)
			return nil
		}
	}
	if err := b.withStore(func(ctx context.Context) error { _, err := b.o.Store.SendMessages(ctx, msgs); return err }); err != nil {
		b.log.Error(err, "failed to store the agent's messages", "run", p.run.RunID)
		return nil
	}
	b.o.Metrics.MessagesStored("agent", len(msgs))
	b.o.Publisher.Notify()
	return pending
}

// withStore runs a store write on its own short context: the output of a run that just timed
// out or was cancelled must still be stored.
func (b *Bridge) withStore(fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return fn(ctx)
}

// awaitActions waits until the executor answered every pending call, or the action timeout
// passed; unanswered calls then get an error result written as the agent, so the next call
// tells the agent what happened.
func (b *Bridge) awaitActions(ctx context.Context, p *Plan, pending []model.PendingAction) *runError {
	// Close hands a waiting run over: another replica waits for the results and goes on. (Left
	// set when the wait fails: handedOver reads it then.)
	p.awaiting.Store(true)
	woken, stop := b.wait(p.run.ConversationID)
	defer stop()
	deadline := time.NewTimer(b.o.ActionTimeout)
	defer deadline.Stop()
	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	for {
		r, err := b.o.Store.GetAgentRun(ctx, p.run.ConversationID)
		if err == nil && len(r.Pending) == 0 {
			p.awaiting.Store(false)
			return nil
		}
		select {
		case <-ctx.Done():
			return b.transportFailure(ctx, ctx.Err())
		case <-woken:
		case <-poll.C:
		case <-deadline.C:
			for _, pa := range r.Pending {
				res := model.ToolResultData{Error: fmt.Sprintf("the user's app did not run the action within %s", b.o.ActionTimeout)}
				if _, err := b.o.Store.SubmitActionResult(ctx, "", p.run.RunID, pa.ID, res, true); err != nil && model.CodeOf(err) != model.ErrActionNotPending {
					return b.storeFailure(ctx, "record the action timeout", err)
				}
			}
			b.o.Publisher.Notify()
			p.awaiting.Store(false)
			return nil
		}
	}
}

// failRun tells the conversation: a RUN_ERROR frame now, and an error message that stays.
func (b *Bridge) failRun(p *Plan, e *runError) {
	name := p.cfg.Name
	name = cmp.Or(name, p.cfg.AgentID)
	text := fmt.Sprintf("%s could not answer: %s.", name, e.Reason)
	ev := agui.Event{Type: agui.RunError, Message: text, Code: e.Code, Timestamp: time.Now().UnixMilli()}
	// Told once the conversation is released, like RUN_FINISHED (see output.finish).
	defer b.publish(p, model.MustJSON(ev))
	receiverType, receiver := model.ReceiverUser, p.sender
	if p.group != "" {
		receiverType, receiver = model.ReceiverGroup, p.group
	}
	m := model.Message{Sender: p.cfg.AgentID, ReceiverType: receiverType, ReceiverID: receiver, Category: model.CategoryAgentic,
		Type: model.TypeAgentError, Text: text, Data: model.MustJSON(model.AgentErrorData{RunID: p.run.RunID, AgentID: p.cfg.AgentID, Code: e.Code})}
	if err := b.withStore(func(ctx context.Context) error {
		_, err := b.o.Store.FinishAgentRun(ctx, p.run.ConversationID, p.run.RunID, b.o.Replica, []model.Message{m})
		return err
	}); err != nil {
		if model.CodeOf(err) == model.ErrNotFound {
			return // another replica bridges the run now: it tells the conversation
		}
		b.log.Error(err, "failed to store the error message of a failed run", "run", p.run.RunID)
		b.release(p)
		return
	}
	b.o.Metrics.MessagesStored("agent", 1)
	b.o.Publisher.Notify()
}
