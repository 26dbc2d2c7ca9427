package store

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

// TestAgentUsage: calls are totalled per agent from a time on, runs counted once however many
// calls they made, a call recorded twice (a takeover re-reading it) counted once, and calls
// before the period left out. On SQLite and PostgreSQL.
func TestAgentUsage(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		midnight := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
		rec := func(agent, run, call string, in, out int64, at time.Time) {
			t.Helper()
			wantCode(t, s.RecordAgentUsage(ctx, model.AgentUsage{AgentID: agent, RunID: run, CallID: call, InputTokens: in, OutputTokens: out, At: at}), "")
		}
		rec("chef", "r1", "r1", 100, 20, midnight.Add(time.Hour))
		rec("chef", "r1", "c2", 150, 30, midnight.Add(time.Hour+time.Second)) // the same run's second call
		rec("chef", "r1", "c2", 150, 30, midnight.Add(2*time.Hour))           // recorded again: not counted
		rec("chef", "r0", "r0", 1000, 200, midnight.Add(-time.Hour))          // yesterday
		rec("weather", "r9", "r9", 7, 3, midnight)                            // at midnight: today

		today := must[[]model.UsageTotals](t)(s.AgentUsageSince(ctx, midnight))
		want := []model.UsageTotals{{AgentID: "chef", Runs: 1, InputTokens: 250, OutputTokens: 50}, {AgentID: "weather", Runs: 1, InputTokens: 7, OutputTokens: 3}}
		if !reflect.DeepEqual(today, want) {
			t.Fatalf("today's usage = %+v, want %+v", today, want)
		}
		week := must[[]model.UsageTotals](t)(s.AgentUsageSince(ctx, midnight.Add(-6*24*time.Hour)))
		if len(week) != 2 || week[0].Runs != 2 || week[0].InputTokens != 1250 || week[0].OutputTokens != 250 {
			t.Fatalf("the week's usage = %+v", week)
		}
		if none := must[[]model.UsageTotals](t)(s.AgentUsageSince(ctx, midnight.Add(24*time.Hour))); len(none) != 0 {
			t.Fatalf("usage of tomorrow = %+v", none)
		}
		// Usage without an agent or a call, or with negative tokens, is refused.
		wantCode(t, s.RecordAgentUsage(ctx, model.AgentUsage{AgentID: "chef", RunID: "r2", InputTokens: 1}), model.ErrValidation)
		wantCode(t, s.RecordAgentUsage(ctx, model.AgentUsage{AgentID: "chef", CallID: "c", InputTokens: -1}), model.ErrValidation)
	})
}

// TestAgentPrices: an agent's prices are stored, read back, replaced and cleared; invalid
// prices are refused; saving the configuration keeps what the agent said it supports.
func TestAgentPrices(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		cfg := chef()
		cfg.Prices = &model.AgentPrices{InputPerMillion: 0.15, OutputPerMillion: 0.6}
		cfg.Capabilities = model.ParseCapabilities(json.RawMessage(`{"tools":{"supported":true,"items":[{"name":"x","description":"d","parameters":{}}]},"custom":{"a":1}}`))
		a, _, err := s.PutAgent(ctx, cfg, nil)
		wantCode(t, err, "")
		const caps = `{"tools":{"supported":true,"items":[{"name":"x"}]}}` // what the chat keeps of it
		if a.Prices == nil || *a.Prices != *cfg.Prices || string(model.MustJSON(a.Capabilities)) != caps {
			t.Fatalf("saved prices %+v, capabilities %s", a.Prices, model.MustJSON(a.Capabilities))
		}
		// An admin's save says nothing of capabilities: they stay; no prices clears them.
		cfg.Prices, cfg.Capabilities = nil, nil
		a, _, err = s.PutAgent(ctx, cfg, nil)
		wantCode(t, err, "")
		if a.Prices != nil || string(model.MustJSON(a.Capabilities)) != caps {
			t.Fatalf("after clearing prices: prices %+v, capabilities %s", a.Prices, model.MustJSON(a.Capabilities))
		}
		if got := must[model.AgentConfig](t)(s.GetAgent(ctx, "chef")); got.Prices != nil {
			t.Fatalf("read back prices %+v after clearing them", got.Prices)
		}
		for _, p := range []model.AgentPrices{{InputPerMillion: -1}, {OutputPerMillion: model.MaxPricePerMillion + 1}} {
			cfg.Prices = &p
			_, _, err = s.PutAgent(ctx, cfg, nil)
			wantCode(t, err, model.ErrValidation)
		}
	})
}
