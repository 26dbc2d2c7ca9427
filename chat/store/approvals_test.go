package store

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

// TestApprovals: a request and its messages are stored together (once per interrupt), only
// approvers decide, the first decision wins and updates every copy of the request, and expired
// requests are listed for the service to close. On SQLite and PostgreSQL.
func TestApprovals(t *testing.T) {
	eachKeyed(t, func(t *testing.T, s Store) {
		users(t, s, "alice", "bob", "carol", "dave")
		cfg := chef()
		cfg.Enabled, cfg.Approvers = true, []string{"bob", "group:kitchen:admins"}
		a := must[model.AgentConfig](t)(func() (model.AgentConfig, error) { a, _, err := s.PutAgent(ctx, cfg, nil); return a, err }())
		if len(a.Approvers) != 2 || a.Approvers[1] != "group:kitchen:admins" {
			t.Fatalf("approvers: %v", a.Approvers)
		}
		conv := model.ConversationID(model.ReceiverUser, "alice", "chef")
		req := model.Approval{ID: "approval_1", ConversationID: conv, AgentID: "chef", RunID: "run_1", InterruptID: "apr_x.0", ToolCallID: "call_1",
			ToolName: "refund", Arguments: `{"order":7}`, RequestedBy: "alice", Approvers: []string{"bob", "carol"}, ExpiresAt: time.Now().Add(time.Hour)}
		msgs := []model.Message{
			{Sender: "chef", ReceiverType: model.ReceiverUser, ReceiverID: "alice", Category: model.CategoryAgentic, Type: model.TypeApprovalRequest, Text: "Chef asks to run refund."},
			{Sender: "chef", ReceiverType: model.ReceiverUser, ReceiverID: "bob", Category: model.CategoryAgentic, Type: model.TypeApprovalRequest, Text: "Chef asks to run refund."},
		}
		got := must[model.Approval](t)(s.CreateApproval(ctx, req, msgs))
		if got.Status != model.ApprovalPending || len(got.MessageIDs) != 2 {
			t.Fatalf("created: %+v", got)
		}
		// The same interrupt again: the stored request, no new message.
		again := must[model.Approval](t)(s.CreateApproval(ctx, model.Approval{ID: "approval_2", ConversationID: conv, AgentID: "chef", InterruptID: "apr_x.0", ExpiresAt: time.Now().Add(time.Hour)}, msgs))
		if again.ID != "approval_1" {
			t.Fatalf("a repeated interrupt made %+v", again)
		}
		// Visible to the requester and the approvers, not to others.
		wantCode(t, func() error { _, err := s.GetApproval(ctx, "dave", "approval_1"); return err }(), model.ErrApprovalNotFound)
		must[model.Approval](t)(s.GetApproval(ctx, "alice", "approval_1"))
		// The requester is not an approver; an outsider does not learn it exists.
		decision := model.Message{Sender: "chef", ReceiverType: model.ReceiverUser, ReceiverID: "alice", Text: "decided"}
		_, err := s.DecideApproval(ctx, "approval_1", "alice", model.ApprovalApproved, "", decision)
		wantCode(t, err, model.ErrPermissionDenied)
		_, err = s.DecideApproval(ctx, "approval_1", "dave", model.ApprovalApproved, "", decision)
		wantCode(t, err, model.ErrApprovalNotFound)

		// Bob and Carol decide at once: one wins.
		oneWins(t, 2, model.ErrApprovalDecided, func(i int) error {
			_, err := s.DecideApproval(ctx, "approval_1", []string{"bob", "carol"}[i], model.ApprovalDeclined, "not today", decision)
			return err
		})
		final := must[model.Approval](t)(s.GetApproval(ctx, "bob", "approval_1"))
		if final.Status != model.ApprovalDeclined || final.Reason != "not today" || final.DecidedAt == nil || (final.DecidedBy != "bob" && final.DecidedBy != "carol") {
			t.Fatalf("decided: %+v", final)
		}
		// Both copies of the request say so, and the decision is a message in the conversation.
		for i, viewer := range []string{"alice", "bob"} {
			m := must[model.Message](t)(s.GetMessage(ctx, viewer, got.MessageIDs[i]))
			var d model.ApprovalData
			if err := json.Unmarshal(m.Data, &d); err != nil || d.Status != model.ApprovalDeclined || d.DecidedBy != final.DecidedBy || len(d.MessageIDs) != 2 {
				t.Errorf("request copy %d: %s", i, m.Data)
			}
		}
		list := must[[]model.Message](t)(s.ListMessages(ctx, "alice", MessageQuery{UID: "chef", Limit: 10}))
		last := list[len(list)-1]
		if last.Type != model.TypeApprovalDecision || last.Text != "decided" {
			t.Errorf("last message: %+v", last)
		}

		// Expiry: listed once due, closed by the service (uid ""), not by a person.
		req.ID, req.InterruptID, req.ExpiresAt = "approval_3", "apr_y.0", time.Now().Add(-time.Second)
		must[model.Approval](t)(s.CreateApproval(ctx, req, msgs[:1]))
		due := must[[]model.Approval](t)(s.ExpiredApprovals(ctx, time.Now(), 10))
		if len(due) != 1 || due[0].ID != "approval_3" {
			t.Fatalf("expired: %+v", due)
		}
		_, err = s.DecideApproval(ctx, "approval_3", "bob", model.ApprovalApproved, "", decision)
		wantCode(t, err, model.ErrApprovalDecided)
		must[model.Approval](t)(s.DecideApproval(ctx, "approval_3", "", model.ApprovalExpired, "", decision))
		if due := must[[]model.Approval](t)(s.ExpiredApprovals(ctx, time.Now(), 10)); len(due) != 0 {
			t.Errorf("still due: %+v", due)
		}
	})
}

// oneWins runs try(0)…try(n-1) at once: exactly one succeeds, the others fail with code lose.
func oneWins(t *testing.T, n int, lose string, try func(i int) error) {
	t.Helper()
	results := make(chan error, n)
	for i := range n {
		go func() { results <- try(i) }()
	}
	won, lost := 0, 0
	for range n {
		switch err := <-results; {
		case err == nil:
			won++
		case model.CodeOf(err) == lose:
			lost++
		default:
			t.Fatal(err)
		}
	}
	if won != 1 || lost != n-1 {
		t.Fatalf("%d won, %d lost; want 1 and %d", won, lost, n-1)
	}
}
