package store

import (
	"context"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

// Usage is the token usage of agent calls, recorded by the bridge as calls finish, and its
// totals per agent, which admins read (their runs, tokens and cost per agent).
type Usage interface {
	// RecordAgentUsage stores one agent call's usage. A call recorded already (a replica that
	// took a run over re-reads the call's RUN_FINISHED) is not counted twice.
	RecordAgentUsage(ctx context.Context, u model.AgentUsage) error
	// AgentUsageSince totals, per agent id, the calls recorded at or after since: runs are the
	// chat's runs (a run with frontend actions calls its agent several times, and is one run).
	AgentUsageSince(ctx context.Context, since time.Time) ([]model.UsageTotals, error)
}

// RecordAgentUsage implements Usage.
func (s *sqlStore) RecordAgentUsage(ctx context.Context, u model.AgentUsage) error {
	if u.AgentID == "" || u.CallID == "" || u.InputTokens < 0 || u.OutputTokens < 0 {
		return model.Errorf(model.ErrValidation, "agent usage needs an agent, a call and token counts of 0 or more")
	}
	return s.write(ctx, "record agent usage", func(t *txn) error {
		at := u.At
		if at.IsZero() {
			at = t.now
		}
		_, err := t.exec(`INSERT INTO chat_agent_usage (agent_id, call_id, run_id, input_tokens, output_tokens, at_us) VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (agent_id, call_id) DO NOTHING`, u.AgentID, u.CallID, u.RunID, u.InputTokens, u.OutputTokens, us(at))
		return err
	})
}

// AgentUsageSince implements Usage.
func (s *sqlStore) AgentUsageSince(ctx context.Context, since time.Time) ([]model.UsageTotals, error) {
	var out []model.UsageTotals
	err := s.read(ctx, "read agent usage", func(t *txn) (err error) {
		out, err = queryAll(t, func(sc scanner) (model.UsageTotals, error) {
			var u model.UsageTotals
			return u, sc.Scan(&u.AgentID, &u.Runs, &u.InputTokens, &u.OutputTokens)
		}, `SELECT agent_id, COUNT(DISTINCT run_id), COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0)
FROM chat_agent_usage WHERE at_us >= $1 GROUP BY agent_id ORDER BY agent_id`, us(since))
		return err
	})
	return out, err
}
