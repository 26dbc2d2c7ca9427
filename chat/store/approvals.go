package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

// Approvals are the tool calls agent runs stopped for. A request is stored with its messages in
// one transaction, and decided once: the first decision wins, and the request messages, the
// decision message and their events are written with it.
type Approvals interface {
	// CreateApproval stores a (its id, approvers and expiry set by the caller) and sends msgs
	// (the request messages; each one's data is the approval) in one transaction. An approval
	// for the same agent interrupt already stored is returned as it is, with no message sent.
	CreateApproval(ctx context.Context, a model.Approval, msgs []model.Message) (model.Approval, error)
	// GetApproval returns the approval if viewer may see it: an approver, the requester, or a
	// member of its conversation. ErrApprovalNotFound otherwise.
	GetApproval(ctx context.Context, viewer, id string) (model.Approval, error)
	// DecideApproval moves a pending approval to status (approved, declined, or expired when uid
	// is ""), updates its request messages and stores decision (a message in the conversation,
	// its data filled here). uid must be one of its approvers (ErrPermissionDenied); a request no
	// longer pending is ErrApprovalDecided.
	DecideApproval(ctx context.Context, id, uid string, status model.ApprovalStatus, reason string, decision model.Message) (model.Approval, error)
	// ExpiredApprovals lists pending approvals whose expiry passed, oldest first.
	ExpiredApprovals(ctx context.Context, now time.Time, limit int) ([]model.Approval, error)
	// MembersWithScope lists the group's members holding one of scopes (none for an unknown
	// group), for resolving approvers; it checks no viewer.
	MembersWithScope(ctx context.Context, guid string, scopes ...model.Scope) ([]string, error)
}

// MembersWithScope implements Approvals.
func (s *sqlStore) MembersWithScope(ctx context.Context, guid string, scopes ...model.Scope) ([]string, error) {
	out := []string{}
	err := s.read(ctx, "read group members", func(t *txn) error {
		members, err := queryAll(t, func(sc scanner) (m model.Member, err error) {
			return m, sc.Scan(&m.UID, &m.Scope)
		}, `SELECT uid, scope FROM chat_members WHERE guid = $1 ORDER BY uid`, guid)
		for _, m := range members {
			if slices.Contains(scopes, m.Scope) {
				out = append(out, m.UID)
			}
		}
		return err
	})
	return out, err
}

const approvalColumns = `id, conversation_id, agent_id, run_id, interrupt_id, tool_call_id, tool_name, arguments, requested_by, approvers, status, decided_by, reason, decided_us, created_us, expires_us, message_ids`

func scanApproval(sc scanner) (model.Approval, error) {
	var a model.Approval
	var approvers, status, ids string
	var decided, created, expires int64
	if err := sc.Scan(&a.ID, &a.ConversationID, &a.AgentID, &a.RunID, &a.InterruptID, &a.ToolCallID, &a.ToolName, &a.Arguments, &a.RequestedBy,
		&approvers, &status, &a.DecidedBy, &a.Reason, &decided, &created, &expires, &ids); err != nil {
		return a, err
	}
	a.Status, a.CreatedAt, a.ExpiresAt = model.ApprovalStatus(status), fromUS(created), fromUS(expires)
	if decided != 0 {
		t := fromUS(decided)
		a.DecidedAt = &t
	}
	if err := json.Unmarshal([]byte(approvers), &a.Approvers); err != nil {
		return a, err
	}
	return a, json.Unmarshal([]byte(ids), &a.MessageIDs)
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// CreateApproval implements Approvals.
func (s *sqlStore) CreateApproval(ctx context.Context, a model.Approval, msgs []model.Message) (model.Approval, error) {
	err := s.write(ctx, "create approval", func(t *txn) error {
		old, err := scanApproval(t.row(`SELECT `+approvalColumns+` FROM chat_approvals WHERE agent_id = $1 AND interrupt_id = $2`, a.AgentID, a.InterruptID))
		if err == nil {
			a = old
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		a.Status, a.CreatedAt, a.MessageIDs = model.ApprovalPending, t.now, []int64{}
		if a.Approvers == nil {
			a.Approvers = []string{}
		}
		for _, m := range msgs {
			m.Data = model.MustJSON(model.ApprovalData{Approval: a})
			sent, err := sendInTx(t, m)
			if err != nil {
				return err
			}
			a.MessageIDs = append(a.MessageIDs, sent.ID)
		}
		_, err = t.exec(`INSERT INTO chat_approvals (`+approvalColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, '', '', 0, $12, $13, $14)`,
			a.ID, a.ConversationID, a.AgentID, a.RunID, a.InterruptID, a.ToolCallID, a.ToolName, a.Arguments, a.RequestedBy,
			jsonText(a.Approvers), string(a.Status), us(a.CreatedAt), us(a.ExpiresAt), jsonText(a.MessageIDs))
		if err != nil {
			return err
		}
		// The request messages carry the ids of all of them (a client links the copies).
		for _, id := range a.MessageIDs {
			if _, err := t.exec(`UPDATE chat_messages SET data = $2 WHERE id = $1`, id, string(model.MustJSON(model.ApprovalData{Approval: a}))); err != nil {
				return err
			}
		}
		return nil
	})
	return a, err
}

// mayView: approvers, the requester and the conversation's members see an approval.
func mayView(t *txn, viewer string, a model.Approval) (bool, error) {
	if viewer == a.RequestedBy || slices.Contains(a.Approvers, viewer) {
		return true, nil
	}
	members, err := t.s.membersIn(t, a.ConversationID)
	if err != nil {
		return false, err
	}
	return slices.Contains(members, viewer), nil
}

// GetApproval implements Approvals.
func (s *sqlStore) GetApproval(ctx context.Context, viewer, id string) (model.Approval, error) {
	var a model.Approval
	err := s.read(ctx, "read approval", func(t *txn) (err error) {
		a, err = scanApproval(t.row(`SELECT `+approvalColumns+` FROM chat_approvals WHERE id = $1`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return model.Errorf(model.ErrApprovalNotFound, "no approval request %q", id)
		}
		if err != nil {
			return err
		}
		if ok, err := mayView(t, viewer, a); err != nil {
			return err
		} else if !ok {
			return model.Errorf(model.ErrApprovalNotFound, "no approval request %q", id)
		}
		return nil
	})
	return a, err
}

// DecideApproval implements Approvals.
func (s *sqlStore) DecideApproval(ctx context.Context, id, uid string, status model.ApprovalStatus, reason string, decision model.Message) (model.Approval, error) {
	var a model.Approval
	err := s.write(ctx, "decide approval", func(t *txn) (err error) {
		a, err = scanApproval(t.row(`SELECT `+approvalColumns+` FROM chat_approvals WHERE id = $1`+t.s.d.forUpdate, id))
		if errors.Is(err, sql.ErrNoRows) {
			return model.Errorf(model.ErrApprovalNotFound, "no approval request %q", id)
		}
		if err != nil {
			return err
		}
		switch {
		case uid == "" && status != model.ApprovalExpired, uid != "" && status == model.ApprovalExpired:
			return fmt.Errorf("an approval expires by the service only")
		case uid != "" && !slices.Contains(a.Approvers, uid):
			if ok, err := mayView(t, uid, a); err != nil {
				return err
			} else if !ok {
				return model.Errorf(model.ErrApprovalNotFound, "no approval request %q", id)
			}
			return model.Errorf(model.ErrPermissionDenied, "only the agent's approvers decide this request")
		case a.Status != model.ApprovalPending:
			return model.Errorf(model.ErrApprovalDecided, "this request was %s already", a.Status)
		case uid != "" && t.now.After(a.ExpiresAt):
			return model.Errorf(model.ErrApprovalDecided, "this request expired at %s", a.ExpiresAt.Format(time.RFC3339))
		}
		now := t.now
		a.Status, a.DecidedBy, a.Reason, a.DecidedAt = status, uid, reason, &now
		if _, err := t.exec(`UPDATE chat_approvals SET status = $2, decided_by = $3, reason = $4, decided_us = $5 WHERE id = $1`,
			id, string(status), uid, reason, us(now)); err != nil {
			return err
		}
		data := string(model.MustJSON(model.ApprovalData{Approval: a}))
		for _, mid := range a.MessageIDs {
			m, err := loadMessage(t, mid, true)
			if err != nil || m.DeletedAt != nil {
				continue // deleted by a moderator: nothing to update
			}
			m.Data = json.RawMessage(data)
			if _, err := t.exec(`UPDATE chat_messages SET data = $2 WHERE id = $1`, mid, data); err != nil {
				return err
			}
			if err := messageEvent(t, model.EventMessageEdited, m); err != nil {
				return err
			}
		}
		decision.Type, decision.Category, decision.Data = model.TypeApprovalDecision, model.CategoryAgentic, json.RawMessage(data)
		_, err = sendInTx(t, decision)
		return err
	})
	return a, err
}

// ExpiredApprovals implements Approvals.
func (s *sqlStore) ExpiredApprovals(ctx context.Context, now time.Time, limit int) ([]model.Approval, error) {
	var out []model.Approval
	err := s.read(ctx, "list expired approvals", func(t *txn) (err error) {
		out, err = queryAll(t, scanApproval, `SELECT `+approvalColumns+` FROM chat_approvals WHERE status = 'pending' AND expires_us < $1 ORDER BY expires_us LIMIT $2`, us(now), limit)
		return err
	})
	return out, err
}
