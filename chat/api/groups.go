package api

import (
	"cmp"
	"context"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
	"golang.org/x/crypto/bcrypt"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
)

type groupRequest struct {
	GUID        string           `json:"guid"`
	Name        *string          `json:"name"`
	Type        *model.GroupType `json:"type"`
	Password    *string          `json:"password"`
	Description *string          `json:"description"`
	Icon        *string          `json:"icon"`
	Tags        *[]string        `json:"tags"`
	Members     []memberRequest  `json:"members"`
}

type memberRequest struct {
	UID   string      `json:"uid"`
	Scope model.Scope `json:"scope"`
}

func checkGroupType(t model.GroupType) error {
	switch t {
	case model.GroupPublic, model.GroupPrivate, model.GroupPassword:
		return nil
	}
	return errValidation("type must be public, private or password")
}

// checkPassword bounds a group password: bcrypt reads at most 72 bytes, and a longer one would
// silently match on its prefix.
func checkPassword(p string) error {
	if p == "" {
		return errValidation("password is required for a password group")
	}
	if len(p) > 72 {
		return errValidation("password is longer than 72 bytes")
	}
	return nil
}

func checkScope(s model.Scope) error {
	switch s {
	case model.ScopeAdmin, model.ScopeModerator, model.ScopeParticipant:
		return nil
	}
	return errValidation("scope must be admin, moderator or participant")
}

func (r *groupRequest) validateFields() error {
	if r.Name != nil {
		if err := checkText("name", *r.Name, 100, true); err != nil {
			return err
		}
	}
	if r.Type != nil {
		if err := checkGroupType(*r.Type); err != nil {
			return err
		}
	}
	if r.Description != nil {
		if err := checkText("description", *r.Description, 2000, false); err != nil {
			return err
		}
	}
	if r.Icon != nil {
		if err := checkText("icon", *r.Icon, 1000, false); err != nil {
			return err
		}
	}
	if r.Tags != nil {
		if len(*r.Tags) > 20 {
			return errValidation("a group has at most 20 tags")
		}
		for _, t := range *r.Tags {
			if err := checkText("tags", t, 50, true); err != nil {
				return err
			}
		}
	}
	if r.Password != nil && len(*r.Password) > 72 {
		return errValidation("password is longer than 72 bytes")
	}
	return nil
}

func (a *API) hashPassword(p string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(p), a.opts.PasswordCost)
	if err != nil {
		return "", fmt.Errorf("failed to hash group password: %w", err)
	}
	return string(h), nil
}

func (a *API) createGroup(c echo.Context) error {
	var req groupRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if err := checkID("guid", req.GUID); err != nil {
		return err
	}
	if req.Name == nil {
		return errValidation("name is required")
	}
	if req.Type == nil {
		return errValidation("type is required")
	}
	if err := req.validateFields(); err != nil {
		return err
	}
	members, err := checkMembers(req.Members)
	if err != nil {
		return err
	}
	g := model.Group{GUID: req.GUID, Name: *req.Name, Type: *req.Type, Description: deref(req.Description), Icon: deref(req.Icon)}
	if req.Tags != nil {
		g.Tags = *req.Tags
	}
	if g.Type == model.GroupPassword {
		if err := checkPassword(deref(req.Password)); err != nil {
			return err
		}
		if g.PasswordHash, err = a.hashPassword(*req.Password); err != nil {
			return err
		}
	} else if deref(req.Password) != "" {
		return errValidation("only password groups have a password")
	}
	g, err = a.opts.Store.CreateGroup(c.Request().Context(), uidOf(c), g, members)
	return a.changedJSON(c, http.StatusCreated, g, err)
}

func checkMembers(in []memberRequest) ([]model.Member, error) {
	if len(in) > 100 {
		return nil, errValidation("at most 100 members at a time")
	}
	out := make([]model.Member, 0, len(in))
	for _, m := range in {
		if err := checkID("uid", m.UID); err != nil {
			return nil, err
		}
		m.Scope = cmp.Or(m.Scope, model.ScopeParticipant)
		if err := checkScope(m.Scope); err != nil {
			return nil, err
		}
		out = append(out, model.Member{UID: m.UID, Scope: m.Scope})
	}
	return out, nil
}

func (a *API) getGroup(c echo.Context) error {
	guid, err := pathID(c, "guid")
	if err != nil {
		return err
	}
	g, err := a.opts.Store.GetGroup(c.Request().Context(), uidOf(c), guid)
	return answerJSON(c, http.StatusOK, g, err)
}

func (a *API) updateGroup(c echo.Context) error {
	guid, err := pathID(c, "guid")
	if err != nil {
		return err
	}
	var req groupRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if req.GUID != "" && req.GUID != guid {
		return errValidation("guid cannot be changed")
	}
	if len(req.Members) > 0 {
		return errValidation("members are added with POST /groups/{guid}/members")
	}
	if err := req.validateFields(); err != nil {
		return err
	}
	ctx := c.Request().Context()
	p := store.GroupPatch{Name: req.Name, Description: req.Description, Icon: req.Icon, Tags: req.Tags, Type: req.Type}
	if p.PasswordHash, err = a.patchPassword(ctx, uidOf(c), guid, req); err != nil {
		return err
	}
	g, err := a.opts.Store.UpdateGroup(ctx, uidOf(c), guid, p)
	return a.changedJSON(c, http.StatusOK, g, err)
}

// patchPassword works out the password hash an update stores: a new hash when a password is
// given, none when the group stops being a password group.
func (a *API) patchPassword(ctx context.Context, actor, guid string, req groupRequest) (*string, error) {
	pw := deref(req.Password)
	switch {
	case req.Type != nil && *req.Type != model.GroupPassword:
		if pw != "" {
			return nil, errValidation("only password groups have a password")
		}
		empty := ""
		return &empty, nil
	case req.Type != nil && pw == "":
		// Becoming a password group needs a password; staying one keeps the current hash.
		g, err := a.opts.Store.GetGroup(ctx, actor, guid)
		if err != nil {
			return nil, err
		}
		if g.Type != model.GroupPassword {
			return nil, checkPassword(pw)
		}
		return nil, nil
	case pw != "":
		if req.Type == nil {
			g, err := a.opts.Store.GetGroup(ctx, actor, guid)
			if err != nil {
				return nil, err
			}
			if g.Type != model.GroupPassword {
				return nil, errValidation("only password groups have a password")
			}
		}
		h, err := a.hashPassword(pw)
		return &h, err
	}
	return nil, nil
}

func (a *API) deleteGroup(c echo.Context) error {
	guid, err := pathID(c, "guid")
	if err != nil {
		return err
	}
	return a.changed(c, a.opts.Store.DeleteGroup(c.Request().Context(), uidOf(c), guid))
}

func (a *API) listGroups(c echo.Context) error {
	q := &query{c: c}
	gq := store.GroupQuery{
		Limit: q.limit(), Cursor: q.cursor(), SearchKeyword: q.str("searchKeyword", 100),
		JoinedOnly: q.boolean("joinedOnly"), Tags: q.list("tags"), WithTags: q.boolean("withTags"),
	}
	if q.err != nil {
		return q.err
	}
	page, err := a.opts.Store.ListGroups(c.Request().Context(), uidOf(c), gq)
	return pageJSON(c, page, err)
}

type joinRequest struct {
	Password string `json:"password"`
}

func (a *API) joinGroup(c echo.Context) error {
	guid, err := pathID(c, "guid")
	if err != nil {
		return err
	}
	var req joinRequest
	if err := bindOptional(c, &req); err != nil {
		return err
	}
	if len(req.Password) > 72 {
		return model.Errorf(model.ErrWrongGroupPassword, "wrong group password")
	}
	verified, err := a.checkGroupPassword(c, guid, req.Password)
	if err != nil {
		return err
	}
	// The store compares the hash verified here with the one it holds, inside the write; a
	// password changed meanwhile no longer matches.
	check := func(hash string) bool { return verified != "" && hash == verified }
	g, err := a.opts.Store.JoinGroup(c.Request().Context(), uidOf(c), guid, check)
	return a.changedJSON(c, http.StatusOK, g, err)
}

// checkGroupPassword checks password against a password group's hash outside any transaction
// and database connection (bcrypt takes tens of milliseconds; inside a write it would hold
// every other writer up), with at most passwordChecks running at once. It returns the hash it
// verified ("" for a group without a password, or when no password was given). A user who got
// this group's password wrong too often gets 429 before any check.
func (a *API) checkGroupPassword(c echo.Context, guid, password string) (string, error) {
	ctx := c.Request().Context()
	hash, err := a.opts.Store.PasswordHash(ctx, guid)
	if err != nil || hash == "" || password == "" {
		return "", err
	}
	key := passwordKey(uidOf(c), guid)
	if err := a.throttled(c, key, passwordFailures, "wrong passwords for this group"); err != nil {
		return "", err
	}
	ok := false
	if err := a.withPasswordCheck(ctx, func() { ok = bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil }); err != nil {
		return "", err
	}
	if !ok {
		a.limits.Spend(key, passwordFailures)
		return "", model.Errorf(model.ErrWrongGroupPassword, "wrong password for group %q", guid)
	}
	return hash, nil
}

func (a *API) leaveGroup(c echo.Context) error {
	guid, err := pathID(c, "guid")
	if err != nil {
		return err
	}
	return a.changed(c, a.opts.Store.LeaveGroup(c.Request().Context(), uidOf(c), guid))
}

type ownerRequest struct {
	UID string `json:"uid"`
}

func (a *API) transferOwnership(c echo.Context) error {
	guid, err := pathID(c, "guid")
	if err != nil {
		return err
	}
	var req ownerRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if err := checkID("uid", req.UID); err != nil {
		return err
	}
	return a.changed(c, a.opts.Store.TransferOwnership(c.Request().Context(), uidOf(c), guid, req.UID))
}
