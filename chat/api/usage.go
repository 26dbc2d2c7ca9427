package api

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/chat/model"
)

// agentUsageItem is one agent's usage today and over the last 7 days.
type agentUsageItem struct {
	AgentID   string             `json:"agentId"`
	Name      string             `json:"name"`
	Prices    *model.AgentPrices `json:"prices,omitempty"`
	Today     model.UsageTotals  `json:"today"`
	Last7Days model.UsageTotals  `json:"last7Days"`
}

// usagePeriods are where today and the last 7 days start: UTC midnight, and UTC midnight six
// days before it (seven calendar days, today included), so the two agree on day boundaries
// whatever the admin's time zone.
func usagePeriods(now time.Time) (today, week time.Time) {
	today = now.UTC().Truncate(24 * time.Hour)
	return today, today.AddDate(0, 0, -6)
}

// agentUsage (GET /agent-usage, admins) answers every configured agent's runs and tokens today
// and over the last 7 days, from the chat's own records of the calls it made, with a cost for
// agents that have prices (at their current prices). Agents deleted since keep their usage.
func (a *API) agentUsage(c echo.Context) error {
	ctx := c.Request().Context()
	today, week := usagePeriods(time.Now())
	configs, err := a.opts.Store.ListAgents(ctx)
	if err != nil {
		return err
	}
	items := map[string]*agentUsageItem{}
	for _, cfg := range configs {
		items[cfg.AgentID] = &agentUsageItem{AgentID: cfg.AgentID, Name: cfg.Name, Prices: cfg.Prices}
	}
	for _, period := range []struct {
		since time.Time
		into  func(*agentUsageItem) *model.UsageTotals
	}{
		{today, func(i *agentUsageItem) *model.UsageTotals { return &i.Today }},
		{week, func(i *agentUsageItem) *model.UsageTotals { return &i.Last7Days }},
	} {
		totals, err := a.opts.Store.AgentUsageSince(ctx, period.since)
		if err != nil {
			return err
		}
		for _, u := range totals {
			item := items[u.AgentID]
			if item == nil {
				item = &agentUsageItem{AgentID: u.AgentID, Name: u.AgentID}
				items[u.AgentID] = item
			}
			*period.into(item) = u
		}
	}
	out := make([]agentUsageItem, 0, len(items))
	for _, item := range items {
		if p := item.Prices; p != nil {
			for _, u := range []*model.UsageTotals{&item.Today, &item.Last7Days} {
				cost := p.Cost(u.InputTokens, u.OutputTokens)
				u.Cost = &cost
			}
		}
		out = append(out, *item)
	}
	slices.SortFunc(out, func(x, y agentUsageItem) int { return strings.Compare(x.AgentID, y.AgentID) })
	return c.JSON(http.StatusOK, map[string]any{"items": out, "todaySince": today, "last7DaysSince": week})
}
