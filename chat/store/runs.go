package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

// AgentRuns hold the one agent run a conversation may have at a time, across replicas, and
// the results clients post for the frontend actions a run waits for.
type AgentRuns interface {
	// BeginAgentRun claims the run's conversation; ErrAgentBusy while another run holds it and
	// has not expired (an expired run's replica died: its claim is taken over).
	BeginAgentRun(ctx context.Context, r model.AgentRun) error
	// UpdateAgentRun replaces the pending actions and the expiry of the run with r.RunID.
	UpdateAgentRun(ctx context.Context, r model.AgentRun) error
	// GetAgentRun returns the conversation's run; ErrNotFound when it has none.
	GetAgentRun(ctx context.Context, conversationID string) (model.AgentRun, error)
	// EndAgentRun releases the conversation if runID still holds it.
	EndAgentRun(ctx context.Context, conversationID, runID string) error
	// FinishAgentRun stores a run's last messages and releases the conversation in one
	// transaction, so a client that sees the answer can send the next message at once. With
	// owner set, only while owner bridges the run (else ErrNotFound, nothing stored): a run
	// another replica took over is stored once, by it.
	FinishAgentRun(ctx context.Context, conversationID, runID, owner string, ms []model.Message) ([]model.Message, error)
	// SubmitActionResult stores the result of a pending frontend action call as a tool_result
	// message and removes the call from the run's pending list, in one transaction, so a call is
	// answered once. uid must be the user who started the run, unless byAgent (the bridge
	// writing a timeout as the agent). A call not pending is ErrActionNotPending.
	SubmitActionResult(ctx context.Context, uid, runID, toolCallID string, res model.ToolResultData, byAgent bool) (model.Message, error)

	// HeartbeatAgentRuns marks the runs owner bridges alive.
	HeartbeatAgentRuns(ctx context.Context, owner string) error
	// SetAgentRunCall records the agent call in flight of owner's run (callID "" between
	// calls); ErrNotFound when the run is no longer owner's (another replica took it over).
	SetAgentRunCall(ctx context.Context, runID, owner, callID string) error
	// ClaimStaleAgentRun takes over, for owner, one run whose replica has shown no sign of life
	// since staleBefore and that was calling its agent: false when there is none.
	ClaimStaleAgentRun(ctx context.Context, owner string, staleBefore time.Time) (model.AgentRun, bool, error)
	// ReleaseAgentRuns hands owner's runs over (a replica shutting down): they are stale at once.
	ReleaseAgentRuns(ctx context.Context, owner string) error

	// Setting reads a named setting ("" when unset); PutSetting writes one ("" deletes).
	Setting(ctx context.Context, name string) (string, error)
	PutSetting(ctx context.Context, name, value string) error
}

func scanRun(sc scanner) (model.AgentRun, error) {
	var r model.AgentRun
	var pending string
	var expires int64
	if err := sc.Scan(&r.ConversationID, &r.RunID, &r.AgentID, &r.StartedBy, &pending, &expires, &r.Owner, &r.CallID); err != nil {
		return r, err
	}
	r.ExpiresAt = fromUS(expires)
	return r, json.Unmarshal([]byte(pending), &r.Pending)
}

const runColumns = `conversation_id, run_id, agent_id, started_by, pending, expires_us, owner, call_id`

func pendingJSON(p []model.PendingAction) string {
	if p == nil {
		p = []model.PendingAction{}
	}
	b, _ := json.Marshal(p)
	return string(b)
}

// BeginAgentRun implements AgentRuns.
func (s *sqlStore) BeginAgentRun(ctx context.Context, r model.AgentRun) error {
	return s.write(ctx, "begin agent run", func(t *txn) error {
		// Insert, or take over an expired claim, in one statement: two replicas racing for the
		// same conversation cannot both win.
		return t.execOne(model.Errorf(model.ErrAgentBusy, "the agent is still answering in this conversation; send your message when it has finished"),
			`INSERT INTO chat_agent_runs (`+runColumns+`, heartbeat_us) VALUES ($1, $2, $3, $4, $5, $6, $8, '', $7)
ON CONFLICT (conversation_id) DO UPDATE SET run_id = excluded.run_id, agent_id = excluded.agent_id, started_by = excluded.started_by,
  pending = excluded.pending, expires_us = excluded.expires_us, owner = excluded.owner, call_id = '', heartbeat_us = excluded.heartbeat_us
WHERE chat_agent_runs.expires_us < $7`,
			r.ConversationID, r.RunID, r.AgentID, r.StartedBy, pendingJSON(r.Pending), us(r.ExpiresAt), us(t.now), r.Owner)
	})
}

// UpdateAgentRun implements AgentRuns.
func (s *sqlStore) UpdateAgentRun(ctx context.Context, r model.AgentRun) error {
	return s.write(ctx, "update agent run", func(t *txn) error {
		_, err := t.exec(`UPDATE chat_agent_runs SET pending = $2, expires_us = $3 WHERE run_id = $1`, r.RunID, pendingJSON(r.Pending), us(r.ExpiresAt))
		return err
	})
}

// GetAgentRun implements AgentRuns.
func (s *sqlStore) GetAgentRun(ctx context.Context, conversationID string) (model.AgentRun, error) {
	var r model.AgentRun
	err := s.read(ctx, "read agent run", func(t *txn) (err error) {
		r, err = scanRun(t.row(`SELECT `+runColumns+` FROM chat_agent_runs WHERE conversation_id = $1`, conversationID))
		if errors.Is(err, sql.ErrNoRows) {
			return model.Errorf(model.ErrNotFound, "no agent run in conversation %q", conversationID)
		}
		return err
	})
	return r, err
}

// EndAgentRun implements AgentRuns.
func (s *sqlStore) EndAgentRun(ctx context.Context, conversationID, runID string) error {
	return s.write(ctx, "end agent run", func(t *txn) error {
		_, err := t.exec(`DELETE FROM chat_agent_runs WHERE conversation_id = $1 AND run_id = $2`, conversationID, runID)
		return err
	})
}

// FinishAgentRun implements AgentRuns.
func (s *sqlStore) FinishAgentRun(ctx context.Context, conversationID, runID, owner string, ms []model.Message) ([]model.Message, error) {
	var out []model.Message
	err := s.write(ctx, "finish agent run", func(t *txn) (err error) {
		if owner != "" {
			var current string
			err := t.row(`SELECT owner FROM chat_agent_runs WHERE conversation_id = $1 AND run_id = $2`+t.s.d.forUpdate, conversationID, runID).Scan(&current)
			if err == nil && current != owner && current != "" {
				return model.Errorf(model.ErrNotFound, "run %q is bridged by another replica now", runID)
			}
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		if out, err = sendAllInTx(t, ms); err != nil {
			return err
		}
		_, err = t.exec(`DELETE FROM chat_agent_runs WHERE conversation_id = $1 AND run_id = $2`, conversationID, runID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SubmitActionResult implements AgentRuns.
func (s *sqlStore) SubmitActionResult(ctx context.Context, uid, runID, toolCallID string, res model.ToolResultData, byAgent bool) (model.Message, error) {
	var out model.Message
	err := s.write(ctx, "submit action result", func(t *txn) error {
		r, err := scanRun(t.row(`SELECT `+runColumns+` FROM chat_agent_runs WHERE run_id = $1`+t.s.d.forUpdate, runID))
		if errors.Is(err, sql.ErrNoRows) {
			return model.Errorf(model.ErrActionNotPending, "run %q is not waiting for actions (it finished or timed out)", runID)
		}
		if err != nil {
			return err
		}
		if !byAgent && uid != r.StartedBy {
			return model.Errorf(model.ErrPermissionDenied, "only the user who started the run answers its actions")
		}
		i := -1
		for j, p := range r.Pending {
			if p.ID == toolCallID {
				i = j
			}
		}
		if i < 0 {
			return model.Errorf(model.ErrActionNotPending, "tool call %q is not waiting for a result (answered or timed out)", toolCallID)
		}
		res.RunID, res.AgentID, res.ToolCallID, res.Name, res.Frontend = runID, r.AgentID, toolCallID, r.Pending[i].Name, true
		r.Pending = append(r.Pending[:i], r.Pending[i+1:]...)
		if _, err := t.exec(`UPDATE chat_agent_runs SET pending = $2 WHERE run_id = $1`, runID, pendingJSON(r.Pending)); err != nil {
			return err
		}
		m := model.Message{Sender: uid, ReceiverID: r.AgentID, ReceiverType: model.ReceiverUser, Category: model.CategoryAgentic,
			Type: model.TypeToolResult, Data: model.MustJSON(res)}
		if byAgent {
			m.Sender, m.ReceiverID = r.AgentID, r.StartedBy
		}
		if guid, ok := model.GroupOf(r.ConversationID); ok {
			m.ReceiverType, m.ReceiverID = model.ReceiverGroup, guid
		}
		out, err = sendInTx(t, m)
		return err
	})
	return out, err
}

// Setting implements AgentRuns.
func (s *sqlStore) Setting(ctx context.Context, name string) (string, error) {
	var v string
	err := s.read(ctx, "read setting", func(t *txn) error {
		err := t.row(`SELECT value FROM chat_settings WHERE name = $1`, "setting."+name).Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	return v, err
}

// PutSetting implements AgentRuns.
func (s *sqlStore) PutSetting(ctx context.Context, name, value string) error {
	return s.write(ctx, "save setting", func(t *txn) error {
		if value == "" {
			_, err := t.exec(`DELETE FROM chat_settings WHERE name = $1`, "setting."+name)
			return err
		}
		_, err := t.exec(`INSERT INTO chat_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value`, "setting."+name, value)
		return err
	})
}

// HeartbeatAgentRuns implements AgentRuns.
func (s *sqlStore) HeartbeatAgentRuns(ctx context.Context, owner string) error {
	return s.write(ctx, "heartbeat agent runs", func(t *txn) error {
		_, err := t.exec(`UPDATE chat_agent_runs SET heartbeat_us = $2 WHERE owner = $1`, owner, us(t.now))
		return err
	})
}

// SetAgentRunCall implements AgentRuns.
func (s *sqlStore) SetAgentRunCall(ctx context.Context, runID, owner, callID string) error {
	return s.write(ctx, "record agent call", func(t *txn) error {
		return t.execOne(model.Errorf(model.ErrNotFound, "run %q is no longer bridged here", runID),
			`UPDATE chat_agent_runs SET call_id = $3, heartbeat_us = $4 WHERE run_id = $1 AND owner = $2`, runID, owner, callID, us(t.now))
	})
}

// ClaimStaleAgentRun implements AgentRuns.
func (s *sqlStore) ClaimStaleAgentRun(ctx context.Context, owner string, staleBefore time.Time) (model.AgentRun, bool, error) {
	var r model.AgentRun
	claimed := false
	err := s.write(ctx, "claim a stale agent run", func(t *txn) error {
		var heartbeat int64
		row := t.row(`SELECT `+runColumns+`, heartbeat_us FROM chat_agent_runs WHERE (call_id <> '' OR pending <> '[]') AND owner <> $1 AND heartbeat_us < $2 AND expires_us > $3 ORDER BY heartbeat_us LIMIT 1`,
			owner, us(staleBefore), us(t.now))
		var err error
		r, err = scanRun(scanExtra{row, &heartbeat})
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		// The heartbeat read is the claim's condition: two replicas racing, one wins.
		res, err := t.exec(`UPDATE chat_agent_runs SET owner = $2, heartbeat_us = $3 WHERE run_id = $1 AND heartbeat_us = $4 AND owner = $5`,
			r.RunID, owner, us(t.now), heartbeat, r.Owner)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		claimed = n == 1
		r.Owner = owner
		return nil
	})
	return r, claimed, err
}

// ReleaseAgentRuns implements AgentRuns.
func (s *sqlStore) ReleaseAgentRuns(ctx context.Context, owner string) error {
	return s.write(ctx, "release agent runs", func(t *txn) error {
		_, err := t.exec(`UPDATE chat_agent_runs SET heartbeat_us = 0 WHERE owner = $1`, owner)
		return err
	})
}

// scanExtra scans a run and one more column after it.
type scanExtra struct {
	sc    scanner
	extra any
}

func (s scanExtra) Scan(dest ...any) error { return s.sc.Scan(append(dest, s.extra)...) }
