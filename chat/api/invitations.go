package api

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/crypto/bcrypt"

	"github.com/agentry-dev/agentry/chat/model"
)

// Invitations: on a chat without an identity provider an admin invites a person with a link
// (the code in its fragment, never sent to a server by the browser); the person chooses a
// password, which signs them in from then on. Codes and passwords are stored as hashes only.
const (
	// DefaultInvitationTTL is how long an invitation link works unless the admin says otherwise.
	DefaultInvitationTTL = 7 * 24 * time.Hour
	// MaxInvitationTTL bounds it.
	MaxInvitationTTL = 30 * 24 * time.Hour
	// MinPasswordBytes and MaxPasswordBytes bound a person's password (bcrypt reads 72 bytes).
	MinPasswordBytes = 10
	MaxPasswordBytes = 72
)

type invitationRequest struct {
	UID  string  `json:"uid"`
	Name *string `json:"name"`
	Role *string `json:"role"`
	// ExpiresIn is the link's lifetime in seconds (default a week, at most 30 days).
	ExpiresIn int64 `json:"expiresIn"`
}

type invitationResponse struct {
	Invitation model.Invitation `json:"invitation"`
	// Code goes into the link the admin sends; it is shown this once.
	Code string     `json:"code"`
	User model.User `json:"user"`
}

// createInvitation (admins) invites a person, creating them when the uid is new.
func (a *API) createInvitation(c echo.Context) error {
	var req invitationRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	ttl := time.Duration(req.ExpiresIn) * time.Second
	switch {
	case req.ExpiresIn == 0:
		ttl = DefaultInvitationTTL
	case req.ExpiresIn < 60 || ttl > MaxInvitationTTL:
		return errValidation("expiresIn must be between 60 seconds and %d (30 days)", int64(MaxInvitationTTL/time.Second))
	}
	ctx := c.Request().Context()
	u, err := a.opts.Store.GetUser(ctx, req.UID)
	if model.CodeOf(err) == model.ErrUIDNotFound {
		ur := userRequest{UID: req.UID, Name: req.Name, Role: req.Role, Kind: model.UserKindUser}
		if err := ur.validate(true); err != nil {
			return err
		}
		u, err = a.opts.Store.CreateUser(ctx, model.User{UID: req.UID, Name: *req.Name, Role: deref(req.Role), Kind: model.UserKindUser})
		if err == nil {
			a.notify()
		}
	}
	if err != nil {
		return err
	}
	code := rand.Text() + rand.Text() // 52 base32 characters, 260 random bits
	inv, err := a.opts.Store.CreateInvitation(ctx, model.Invitation{UID: u.UID, CreatedBy: uidOf(c), ExpiresAt: time.Now().Add(ttl)}, HashToken(code))
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusCreated, invitationResponse{Invitation: inv, Code: code, User: u})
}

type invitationCodeRequest struct {
	Code     string `json:"code"`
	Password string `json:"password"`
}

// invitation checks a code (the page asks before showing the password form): the person it is
// for, or ERR_INVITATION_INVALID, which counts as a failed credential.
func (a *API) invitation(c echo.Context) error {
	var req invitationCodeRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	inv, u, err := a.liveInvitation(c, req.Code)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, map[string]any{"invitation": inv, "user": u})
}

func (a *API) liveInvitation(c echo.Context, code string) (model.Invitation, model.User, error) {
	if err := a.authThrottled(c); err != nil {
		return model.Invitation{}, model.User{}, err
	}
	ctx := c.Request().Context()
	if code == "" || len(code) > 200 {
		a.authFailed(c)
		return model.Invitation{}, model.User{}, model.Errorf(model.ErrInvitationInvalid, "this is not an invitation code")
	}
	inv, err := a.opts.Store.Invitation(ctx, HashToken(code))
	if err != nil {
		if model.CodeOf(err) == model.ErrInvitationInvalid {
			a.authFailed(c)
		}
		return inv, model.User{}, err
	}
	u, err := a.opts.Store.GetUser(ctx, inv.UID)
	return inv, u, err
}

// acceptInvitation sets the person's password from the code and signs them in.
func (a *API) acceptInvitation(c echo.Context) error {
	var req invitationCodeRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if err := checkPersonPassword(req.Password); err != nil {
		return err
	}
	if _, _, err := a.liveInvitation(c, req.Code); err != nil {
		return err
	}
	ctx := c.Request().Context()
	var hash []byte
	var hashErr error
	if err := a.withPasswordCheck(ctx, func() { hash, hashErr = bcrypt.GenerateFromPassword([]byte(req.Password), a.opts.PasswordCost) }); err != nil {
		return err
	}
	if hashErr != nil {
		return fmt.Errorf("failed to hash a password: %w", hashErr)
	}
	inv, err := a.opts.Store.AcceptInvitation(ctx, HashToken(req.Code), string(hash))
	if err != nil {
		return err
	}
	return a.answerSession(c, http.StatusOK, inv.UID, time.Now().Add(a.opts.SessionTTL))
}

// checkPersonPassword is the rule for people's passwords: long enough to resist guessing at the
// throttled rate, short enough for bcrypt.
func checkPersonPassword(p string) error {
	switch {
	case len(p) < MinPasswordBytes:
		return errValidation("the password must have at least %d characters", MinPasswordBytes)
	case len(p) > MaxPasswordBytes:
		return errValidation("the password must have at most %d bytes", MaxPasswordBytes)
	case strings.TrimSpace(p) == "":
		return errValidation("the password must not be only spaces")
	}
	return nil
}

type passwordLoginRequest struct {
	UID      string `json:"uid"`
	Password string `json:"password"`
}

// passwordLogin signs a person in with the password they set from an invitation. A wrong uid
// and a wrong password answer alike and take alike long (a throwaway hash is compared).
func (a *API) passwordLogin(c echo.Context) error {
	var req passwordLoginRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if err := a.authThrottled(c); err != nil {
		return err
	}
	ctx := c.Request().Context()
	hash := ""
	if req.UID != "" && len(req.UID) <= 100 && len(req.Password) <= MaxPasswordBytes {
		h, err := a.opts.Store.UserPasswordHash(ctx, req.UID)
		if err != nil {
			return err
		}
		hash = h
	}
	against := cmp.Or(hash, a.throwawayHash())
	ok := false
	if err := a.withPasswordCheck(ctx, func() { ok = bcrypt.CompareHashAndPassword([]byte(against), []byte(req.Password)) == nil && hash != "" }); err != nil {
		return err
	}
	if !ok {
		a.authFailed(c)
		return model.Errorf(model.ErrBadCredentials, "wrong user id or password")
	}
	return a.answerSession(c, http.StatusOK, req.UID, time.Now().Add(a.opts.SessionTTL))
}

// withPasswordCheck runs f (a bcrypt hash or compare: tens of milliseconds of CPU) with at most
// passwordChecks running at once, so a flood of passwords cannot take every core; the error is
// the request's context ending while it waits.
func (a *API) withPasswordCheck(ctx context.Context, f func()) error {
	select {
	case a.passwordChecks <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-a.passwordChecks }()
	f()
	return nil
}

// answerSession mints a session for uid that lives until expires and answers it with status as
// {authToken, id, user}.
func (a *API) answerSession(c echo.Context, status int, uid string, expires time.Time) error {
	ctx := c.Request().Context()
	tok, id, err := a.mintSession(ctx, uid, expires)
	if err != nil {
		return err
	}
	u, err := a.opts.Store.GetUser(ctx, uid)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(status, tokenResponse{AuthToken: tok, ID: id, User: &u})
}

type roleRequest struct {
	Role *string `json:"role"`
}

// setRole (admins) changes a person's role: "admin", or "" for a member. Not one's own (an
// admin cannot lock the chat out of its last admin by accident), not an agent's, and not when
// the identity provider's groups decide roles for people who sign in through it.
func (a *API) setRole(c echo.Context) error {
	uid, err := pathID(c, "uid")
	if err != nil {
		return err
	}
	var req roleRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if req.Role == nil {
		return errValidation("role is required: \"admin\" or \"\" (a member)")
	}
	if err := checkText("role", *req.Role, 100, false); err != nil {
		return err
	}
	if uid == uidOf(c) {
		return errValidation("you cannot change your own role")
	}
	ctx := c.Request().Context()
	u, err := a.opts.Store.GetUser(ctx, uid)
	if err != nil {
		return err
	}
	switch {
	case u.Kind != model.UserKindUser:
		return errValidation("%q is an agent: agents have no role", uid)
	case a.opts.SSO != nil && a.opts.SSO.ManagesRoles() && strings.HasPrefix(uid, "sso-"):
		return model.Errorf(model.ErrPermissionDenied, "%s's role follows the identity provider's admin groups: change their groups there", u.Name)
	}
	u.Role = *req.Role
	u, err = a.opts.Store.UpdateUser(ctx, u)
	return a.changedJSON(c, http.StatusOK, u, err)
}
