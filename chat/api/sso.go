package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/oidc"
)

// Sign-in through an OpenID provider (Options.SSO):
//
//	GET  /auth/sso           → the provider's login (state, nonce and PKCE verifier in a cookie)
//	GET  /auth/sso/callback  → the ID token checked, the user created or updated, a session
//	                           minted and handed to the page in a short-lived cookie; back to /
//	POST /auth/session       → the page trades that cookie for its auth token (JSON), once
//
// The token never travels in a URL: the callback's redirect carries at most an error code.
const (
	ssoLoginCookie   = "agentry_sso_login"
	ssoSessionCookie = "agentry_sso_session"
	// DefaultSessionTTL is how long a session from a provider sign-in lives.
	DefaultSessionTTL = 12 * time.Hour
	// sessionHandoff bounds how long the minted token waits in its cookie for the page.
	sessionHandoff = 2 * time.Minute
)

// errorCode keeps only a provider error code's safe characters (it is echoed into a URL).
var errorCode = regexp.MustCompile(`^[a-z_]{1,40}$`)

func (a *API) ssoCookie(c echo.Context, name, value, path string, maxAge time.Duration) {
	secure := c.Scheme() == "https" || (a.opts.SSO != nil && a.opts.SSO.Secure())
	ck := &http.Cookie{Name: name, Value: value, Path: path, HttpOnly: true, Secure: secure,
		SameSite: http.SameSiteLaxMode, MaxAge: int(maxAge / time.Second)}
	if maxAge <= 0 {
		ck.MaxAge = -1
	}
	c.SetCookie(ck)
}

// ssoStart sends the browser to the provider.
func (a *API) ssoStart(c echo.Context) error {
	if a.opts.SSO == nil {
		return model.Errorf(model.ErrNotFound, "sign-in with an identity provider is not configured on this server")
	}
	if err := a.authThrottled(c); err != nil {
		return err
	}
	authURL, login := a.opts.SSO.Begin()
	b, err := json.Marshal(login)
	if err != nil {
		return err
	}
	a.ssoCookie(c, ssoLoginCookie, base64.RawURLEncoding.EncodeToString(b), Prefix+"/auth/sso", oidc.LoginTTL)
	return c.Redirect(http.StatusFound, authURL)
}

// ssoCallback finishes the sign-in the provider sends back.
func (a *API) ssoCallback(c echo.Context) error {
	if a.opts.SSO == nil {
		return model.Errorf(model.ErrNotFound, "sign-in with an identity provider is not configured on this server")
	}
	if err := a.authThrottled(c); err != nil {
		return a.signInRefused(c, "throttled")
	}
	var login oidc.Login
	ck, err := c.Cookie(ssoLoginCookie)
	a.ssoCookie(c, ssoLoginCookie, "", Prefix+"/auth/sso", 0) // one callback per start
	if err == nil {
		if b, derr := base64.RawURLEncoding.DecodeString(ck.Value); derr == nil {
			_ = json.Unmarshal(b, &login)
		}
	}
	if e := c.QueryParam("error"); e != "" {
		if !errorCode.MatchString(e) {
			e = "invalid"
		}
		return a.signInRefused(c, e)
	}
	ctx := c.Request().Context()
	id, err := a.opts.SSO.Finish(ctx, login, c.QueryParam("state"), c.QueryParam("code"))
	if err != nil {
		a.authFailed(c)
		a.opts.Logger.Info("sign-in through the identity provider refused", "reason", err.Error())
		var r *oidc.Refusal
		if errors.As(err, &r) {
			return a.signInRefused(c, r.Code)
		}
		return a.signInRefused(c, "invalid")
	}
	u, err := a.upsertSSOUser(ctx, id)
	if err != nil {
		return a.ssoUserRefused(c, err)
	}
	tok, _, err := a.mintSession(ctx, u.UID, time.Now().Add(a.opts.SessionTTL))
	if err != nil {
		return a.ssoUserRefused(c, err)
	}
	a.ssoCookie(c, ssoSessionCookie, tok, Prefix+"/auth/session", sessionHandoff)
	return c.Redirect(http.StatusFound, "/")
}

// ssoUserRefused turns a user the chat will not sign in (deactivated, or an agent's uid) into
// the sign-in page's sentence; any other error is the service's.
func (a *API) ssoUserRefused(c echo.Context, err error) error {
	var me *model.Error
	if errors.As(err, &me) {
		switch me.Code {
		case model.ErrUserDeactivated:
			a.authFailed(c)
			return a.signInRefused(c, "deactivated")
		case model.ErrPermissionDenied:
			return a.signInRefused(c, "invalid")
		}
	}
	return err
}

// signInRefused sends the browser back to the sign-in page with a code the page says a
// sentence for.
func (a *API) signInRefused(c echo.Context, code string) error {
	return c.Redirect(http.StatusFound, "/?signin_error="+url.QueryEscape(code))
}

// ssoSession hands the page the token the callback minted, once.
func (a *API) ssoSession(c echo.Context) error {
	ck, err := c.Cookie(ssoSessionCookie)
	if err != nil || ck.Value == "" {
		return model.Errorf(model.ErrUnauthenticated, "no sign-in is waiting for this browser")
	}
	a.ssoCookie(c, ssoSessionCookie, "", Prefix+"/auth/session", 0)
	if err := a.authThrottled(c); err != nil {
		return err
	}
	ti, err := Authenticator(a.opts.Store)(c.Request().Context(), ck.Value)
	if err != nil {
		a.authFailed(c)
		return err
	}
	u, err := a.opts.Store.GetUser(c.Request().Context(), ti.UID)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, tokenResponse{AuthToken: ck.Value, ID: ti.ID, User: &u})
}

// upsertSSOUser creates the provider's user at the first sign-in and updates the name, avatar,
// e-mail and (when admin groups are configured) the role at every one after.
func (a *API) upsertSSOUser(ctx context.Context, id oidc.Identity) (model.User, error) {
	role := ""
	if id.Admin {
		role = RoleAdmin
	}
	meta, _ := json.Marshal(map[string]string{"email": id.Email})
	u, err := a.opts.Store.GetUser(ctx, id.UID)
	if err != nil {
		var me *model.Error
		if !errors.As(err, &me) || me.Code != model.ErrUIDNotFound {
			return model.User{}, err
		}
		return a.opts.Store.CreateUser(ctx, model.User{UID: id.UID, Name: id.Name, Avatar: id.Picture, Role: role,
			Kind: model.UserKindUser, Metadata: meta, ProviderGroups: id.Groups, ProviderIssuer: id.Issuer, ProviderSubject: id.Subject})
	}
	if u.Kind != model.UserKindUser {
		return model.User{}, model.Errorf(model.ErrPermissionDenied, "this account cannot sign in")
	}
	if u.Deactivated {
		return model.User{}, model.Errorf(model.ErrUserDeactivated, "user %q is deactivated", u.UID)
	}
	u.Name, u.Avatar, u.Metadata, u.ProviderGroups = id.Name, id.Picture, meta, id.Groups
	u.ProviderIssuer, u.ProviderSubject = id.Issuer, id.Subject
	if a.opts.SSO.ManagesRoles() {
		u.Role = role
	}
	return a.opts.Store.UpdateUser(ctx, u)
}
