package bridge

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/platform/ids"
	"github.com/agentry-dev/agentry/internal/protocol/agui"
)

// decision answers a held tool call: an AG-UI resume entry of the next run, or Mastra's
// approve-tool-call / decline-tool-call.
type decision struct {
	interruptID string
	approved    bool
	reason      string
}

// entry is the decision as RunAgentInput.resume carries it.
func (d *decision) entry() agui.ResumeEntry {
	payload := map[string]any{"approved": d.approved}
	if d.reason != "" {
		payload["reason"] = d.reason
	}
	return agui.ResumeEntry{InterruptID: d.interruptID, Status: agui.ResumeResolved, Payload: agui.Raw(payload)}
}

// defaultApprovalWait is the expiry of an interrupt that names none.
const defaultApprovalWait = time.Hour

// requestApprovals turns a run's interrupts into approval requests: one message in the
// conversation, and one in the one-to-one with the agent of each approver who is not a member
// of it, all stored with the request in one transaction.
func (b *Bridge) requestApprovals(ctx context.Context, p *Plan, interrupts []agui.Interrupt, calls map[string]*call) error {
	approvers, err := b.approvers(ctx, p)
	if err != nil {
		return err
	}
	members, err := b.o.Store.Members(ctx, p.run.ConversationID)
	if err != nil {
		return err
	}
	name := p.cfg.Name
	name = cmp.Or(name, p.cfg.AgentID)
	for _, in := range interrupts {
		if in.Reason != agui.ReasonToolApproval {
			continue
		}
		a := model.Approval{ID: ids.New("approval"), ConversationID: p.run.ConversationID, AgentID: p.cfg.AgentID, RunID: p.run.RunID,
			InterruptID: in.ID, ToolCallID: in.ToolCallID, ToolName: in.Metadata.ToolName, Arguments: string(in.Metadata.Arguments),
			RequestedBy: p.sender, Approvers: approvers, ExpiresAt: time.Now().Add(defaultApprovalWait)}
		if t, err := time.Parse(time.RFC3339, in.ExpiresAt); err == nil {
			a.ExpiresAt = t
		}
		if c := calls[in.ToolCallID]; c != nil {
			a.ToolName = c.Name
			if a.Arguments == "" || a.Arguments == "null" {
				a.Arguments = c.args.String()
			}
		}
		text := fmt.Sprintf("%s asks to run %s. Waiting for %s.", name, a.ToolName, approverList(approvers))
		here := model.Message{Sender: p.cfg.AgentID, ReceiverType: model.ReceiverUser, ReceiverID: p.sender, Category: model.CategoryAgentic, Type: model.TypeApprovalRequest, Text: text}
		if p.group != "" {
			here.ReceiverType, here.ReceiverID = model.ReceiverGroup, p.group
		}
		msgs := []model.Message{here}
		for _, uid := range approvers {
			if !slices.Contains(members, uid) {
				msgs = append(msgs, model.Message{Sender: p.cfg.AgentID, ReceiverType: model.ReceiverUser, ReceiverID: uid, Category: model.CategoryAgentic,
					Type: model.TypeApprovalRequest, Text: fmt.Sprintf("%s asks to run %s for %s. You can approve it.", name, a.ToolName, p.sender)})
			}
		}
		if err := b.withStore(func(ctx context.Context) error { _, err := b.o.Store.CreateApproval(ctx, a, msgs); return err }); err != nil {
			return err
		}
		b.o.Publisher.Notify()
	}
	return nil
}

func approverList(uids []string) string {
	switch len(uids) {
	case 0:
		return "approval"
	case 1:
		return uids[0] + " to approve"
	}
	return strings.Join(uids[:len(uids)-1], ", ") + " or " + uids[len(uids)-1] + " to approve"
}

// approvers resolves the agent's approvers now: uids that exist and are people, and the
// admins (or moderators and admins) of the groups named; the requester when none is configured.
func (b *Bridge) approvers(ctx context.Context, p *Plan) ([]string, error) {
	var out []string
	add := func(uid string) {
		if !slices.Contains(out, uid) && uid != p.cfg.AgentID {
			out = append(out, uid)
		}
	}
	for _, entry := range p.cfg.Approvers {
		if rest, ok := strings.CutPrefix(entry, "group:"); ok {
			guid, which, _ := strings.Cut(rest, ":")
			scopes := []model.Scope{model.ScopeAdmin}
			if which == "moderators" {
				scopes = append(scopes, model.ScopeModerator)
			}
			uids, err := b.o.Store.MembersWithScope(ctx, guid, scopes...)
			if err != nil {
				return nil, err
			}
			for _, uid := range uids {
				if u, err := b.o.Store.GetUser(ctx, uid); err == nil && u.Kind != model.UserKindAgent {
					add(uid)
				}
			}
			continue
		}
		if u, err := b.o.Store.GetUser(ctx, entry); err == nil && u.Kind != model.UserKindAgent {
			add(entry)
		}
	}
	if len(out) == 0 {
		add(p.sender)
	}
	return out, nil
}

// Decide records uid's decision on an approval request and, when it is the first, resumes the
// run that stopped for it in the background.
func (b *Bridge) Decide(ctx context.Context, id, uid string, approved bool, reason string) (model.Approval, error) {
	a, err := b.o.Store.GetApproval(ctx, uid, id)
	if err != nil {
		return a, err
	}
	status, verb := model.ApprovalDeclined, "declined"
	if approved {
		status, verb = model.ApprovalApproved, "approved"
	}
	text := fmt.Sprintf("%s %s %s.", uid, verb, a.ToolName)
	if reason != "" {
		text = fmt.Sprintf("%s %s %s: %s", uid, verb, a.ToolName, reason)
	}
	a, err = b.o.Store.DecideApproval(ctx, id, uid, status, reason, b.decisionMessage(a, text))
	if err != nil {
		return a, err
	}
	b.o.Publisher.Notify()
	b.resume(a)
	return a, nil
}

// decisionMessage is the agent's note in the request's conversation.
func (b *Bridge) decisionMessage(a model.Approval, text string) model.Message {
	m := model.Message{Sender: a.AgentID, ReceiverType: model.ReceiverUser, ReceiverID: a.RequestedBy, Text: text}
	if guid, ok := model.GroupOf(a.ConversationID); ok {
		m.ReceiverType, m.ReceiverID = model.ReceiverGroup, guid
	}
	return m
}

// expireApprovals closes the requests nobody decided in time: each is declined to the agent
// (every ApprovalSweep).
func (b *Bridge) expireApprovals() {
	due, err := b.o.Store.ExpiredApprovals(b.ctx, time.Now(), 50)
	if err != nil {
		if b.ctx.Err() == nil {
			b.log.Error(err, "failed to list expired approvals")
		}
		return
	}
	for _, a := range due {
		a, err := b.o.Store.DecideApproval(b.ctx, a.ID, "", model.ApprovalExpired, "", b.decisionMessage(a, fmt.Sprintf("Nobody approved %s in time.", a.ToolName)))
		if err != nil {
			if model.CodeOf(err) != model.ErrApprovalDecided { // another replica closed it
				b.log.Error(err, "failed to expire an approval", "approval", a.ID)
			}
			continue
		}
		b.o.Publisher.Notify()
		b.resume(a)
	}
}

// resume starts the run that continues a decided approval: the agent is told the decision (AG-UI
// resume, or Mastra's approve/decline route) and its answer goes to the conversation. It waits
// for the conversation while another run holds it, at most RunTimeout.
func (b *Bridge) resume(a model.Approval) {
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		log := b.log.WithValues("approval", a.ID, "agent", a.AgentID, "conversation", a.ConversationID)
		cfg, err := b.o.Store.GetAgent(b.ctx, a.AgentID)
		if err != nil {
			log.Error(err, "the approved run cannot resume: its agent is gone")
			return
		}
		p := &Plan{b: b, cfg: cfg, sender: a.RequestedBy}
		if guid, ok := model.GroupOf(a.ConversationID); ok {
			p.group = guid
		}
		p.resume = &decision{interruptID: a.InterruptID, approved: a.Status == model.ApprovalApproved, reason: a.Reason}
		if a.Status == model.ApprovalExpired {
			p.resume.reason = "nobody approved it in time"
		}
		p.resumed.toolCallID, p.resumed.toolName = a.ToolCallID, a.ToolName
		p.run = model.AgentRun{ConversationID: a.ConversationID, RunID: ids.New("run"), AgentID: a.AgentID, StartedBy: a.RequestedBy, Owner: b.o.Replica}
		deadline := time.Now().Add(b.o.RunTimeout)
		for {
			select {
			case b.slots <- struct{}{}:
			case <-b.ctx.Done():
				return
			}
			p.run.ExpiresAt = time.Now().Add(b.o.RunTimeout + 30*time.Second)
			err := b.o.Store.BeginAgentRun(b.ctx, p.run)
			if err == nil {
				break
			}
			<-b.slots
			if model.CodeOf(err) != model.ErrAgentBusy || time.Now().After(deadline) {
				log.Error(err, "the approved run could not resume: the conversation stayed busy")
				return
			}
			select {
			case <-time.After(time.Second):
			case <-b.ctx.Done():
				return
			}
		}
		defer func() { <-b.slots }()
		b.execute(p, model.Message{})
	}()
}
