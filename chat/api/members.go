package api

import (
	"context"
	"errors"
	"net/http"
	"sort"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
)

func (a *API) memberQuery(c echo.Context) (store.MemberQuery, error) {
	q := &query{c: c}
	mq := store.MemberQuery{Limit: q.limit(), Cursor: q.cursor()}
	for _, s := range q.list("scopes") {
		if err := checkScope(model.Scope(s)); err != nil {
			return mq, err
		}
		mq.Scopes = append(mq.Scopes, model.Scope(s))
	}
	return mq, q.err
}

func (a *API) listMembers(c echo.Context) error {
	return a.listGroupMembers(c, a.opts.Store.ListMembers)
}

func (a *API) listBanned(c echo.Context) error { return a.listGroupMembers(c, a.opts.Store.ListBanned) }

// listGroupMembers answers a page of a group's members or banned users.
func (a *API) listGroupMembers(c echo.Context, list func(ctx context.Context, viewer, guid string, q store.MemberQuery) (store.Page[model.Member], error)) error {
	guid, err := pathID(c, "guid")
	if err != nil {
		return err
	}
	mq, err := a.memberQuery(c)
	if err != nil {
		return err
	}
	page, err := list(c.Request().Context(), uidOf(c), guid, mq)
	return pageJSON(c, page, err)
}

type addMembersRequest struct {
	Members []memberRequest `json:"members"`
}

// memberResult is one uid's outcome of an add: "success", or the error it got.
type memberResult struct {
	Success bool         `json:"success"`
	Error   *errorDetail `json:"error,omitempty"`
}

func (a *API) addMembers(c echo.Context) error {
	guid, err := pathID(c, "guid")
	if err != nil {
		return err
	}
	var req addMembersRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if len(req.Members) == 0 {
		return errValidation("members is required")
	}
	members, err := checkMembers(req.Members)
	if err != nil {
		return err
	}
	results, err := a.opts.Store.AddMembers(c.Request().Context(), uidOf(c), guid, members)
	if err != nil {
		return err
	}
	out := make(map[string]memberResult, len(results))
	uids := make([]string, 0, len(results))
	for uid := range results {
		uids = append(uids, uid)
	}
	sort.Strings(uids)
	added := false
	for _, uid := range uids {
		if e := results[uid]; e != nil {
			var me *model.Error
			if !errors.As(e, &me) {
				a.log(c).Error(e, "failed to add a group member", "guid", guid, "uid", uid)
				me = &model.Error{Code: model.ErrInternal, Message: "internal error"}
			}
			out[uid] = memberResult{Error: &errorDetail{Code: me.Code, Message: me.Message}}
			continue
		}
		added = true
		out[uid] = memberResult{Success: true}
	}
	if added {
		a.notify()
	}
	return c.JSON(http.StatusOK, map[string]any{"results": out})
}

// memberAction runs one of the actor-on-member operations (kick, ban, unban).
func (a *API) memberAction(c echo.Context, op func(actor, guid, uid string) error) error {
	guid, err := pathID(c, "guid")
	if err != nil {
		return err
	}
	uid, err := pathID(c, "uid")
	if err != nil {
		return err
	}
	return a.changed(c, op(uidOf(c), guid, uid))
}

func (a *API) kickMember(c echo.Context) error {
	return a.memberAction(c, func(actor, guid, uid string) error {
		return a.opts.Store.KickMember(c.Request().Context(), actor, guid, uid)
	})
}

func (a *API) banMember(c echo.Context) error {
	return a.memberAction(c, func(actor, guid, uid string) error {
		return a.opts.Store.BanMember(c.Request().Context(), actor, guid, uid)
	})
}

func (a *API) unbanMember(c echo.Context) error {
	return a.memberAction(c, func(actor, guid, uid string) error {
		return a.opts.Store.UnbanMember(c.Request().Context(), actor, guid, uid)
	})
}

type scopeRequest struct {
	Scope model.Scope `json:"scope"`
}

func (a *API) changeScope(c echo.Context) error {
	var req scopeRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if err := checkScope(req.Scope); err != nil {
		return err
	}
	return a.memberAction(c, func(actor, guid, uid string) error {
		return a.opts.Store.ChangeScope(c.Request().Context(), actor, guid, uid, req.Scope)
	})
}
