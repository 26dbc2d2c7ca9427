package api

import (
	"net/http"
	"regexp"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/platform/ids"
)

func (a *API) getRules(c echo.Context) error {
	rules, err := a.opts.Store.Rules(c.Request().Context())
	return listJSON(c, "rules", rules, err)
}

type rulesRequest struct {
	Rules []store.Rule `json:"rules"`
}

// putRules replaces the rule list. Regexes are compiled here so a broken pattern is a 400
// now rather than a failure on every later message.
func (a *API) putRules(c echo.Context) error {
	var req rulesRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if req.Rules == nil {
		return errValidation("rules is required (an empty list removes every rule)")
	}
	if len(req.Rules) > 1000 {
		return errValidation("at most 1000 rules")
	}
	for i := range req.Rules {
		r := &req.Rules[i]
		if err := checkText("pattern", r.Pattern, 1000, true); err != nil {
			return err
		}
		switch r.Kind {
		case "word":
		case "regex":
			if _, err := regexp.Compile(r.Pattern); err != nil {
				return errValidation("rule %d: the pattern is not a valid regular expression", i)
			}
		default:
			return errValidation("rule %d: kind must be word or regex", i)
		}
		if r.Action != model.ModerationPending && r.Action != model.ModerationDisapproved {
			return errValidation("rule %d: action must be pending or disapproved", i)
		}
		if r.ID == "" {
			r.ID = ids.Hex(8)
		} else if err := checkID("id", r.ID); err != nil {
			return err
		}
	}
	if err := a.opts.Store.PutRules(c.Request().Context(), req.Rules); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"rules": req.Rules})
}

func (a *API) listFlags(c echo.Context) error {
	q := &query{c: c}
	mq := store.MemberQuery{Limit: q.limit(), Cursor: q.cursor()}
	if q.err != nil {
		return q.err
	}
	page, err := a.opts.Store.ListFlags(c.Request().Context(), mq)
	return pageJSON(c, page, err)
}

type moderateRequest struct {
	Status model.ModerationStatus `json:"status"`
}

func (a *API) moderateMessage(c echo.Context) error {
	id, err := pathMessageID(c)
	if err != nil {
		return err
	}
	var req moderateRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	switch req.Status {
	case model.ModerationApproved, model.ModerationPending, model.ModerationDisapproved:
	default:
		return errValidation("status must be approved, pending or disapproved")
	}
	m, err := a.opts.Store.Moderate(c.Request().Context(), id, req.Status)
	return a.changedJSON(c, http.StatusOK, m, err)
}
