package bridge

import (
	"context"
	"encoding/json"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/protocol/agui"
)

// recordUsage stores the tokens one agent call used, as its end reported them (AG-UI's
// RUN_FINISHED usage, Mastra's generate usage), for the admins' usage per agent. A call that
// reported none is not recorded: the chat does not guess.
func (b *Bridge) recordUsage(p *Plan, callID string, out *output) {
	if out == nil || len(out.usage) == 0 {
		return
	}
	u := model.AgentUsage{AgentID: p.cfg.AgentID, RunID: p.run.RunID, CallID: callID}
	for _, e := range out.usage {
		u.InputTokens += max(e.InputTokens, 0)
		u.OutputTokens += max(e.OutputTokens, 0)
	}
	if err := b.withStore(func(ctx context.Context) error { return b.o.Store.RecordAgentUsage(ctx, u) }); err != nil {
		// The answer matters more than its count: the run goes on.
		b.log.Error(err, "failed to record an agent call's token usage", "run", p.run.RunID, "agent", p.cfg.AgentID)
	}
}

// generateUsage reads a Mastra generate answer's usage: promptTokens and completionTokens
// (Agentry's runtime, AI SDK 4) or inputTokens and outputTokens (AI SDK 5); nil without one.
func generateUsage(raw []byte) []agui.TokenUsage {
	var res struct {
		Usage *struct {
			PromptTokens     int64 `json:"promptTokens"`
			CompletionTokens int64 `json:"completionTokens"`
			InputTokens      int64 `json:"inputTokens"`
			OutputTokens     int64 `json:"outputTokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(raw, &res) != nil || res.Usage == nil {
		return nil
	}
	in, out := max(res.Usage.PromptTokens, res.Usage.InputTokens), max(res.Usage.CompletionTokens, res.Usage.OutputTokens)
	if in == 0 && out == 0 {
		return nil
	}
	return []agui.TokenUsage{{InputTokens: in, OutputTokens: out, TotalTokens: in + out}}
}
