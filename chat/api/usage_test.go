package api

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestAgentUsageAPI: admins read each agent's runs, tokens and cost today and over the last
// 7 days (UTC days); cost only for an agent with prices; a member gets 403. Prices are saved
// with the configuration and checked.
func TestAgentUsageAPI(t *testing.T) {
	for name, open := range keyedStores() {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			e := newEnv(t, st, Options{})
			alice := e.user("alice")
			e.expect(e.do(http.MethodPost, "/users", keyAuth, map[string]any{"uid": "root", "name": "Root", "role": RoleAdmin}), http.StatusCreated, "")
			root := e.user2("root")

			chef := chefBody("https://chef.example.com/agent")
			chef["prices"] = map[string]float64{"inputPerMillion": 3, "outputPerMillion": 15}
			e.expect(e.do(http.MethodPut, "/agents/chef", root, chef), http.StatusCreated, "")
			e.expect(e.do(http.MethodPut, "/agents/weather", root, chefBody("https://weather.example.com/agent")), http.StatusCreated, "")
			bad := chefBody("https://chef.example.com/agent")
			bad["prices"] = map[string]float64{"inputPerMillion": -1, "outputPerMillion": 1}
			e.expect(e.do(http.MethodPut, "/agents/chef", root, bad), http.StatusBadRequest, model.ErrValidation)

			ctx := context.Background()
			midnight := time.Now().UTC().Truncate(24 * time.Hour)
			for _, u := range []model.AgentUsage{
				{AgentID: "chef", RunID: "r1", CallID: "r1", InputTokens: 1000, OutputTokens: 100, At: time.Now()},
				{AgentID: "chef", RunID: "r1", CallID: "c2", InputTokens: 1200, OutputTokens: 200, At: time.Now()},
				{AgentID: "chef", RunID: "r0", CallID: "r0", InputTokens: 500_000, OutputTokens: 50_000, At: midnight.AddDate(0, 0, -6)},
				{AgentID: "chef", RunID: "old", CallID: "old", InputTokens: 9, OutputTokens: 9, At: midnight.AddDate(0, 0, -6).Add(-time.Second)},
				{AgentID: "weather", RunID: "w1", CallID: "w1", InputTokens: 40, OutputTokens: 2, At: midnight.Add(-time.Second)},
			} {
				testutil.NoError(t, st.RecordAgentUsage(ctx, u))
			}

			var got struct {
				Items []struct {
					AgentID   string             `json:"agentId"`
					Prices    *model.AgentPrices `json:"prices"`
					Today     model.UsageTotals  `json:"today"`
					Last7Days model.UsageTotals  `json:"last7Days"`
				} `json:"items"`
				TodaySince     time.Time `json:"todaySince"`
				Last7DaysSince time.Time `json:"last7DaysSince"`
			}
			r := e.do(http.MethodGet, "/agent-usage", root, nil)
			e.expect(r, http.StatusOK, "")
			r.decode(t, &got)
			if !got.TodaySince.Equal(midnight) || !got.Last7DaysSince.Equal(midnight.AddDate(0, 0, -6)) {
				t.Errorf("periods since %s and %s, want UTC midnight %s and six days before", got.TodaySince, got.Last7DaysSince, midnight)
			}
			if len(got.Items) != 2 || got.Items[0].AgentID != "chef" || got.Items[1].AgentID != "weather" {
				t.Fatalf("items: %s", r.body)
			}
			c, w := got.Items[0], got.Items[1]
			cost := func(in, out float64) float64 { return (in*3 + out*15) / 1e6 }
			if c.Today.Runs != 1 || c.Today.InputTokens != 2200 || c.Today.OutputTokens != 300 || c.Today.Cost == nil || *c.Today.Cost != cost(2200, 300) {
				t.Errorf("chef today: %s", r.body)
			}
			if c.Last7Days.Runs != 2 || c.Last7Days.InputTokens != 502_200 || c.Last7Days.OutputTokens != 50_300 || c.Last7Days.Cost == nil || *c.Last7Days.Cost != cost(502_200, 50_300) {
				t.Errorf("chef over 7 days: %s", r.body)
			}
			// No prices: tokens, no cost.
			if w.Prices != nil || w.Today.Runs != 0 || w.Last7Days.Runs != 1 || w.Last7Days.InputTokens != 40 || w.Last7Days.Cost != nil || w.Today.Cost != nil {
				t.Errorf("weather: %s", r.body)
			}

			e.expect(e.do(http.MethodGet, "/agent-usage", alice, nil), http.StatusForbidden, model.ErrPermissionDenied)
			e.expect(e.do(http.MethodGet, "/agent-usage", "not-a-token", nil), http.StatusUnauthorized, model.ErrUnauthenticated)
			e.expect(e.do(http.MethodGet, "/agent-usage", keyAuth, nil), http.StatusOK, "")
		})
	}
}
