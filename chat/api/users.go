package api

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
)

type userRequest struct {
	UID      string          `json:"uid"`
	Name     *string         `json:"name"`
	Avatar   *string         `json:"avatar"`
	Role     *string         `json:"role"`
	Kind     model.UserKind  `json:"kind"`
	Metadata json.RawMessage `json:"metadata"`
}

// checkText bounds a free-text field; required ones must hold more than white space.
func checkText(field, v string, max int, required bool) error {
	if required && strings.TrimSpace(v) == "" {
		return errValidation("%s is required", field)
	}
	if utf8.RuneCountInString(v) > max {
		return errValidation("%s is longer than %d characters", field, max)
	}
	if !utf8.ValidString(v) {
		return errValidation("%s is not valid UTF-8", field)
	}
	return nil
}

func (r *userRequest) validate(create bool) error {
	if create {
		if err := checkID("uid", r.UID); err != nil {
			return err
		}
		if r.Name == nil {
			return errValidation("name is required")
		}
	}
	if r.Name != nil {
		if err := checkText("name", *r.Name, 100, true); err != nil {
			return err
		}
	}
	for field, v := range map[string]*string{"avatar": r.Avatar, "role": r.Role} {
		if v != nil {
			if err := checkText(field, *v, 1000, false); err != nil {
				return err
			}
		}
	}
	switch r.Kind {
	case "", model.UserKindUser, model.UserKindAgent:
	default:
		return errValidation("kind must be user or agent")
	}
	return checkObject("metadata", r.Metadata)
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func (a *API) createUser(c echo.Context) error {
	var req userRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if err := req.validate(true); err != nil {
		return err
	}
	req.Kind = cmp.Or(req.Kind, model.UserKindUser)
	// The Auth Key (development) creates users but never admins: only the API key gives the role.
	if req.Role != nil && *req.Role == RoleAdmin && !a.hasAPIKey(c) {
		return model.Errorf(model.ErrAPIKeyInvalid, "role admin needs the REST API key in the apikey header")
	}
	u, err := a.opts.Store.CreateUser(c.Request().Context(), model.User{
		UID: req.UID, Name: deref(req.Name), Avatar: deref(req.Avatar), Role: deref(req.Role), Kind: req.Kind, Metadata: req.Metadata,
	})
	return answerJSON(c, http.StatusCreated, u, err)
}

func (a *API) updateUser(c echo.Context) error {
	uid, err := pathID(c, "uid")
	if err != nil {
		return err
	}
	var req userRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if req.UID != "" && req.UID != uid {
		return errValidation("uid cannot be changed")
	}
	if err := req.validate(false); err != nil {
		return err
	}
	ctx := c.Request().Context()
	// The store replaces the row; merge the patch onto the current user first.
	u, err := a.opts.Store.GetUser(ctx, uid)
	if err != nil {
		return err
	}
	if req.Name != nil {
		u.Name = *req.Name
	}
	if req.Avatar != nil {
		u.Avatar = *req.Avatar
	}
	// Only the REST API key changes roles (the route takes no other credential today; this
	// keeps it so if one is added).
	if req.Role != nil && *req.Role != u.Role {
		if !a.hasAPIKey(c) {
			return model.Errorf(model.ErrPermissionDenied, "only the REST API key may change a user's role")
		}
		u.Role = *req.Role
	}
	if req.Kind != "" {
		u.Kind = req.Kind
	}
	if req.Metadata != nil {
		u.Metadata = req.Metadata
	}
	u, err = a.opts.Store.UpdateUser(ctx, u)
	return answerJSON(c, http.StatusOK, u, err)
}

func (a *API) getUser(c echo.Context) error {
	uid, err := pathID(c, "uid")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u, err := a.opts.Store.GetUser(ctx, uid)
	if err != nil {
		return err
	}
	// An agent is visible to users only while it is configured, enabled and meant for them.
	if u.Kind == model.UserKindAgent {
		if _, err := a.visibleAgent(ctx, uidOf(c), uid); err != nil {
			return model.Errorf(model.ErrUIDNotFound, "no user %q", uid)
		}
	}
	return c.JSON(http.StatusOK, u)
}

func (a *API) me(c echo.Context) error {
	u, err := a.opts.Store.GetUser(c.Request().Context(), uidOf(c))
	return answerJSON(c, http.StatusOK, u, err)
}

func (a *API) listUsers(c echo.Context) error {
	q := &query{c: c}
	uq := store.UserQuery{Limit: q.limit(), Cursor: q.cursor(), SearchKeyword: q.str("searchKeyword", 100), Kind: model.UserKind(q.str("kind", 10)),
		// Users (this route takes bearer tokens only) never see disabled or unsaved agents.
		HideDisabledAgents: true}
	if q.err != nil {
		return q.err
	}
	switch uq.Kind {
	case "", model.UserKindUser, model.UserKindAgent:
	default:
		return errValidation("kind must be user or agent")
	}
	ctx := c.Request().Context()
	page, err := a.opts.Store.ListUsers(ctx, uq)
	if err != nil {
		return err
	}
	// Agents not meant for the caller are left out (a page may then hold fewer than limit).
	kept := page.Items[:0]
	for _, u := range page.Items {
		if u.Kind == model.UserKindAgent {
			if _, err := a.visibleAgent(ctx, uidOf(c), u.UID); err != nil {
				continue
			}
		}
		kept = append(kept, u)
	}
	page.Items = kept
	return pageJSON(c, page, nil)
}

// visibleAgent is the agent's configuration when uid may see it: configured, enabled and in
// its audience; ErrUIDNotFound otherwise, so an agent one may not use does not exist for them.
func (a *API) visibleAgent(ctx context.Context, uid, agentID string) (model.AgentConfig, error) {
	cfg, err := a.opts.Store.GetAgent(ctx, agentID)
	if err != nil || !cfg.Enabled {
		return cfg, model.Errorf(model.ErrUIDNotFound, "no agent %q", agentID)
	}
	var ok bool
	if a.opts.Bridge != nil {
		ok, err = a.opts.Bridge.MayUse(ctx, uid, cfg)
	} else {
		ok, err = store.MayUseAgent(ctx, a.opts.Store, uid, cfg.Audience)
	}
	if err != nil {
		return cfg, err
	}
	if !ok {
		return cfg, model.Errorf(model.ErrUIDNotFound, "no agent %q", agentID)
	}
	return cfg, nil
}

// answerJSON answers v with status, or the error.
func answerJSON(c echo.Context, status int, v any, err error) error {
	if err != nil {
		return err
	}
	return c.JSON(status, v)
}

// changedJSON is answerJSON for a write: it wakes the hub before answering.
func (a *API) changedJSON(c echo.Context, status int, v any, err error) error {
	if err != nil {
		return err
	}
	a.notify()
	return c.JSON(status, v)
}

// changed answers 204 to a write, after waking the hub, or the error.
func (a *API) changed(c echo.Context, err error) error {
	if err != nil {
		return err
	}
	a.notify()
	return c.NoContent(http.StatusNoContent)
}

// pageJSON answers a page (an empty one as "items": [] rather than null), or the error.
func pageJSON[T any](c echo.Context, p store.Page[T], err error) error {
	if err != nil {
		return err
	}
	if p.Items == nil {
		p.Items = []T{}
	}
	return c.JSON(http.StatusOK, p)
}

// listJSON answers {key: list} (an empty list as [] rather than null), or the error.
func listJSON[T any](c echo.Context, key string, list []T, err error) error {
	if err != nil {
		return err
	}
	if list == nil {
		list = []T{}
	}
	return c.JSON(http.StatusOK, map[string]any{key: list})
}

// setDeactivated deactivates or reactivates a person (admins): deactivating ends every session
// and socket of theirs at once (4001) and refuses their sign-ins until reactivated.
func (a *API) setDeactivated(deactivated bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		uid, err := pathID(c, "uid")
		if err != nil {
			return err
		}
		if deactivated && uid == uidOf(c) {
			return model.Errorf(model.ErrValidation, "you cannot deactivate yourself")
		}
		u, err := a.opts.Store.SetDeactivated(c.Request().Context(), uid, deactivated)
		return a.changedJSON(c, http.StatusOK, u, err)
	}
}
