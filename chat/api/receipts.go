package api

import (
	"net/http"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
)

// reaction reads the reaction from the path: an emoji or a short name, nothing that could
// smuggle markup or control characters.
func reaction(c echo.Context) (string, error) {
	r, err := pathParam(c, "reaction")
	if err != nil {
		return "", err
	}
	if r == "" || utf8.RuneCountInString(r) > 32 || !utf8.ValidString(r) {
		return "", errValidation("reaction must be 1 to 32 characters")
	}
	for _, ch := range r {
		if ch < 0x20 || ch == 0x7f || ch == '<' || ch == '>' || ch == '"' || ch == '\'' || ch == '&' {
			return "", errValidation("reaction holds a character that is not allowed")
		}
	}
	return r, nil
}

func (a *API) reactionChange(c echo.Context, op func(uid string, id int64, r string) (model.Message, error)) error {
	id, err := pathMessageID(c)
	if err != nil {
		return err
	}
	r, err := reaction(c)
	if err != nil {
		return err
	}
	m, err := op(uidOf(c), id, r)
	return a.changedJSON(c, http.StatusOK, m, err)
}

func (a *API) addReaction(c echo.Context) error {
	return a.reactionChange(c, func(uid string, id int64, r string) (model.Message, error) {
		return a.opts.Store.AddReaction(c.Request().Context(), uid, id, r)
	})
}

func (a *API) removeReaction(c echo.Context) error {
	return a.reactionChange(c, func(uid string, id int64, r string) (model.Message, error) {
		return a.opts.Store.RemoveReaction(c.Request().Context(), uid, id, r)
	})
}

func (a *API) listReactions(c echo.Context) error {
	id, err := pathMessageID(c)
	if err != nil {
		return err
	}
	q := &query{c: c}
	mq := store.MemberQuery{Limit: q.limit(), Cursor: q.cursor()}
	r := q.str("reaction", 100)
	if q.err != nil {
		return q.err
	}
	page, err := a.opts.Store.ListReactions(c.Request().Context(), uidOf(c), id, r, mq)
	return pageJSON(c, page, err)
}

// receipt moves one of the viewer's watermarks.
func (a *API) receipt(c echo.Context, op func(uid string, id int64) error) error {
	id, err := pathMessageID(c)
	if err != nil {
		return err
	}
	return a.changed(c, op(uidOf(c), id))
}

func (a *API) markDelivered(c echo.Context) error {
	return a.receipt(c, func(uid string, id int64) error { return a.opts.Store.MarkDelivered(c.Request().Context(), uid, id) })
}

func (a *API) markRead(c echo.Context) error {
	return a.receipt(c, func(uid string, id int64) error { return a.opts.Store.MarkRead(c.Request().Context(), uid, id) })
}

func (a *API) markUnread(c echo.Context) error {
	return a.receipt(c, func(uid string, id int64) error { return a.opts.Store.MarkUnread(c.Request().Context(), uid, id) })
}

func (a *API) messageInfo(c echo.Context) error {
	id, err := pathMessageID(c)
	if err != nil {
		return err
	}
	info, err := a.opts.Store.MessageInfo(c.Request().Context(), uidOf(c), id)
	return listJSON(c, "items", info, err)
}

type flagRequest struct {
	Reason string `json:"reason"`
	Remark string `json:"remark"`
}

func (a *API) flagMessage(c echo.Context) error {
	id, err := pathMessageID(c)
	if err != nil {
		return err
	}
	var req flagRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if err := checkText("reason", req.Reason, 100, true); err != nil {
		return err
	}
	if err := checkText("remark", req.Remark, 1000, false); err != nil {
		return err
	}
	if err := a.opts.Store.Flag(c.Request().Context(), model.Flag{MessageID: id, UID: uidOf(c), Reason: req.Reason, Remark: req.Remark}); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
