package api

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/platform/httpserve"
)

const (
	headerAPIKey  = "apikey"
	headerAuthKey = "authkey"
	ctxUID        = "chat.uid"
	ctxTokenID    = "chat.tokenId"
	// ctxTokenExpires is when the caller's token expires (zero: never).
	ctxTokenExpires = "chat.tokenExpires"
)

// HashToken is what the store keeps of a token: a SHA-256, so a leaked database holds no
// usable credential.
func HashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// Authenticator resolves a bearer token to its user, id and expiry; the hub uses it for the
// WebSocket's first frame so both paths accept exactly the same tokens (a revoked token id
// closes exactly the sockets it opened, and a socket closes when its token expires).
func Authenticator(tokens store.Tokens) func(ctx context.Context, token string) (store.TokenInfo, error) {
	return func(ctx context.Context, token string) (store.TokenInfo, error) {
		if token == "" || len(token) > 512 {
			return store.TokenInfo{}, model.Errorf(model.ErrUnauthenticated, "missing or invalid auth token")
		}
		return tokens.TokenUser(ctx, HashToken(token))
	}
}

// DefaultLoginTokenTTL is how long a development login's token lives (Options.LoginTokenTTL).
const DefaultLoginTokenTTL = 720 * time.Hour

// newToken is 32 random bytes, base64url: unguessable, and safe in a header.
func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("failed to read random bytes for a token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func uidOf(c echo.Context) string {
	uid, _ := c.Get(ctxUID).(string)
	return uid
}

// requireUser authenticates a client by its bearer token.
func (a *API) requireUser(next echo.HandlerFunc) echo.HandlerFunc {
	auth := Authenticator(a.opts.Store)
	next = a.rateLimit(next)
	return func(c echo.Context) error {
		tok := httpserve.BearerToken(c.Request())
		if tok == "" {
			return model.Errorf(model.ErrUnauthenticated, "send Authorization: Bearer <auth token>")
		}
		if err := a.authThrottled(c); err != nil {
			return err
		}
		ti, err := auth(c.Request().Context(), tok)
		if err != nil {
			a.failedCredential(c, err)
			return err
		}
		a.touch(c.Request().Context(), ti)
		c.Set(ctxUID, ti.UID)
		c.Set(ctxTokenID, ti.ID)
		c.Set(ctxTokenExpires, ti.ExpiresAt)
		return next(c)
	}
}

// requireAPIKey guards server routes with the REST API key.
func (a *API) requireAPIKey(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if ok, err := a.apiKey(c); !ok {
			if err == nil {
				err = model.Errorf(model.ErrAPIKeyInvalid, "this route needs the REST API key in the apikey header")
			}
			return err
		}
		return next(c)
	}
}

// apiKey checks the apikey header: ok when it is the REST API key; a wrong one counts against
// the client's address, and an address with too many failures gets 429 before any check.
func (a *API) apiKey(c echo.Context) (ok bool, err error) {
	got := c.Request().Header.Get(headerAPIKey)
	if got == "" {
		return false, nil
	}
	if err := a.authThrottled(c); err != nil {
		return false, err
	}
	if httpserve.SecretEqual(got, a.opts.APIKey) {
		return true, nil
	}
	a.authFailed(c)
	return false, nil
}

// failedCredential counts a refused token against the client's address (not a store outage).
func (a *API) failedCredential(c echo.Context, err error) {
	if model.CodeOf(err) == model.ErrUnauthenticated {
		a.authFailed(c)
	}
}

// RoleAdmin is the user role that may configure agents and manage people with its bearer token,
// as the REST API key does. The API key (POST/PUT /users), an admin (PUT /users/{uid}/role) or
// the identity provider's admin groups give it.
const RoleAdmin = "admin"

// requireAdmin guards agent configuration: the REST API key, or the bearer token of a user whose
// role is admin (any other user gets ERR_PERMISSION_DENIED).
func (a *API) requireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	auth := Authenticator(a.opts.Store)
	limited := a.rateLimit(next)
	return func(c echo.Context) error {
		if ok, err := a.apiKey(c); ok || err != nil {
			if err != nil {
				return err
			}
			return next(c)
		}
		tok := httpserve.BearerToken(c.Request())
		if tok == "" {
			return model.Errorf(model.ErrAPIKeyInvalid, "this route needs the REST API key in the apikey header, or an admin's auth token")
		}
		if err := a.authThrottled(c); err != nil {
			return err
		}
		ctx := c.Request().Context()
		ti, err := auth(ctx, tok)
		if err != nil {
			a.failedCredential(c, err)
			return err
		}
		uid := ti.UID
		u, err := a.opts.Store.GetUser(ctx, uid)
		if err != nil {
			return err
		}
		if u.Role != RoleAdmin {
			return model.Errorf(model.ErrPermissionDenied, "only admins (role admin) or the REST API key may configure agents")
		}
		a.touch(ctx, ti)
		c.Set(ctxUID, uid)
		return limited(c)
	}
}

// hasAPIKey says whether the request carries the REST API key.
func (a *API) hasAPIKey(c echo.Context) bool {
	return httpserve.SecretEqual(c.Request().Header.Get(headerAPIKey), a.opts.APIKey)
}

// requireAPIKeyOrAuthKey lets development clients create users with the Auth Key (the SDK's
// createUser(user, authKey)); production needs the API key.
func (a *API) requireAPIKeyOrAuthKey(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if ok, err := a.apiKey(c); ok || err != nil {
			if err != nil {
				return err
			}
			return next(c)
		}
		if key := c.Request().Header.Get(headerAuthKey); key != "" {
			if err := a.authThrottled(c); err != nil {
				return err
			}
			if httpserve.SecretEqual(key, a.opts.AuthKey) {
				return next(c)
			}
			a.authFailed(c)
		}
		return model.Errorf(model.ErrAPIKeyInvalid, "this route needs the REST API key in the apikey header")
	}
}

// requireAny accepts either a client token or the API key.
func (a *API) requireAny(next echo.HandlerFunc) echo.HandlerFunc {
	user := a.requireUser(next)
	return func(c echo.Context) error {
		if ok, err := a.apiKey(c); ok || err != nil {
			if err != nil {
				return err
			}
			return next(c)
		}
		return user(c)
	}
}

type loginRequest struct {
	AppID   string `json:"appId"`
	UID     string `json:"uid"`
	AuthKey string `json:"authKey"`
}

type tokenResponse struct {
	AuthToken string      `json:"authToken"`
	ID        string      `json:"id"`
	User      *model.User `json:"user,omitempty"`
}

// login is the development login as any uid with the Auth Key.
func (a *API) login(c echo.Context) error {
	if a.opts.AuthKey == "" {
		return model.Errorf(model.ErrAuthKeyDisabled, "login with the Auth Key is disabled on this server; use an auth token")
	}
	var req loginRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if err := a.authThrottled(c); err != nil {
		return err
	}
	// Compare both before answering, so timing says nothing about which one was wrong.
	keyOK := httpserve.SecretEqual(req.AuthKey, a.opts.AuthKey)
	appOK := a.opts.AppID == "" || httpserve.SecretEqual(req.AppID, a.opts.AppID)
	if !keyOK || !appOK {
		a.authFailed(c)
		return model.Errorf(model.ErrUnauthenticated, "wrong App ID or Auth Key")
	}
	if err := checkID("uid", req.UID); err != nil {
		return err
	}
	ctx := c.Request().Context()
	u, err := a.opts.Store.GetUser(ctx, req.UID)
	if err != nil {
		return err
	}
	if u.Role == RoleAdmin && !a.opts.AuthKeyAdmins {
		return model.Errorf(model.ErrPermissionDenied, "admins cannot sign in with the Auth Key; use an auth token minted with the REST API key")
	}
	var expires time.Time
	if a.opts.LoginTokenTTL > 0 {
		expires = time.Now().Add(a.opts.LoginTokenTTL)
	}
	tok, id, err := a.mint(ctx, req.UID, expires)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, tokenResponse{AuthToken: tok, ID: id, User: &u})
}

// logout revokes exactly the calling token (the hub closes the sockets it opened); the user's
// other tokens live on.
func (a *API) logout(c echo.Context) error {
	tid, _ := c.Get(ctxTokenID).(string)
	if tid == "" {
		return model.Errorf(model.ErrUnauthenticated, "send Authorization: Bearer <auth token>")
	}
	// changed wakes the hub, which closes the revoked token's sockets now, not at its next poll.
	return a.changed(c, a.opts.Store.RevokeToken(c.Request().Context(), uidOf(c), tid))
}

func (a *API) mint(ctx context.Context, uid string, expires time.Time) (token, id string, err error) {
	return a.mintIdle(ctx, uid, expires, 0)
}

// mintSession mints a session: a token that also ends after the idle timeout.
func (a *API) mintSession(ctx context.Context, uid string, expires time.Time) (token, id string, err error) {
	return a.mintIdle(ctx, uid, expires, a.opts.SessionIdleTimeout)
}

func (a *API) mintIdle(ctx context.Context, uid string, expires time.Time, idle time.Duration) (token, id string, err error) {
	token, err = newToken()
	if err != nil {
		return "", "", err
	}
	if id, err = a.opts.Store.CreateSession(ctx, uid, HashToken(token), expires, idle); err != nil {
		return "", "", err
	}
	return token, id, nil
}

// touch records a session's use when the stored one is older than store.TouchEvery. A failed write
// is logged, not the request's failure: the worst case is a session that ends a little early.
func (a *API) touch(ctx context.Context, ti store.TokenInfo) {
	if ti.Idle <= 0 || time.Since(ti.UsedAt) < store.TouchEvery(ti.Idle) {
		return
	}
	if err := a.opts.Store.TouchToken(ctx, ti.ID); err != nil {
		a.opts.Logger.Error(err, "failed to record a session's use", "tokenId", ti.ID)
	}
}

// startSession trades the caller's token for a session of the same user that lives the
// session TTL (never longer than the token): signing out of the session (POST /logout) leaves
// the token it came from, so a token an admin handed out is not used up by a sign-out.
func (a *API) startSession(c echo.Context) error {
	expires := time.Now().Add(a.opts.SessionTTL)
	if src, _ := c.Get(ctxTokenExpires).(time.Time); !src.IsZero() && src.Before(expires) {
		expires = src
	}
	return a.answerSession(c, http.StatusCreated, uidOf(c), expires)
}

type createTokenRequest struct {
	// ExpiresIn is the token's lifetime in seconds; 0 or absent means it lives until revoked.
	ExpiresIn int64 `json:"expiresIn"`
}

func (a *API) createToken(c echo.Context) error {
	uid, err := pathID(c, "uid")
	if err != nil {
		return err
	}
	var req createTokenRequest
	if err := bindOptional(c, &req); err != nil {
		return err
	}
	if req.ExpiresIn < 0 {
		return errValidation("expiresIn must be a positive number of seconds")
	}
	var expires time.Time
	if req.ExpiresIn > 0 {
		expires = time.Now().Add(time.Duration(req.ExpiresIn) * time.Second)
	}
	tok, id, err := a.mint(c.Request().Context(), uid, expires)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, tokenResponse{AuthToken: tok, ID: id})
}

func (a *API) revokeToken(c echo.Context) error {
	uid, err := pathID(c, "uid")
	if err != nil {
		return err
	}
	id := c.Param("id")
	if id == "" || len(id) > 100 {
		return errValidation("invalid token id")
	}
	// changed wakes the hub, which closes the revoked token's sockets now, not at its next poll.
	return a.changed(c, a.opts.Store.RevokeToken(c.Request().Context(), uid, id))
}

func (a *API) revokeTokens(c echo.Context) error {
	uid, err := pathID(c, "uid")
	if err != nil {
		return err
	}
	// changed wakes the hub, which closes the revoked token's sockets now, not at its next poll.
	return a.changed(c, a.opts.Store.RevokeUserTokens(c.Request().Context(), uid))
}
