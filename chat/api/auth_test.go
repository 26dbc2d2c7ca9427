package api

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/labstack/echo/v4"
)

// publicRoutes need no credentials: the WebSocket authenticates in its first frame.
var publicRoutes = map[string]bool{
	"GET " + Prefix + "/healthz": true,
	"POST " + Prefix + "/login":  true,
	"GET " + Prefix + "/ws":      true,
	// Sign-in through the identity provider: the browser arrives with no credentials (the
	// provider's callback proves itself by state, code and ID token; the hand-off by its cookie).
	"GET " + Prefix + "/auth/sso":          true,
	"GET " + Prefix + "/auth/sso/callback": true,
	"POST " + Prefix + "/auth/session":     true,
	// Password sign-in and invitations are credentials themselves (a password, a code),
	// throttled per address like every other (TestInvitations).
	"POST " + Prefix + "/auth/password":          true,
	"POST " + Prefix + "/auth/invitation":        true,
	"POST " + Prefix + "/auth/invitation/accept": true,
	// The chat as an issuer: its discovery document and public keys, which agents fetch
	// without credentials and which hold nothing secret.
	"GET " + Prefix + "/.well-known/openid-configuration": true,
	"GET " + Prefix + "/.well-known/jwks.json":            true,
	// CORS pre-flights carry no credentials by design; they answer only CORS headers.
	"OPTIONS " + Prefix + "/*": true,
}

// serverRoutes take the REST API key, never a user's token.
var serverRoutes = map[string]bool{
	"POST " + Prefix + "/users":                        true,
	"PUT " + Prefix + "/users/:uid":                    true,
	"POST " + Prefix + "/users/:uid/auth_tokens":       true,
	"DELETE " + Prefix + "/users/:uid/auth_tokens":     true,
	"DELETE " + Prefix + "/users/:uid/auth_tokens/:id": true,
	"GET " + Prefix + "/moderation/rules":              true,
	"PUT " + Prefix + "/moderation/rules":              true,
	"GET " + Prefix + "/moderation/flags":              true,
	"PUT " + Prefix + "/moderation/messages/:id":       true,
}

func concrete(path string) string {
	r := strings.NewReplacer(":uid", "u1", ":guid", "g1", ":id", "1", ":reaction", "x")
	return strings.TrimPrefix(r.Replace(path), Prefix)
}

// TestEveryRouteNeedsCredentials walks the registered routes: without credentials, with an
// unknown token, and (server routes) with a user's token, every one answers 401 with a code.
func TestEveryRouteNeedsCredentials(t *testing.T) {
	e := newStubEnv(t, Options{})
	tok := e.user("u1")
	probe := echo.New()
	New(Options{}).Register(probe)
	n := 0
	for _, r := range probe.Routes() {
		key := r.Method + " " + r.Path
		if r.Method == echo.RouteNotFound || publicRoutes[key] {
			continue
		}
		n++
		path := concrete(r.Path)
		// Each route's wrong credentials come from their own address: past 20 failures an
		// address gets 429 instead (TestFailedCredentialsAreThrottledPerAddress).
		from := []string{"X-Forwarded-For", fmt.Sprintf("198.51.%d.%d", n/250, n%250)}
		res := e.do(r.Method, path, "", nil, from...)
		if res.status != http.StatusUnauthorized || (res.code() != "ERR_AUTH_TOKEN_INVALID" && res.code() != "ERR_API_KEY_INVALID") {
			t.Errorf("%s without credentials: %d %s", key, res.status, res.body)
		}
		if res = e.do(r.Method, path, "not-a-token", nil, from...); res.status != http.StatusUnauthorized {
			t.Errorf("%s with an unknown token: %d %s", key, res.status, res.body)
		}
		if serverRoutes[key] {
			if res = e.do(r.Method, path, tok, nil, from...); res.status != http.StatusUnauthorized || res.code() != "ERR_API_KEY_INVALID" {
				t.Errorf("%s with a user token: %d %s", key, res.status, res.body)
			}
			if res = e.do(r.Method, path, "", nil, append(from, "apikey", "wrong")...); res.status != http.StatusUnauthorized {
				t.Errorf("%s with a wrong API key: %d %s", key, res.status, res.body)
			}
		}
	}
	if n < 40 {
		t.Fatalf("only %d routes probed", n)
	}
}

func TestLogin(t *testing.T) {
	t.Run("disabled", func(t *testing.T) {
		e := newStubEnv(t, Options{})
		e.expect(e.do(http.MethodPost, "/login", "", map[string]string{"uid": "u1", "authKey": ""}), http.StatusForbidden, "ERR_AUTH_KEY_DISABLED")
		e.expect(e.do(http.MethodPost, "/users", "", map[string]string{"uid": "u1", "name": "U"}, "authkey", ""), http.StatusUnauthorized, "ERR_API_KEY_INVALID")
	})
	e := newStubEnv(t, Options{AuthKey: "dev-auth-key-xyz", AppID: "app1"})
	if !strings.Contains(e.logs.String(), "the chat Auth Key is enabled") {
		t.Fatalf("no start-up warning for the Auth Key: %s", e.logs)
	}
	// Development clients create users with the Auth Key (the SDK's createUser(user, authKey)).
	e.expect(e.do(http.MethodPost, "/users", "", map[string]string{"uid": "u1", "name": "U"}, "authkey", "dev-auth-key-xyz"), http.StatusCreated, "")
	for name, c := range map[string]struct {
		body   map[string]string
		status int
		code   string
	}{
		"wrong key":   {map[string]string{"appId": "app1", "uid": "u1", "authKey": "nope"}, 401, "ERR_AUTH_TOKEN_INVALID"},
		"wrong app":   {map[string]string{"appId": "app2", "uid": "u1", "authKey": "dev-auth-key-xyz"}, 401, "ERR_AUTH_TOKEN_INVALID"},
		"bad uid":     {map[string]string{"appId": "app1", "uid": "a b", "authKey": "dev-auth-key-xyz"}, 400, "ERR_VALIDATION"},
		"unknown uid": {map[string]string{"appId": "app1", "uid": "nobody", "authKey": "dev-auth-key-xyz"}, 404, "ERR_UID_NOT_FOUND"},
	} {
		t.Run(name, func(t *testing.T) { e.expect(e.do(http.MethodPost, "/login", "", c.body), c.status, c.code) })
	}
	r := e.do(http.MethodPost, "/login", "", map[string]string{"appId": "app1", "uid": "u1", "authKey": "dev-auth-key-xyz"})
	e.expect(r, http.StatusOK, "")
	var tok tokenResponse
	r.decode(t, &tok)
	if tok.User == nil || tok.User.UID != "u1" {
		t.Fatalf("login answered %s", r.body)
	}
	me := e.do(http.MethodGet, "/me", tok.AuthToken, nil)
	e.expect(me, http.StatusOK, "")
	if !strings.Contains(string(me.body), `"uid":"u1"`) {
		t.Fatalf("/me answered %s", me.body)
	}
	if logs := e.logs.String(); strings.Contains(logs, "dev-auth-key-xyz") || strings.Contains(logs, tok.AuthToken) {
		t.Fatalf("a secret reached the log: %s", logs)
	}
}

// TestTokens checks tokens are random, stored only as SHA-256 and revocable.
func TestTokens(t *testing.T) {
	e := newStubEnv(t, Options{})
	st := e.api.opts.Store.(*stubStore)
	tok := e.user("u1")
	tok2 := e.user2("u1")
	if len(tok) != 43 || tok == tok2 {
		t.Fatalf("tokens %q and %q: want two different 32-byte base64url tokens", tok, tok2)
	}
	sum := sha256.Sum256([]byte(tok))
	st.mu.Lock()
	_, hashed := st.tokens[hex.EncodeToString(sum[:])]
	st.mu.Unlock()
	if !hashed {
		t.Fatal("the store did not get the token's SHA-256")
	}
	e.expect(e.do(http.MethodGet, "/me", tok, nil), http.StatusOK, "")
	e.expect(e.do(http.MethodGet, "/me", "Bearer", nil), http.StatusUnauthorized, "ERR_AUTH_TOKEN_INVALID")
	e.expect(e.do(http.MethodPost, "/users/u1/auth_tokens", keyAuth, map[string]any{"expiresIn": -1}), http.StatusBadRequest, "ERR_VALIDATION")
	e.expect(e.do(http.MethodPost, "/users/nobody/auth_tokens", keyAuth, nil), http.StatusNotFound, "ERR_UID_NOT_FOUND")
	e.expect(e.do(http.MethodDelete, "/users/u1/auth_tokens", keyAuth, nil), http.StatusNoContent, "")
	e.expect(e.do(http.MethodGet, "/me", tok, nil), http.StatusUnauthorized, "ERR_AUTH_TOKEN_INVALID")
	e.expect(e.do(http.MethodGet, "/me", tok2, nil), http.StatusUnauthorized, "ERR_AUTH_TOKEN_INVALID")
	// Logout revokes exactly the calling token.
	tok3, tok4 := e.user2("u1"), e.user2("u1")
	e.expect(e.do(http.MethodPost, "/logout", tok3, nil), http.StatusNoContent, "")
	e.expect(e.do(http.MethodPost, "/logout", tok3, nil), http.StatusUnauthorized, "ERR_AUTH_TOKEN_INVALID")
	e.expect(e.do(http.MethodGet, "/me", tok4, nil), http.StatusOK, "")
	if strings.Contains(e.logs.String(), tok) || strings.Contains(e.logs.String(), testAPIKey) {
		t.Fatal("a secret reached the log")
	}
}

// TestNoAPIKeyConfigured: an unset key refuses server routes even to an empty apikey header.
func TestNoAPIKeyConfigured(t *testing.T) {
	e := newStubEnv(t, Options{})
	a := New(Options{Store: e.api.opts.Store, Logger: logr.Discard()})
	e.srv.Config.Handler = a.Handler()
	e.expect(e.do(http.MethodPost, "/users", "", map[string]string{"uid": "u2", "name": "U"}, "apikey", ""), http.StatusUnauthorized, "ERR_API_KEY_INVALID")
	e.expect(e.do(http.MethodGet, "/healthz", "", nil), http.StatusOK, "")
	e.expect(e.do(http.MethodGet, "/nope", "", nil), http.StatusNotFound, "ERR_NOT_FOUND")
	e.expect(e.do(http.MethodGet, "/ws", "", nil), http.StatusServiceUnavailable, "ERR_SERVICE_UNAVAILABLE")
}

// TestLogout: POST /logout revokes exactly the calling token (204, the hub is woken); the same
// token again is 401, and the user's other tokens still work. Both real stores.
func TestLogout(t *testing.T) {
	for kind, open := range stores(t) {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, open(t), Options{AuthKey: "dev-auth-key-xyz", LoginTokenTTL: DefaultLoginTokenTTL})
			minted := e.user("u1")
			t1, t2 := e.login("u1", "dev-auth-key-xyz"), e.login("u1", "dev-auth-key-xyz")
			before := e.hub.notified.Load()
			e.expect(e.do(http.MethodPost, "/logout", t1, nil), http.StatusNoContent, "")
			if e.hub.notified.Load() == before {
				t.Error("logout did not wake the hub")
			}
			e.expect(e.do(http.MethodPost, "/logout", t1, nil), http.StatusUnauthorized, "ERR_AUTH_TOKEN_INVALID")
			e.expect(e.do(http.MethodGet, "/me", t1, nil), http.StatusUnauthorized, "ERR_AUTH_TOKEN_INVALID")
			e.expect(e.do(http.MethodGet, "/me", t2, nil), http.StatusOK, "")
			e.expect(e.do(http.MethodGet, "/me", minted, nil), http.StatusOK, "")
			e.expect(e.do(http.MethodPost, "/logout", "", nil), http.StatusUnauthorized, "ERR_AUTH_TOKEN_INVALID")
			e.expect(e.do(http.MethodPost, "/logout", "", nil, "apikey", testAPIKey), http.StatusUnauthorized, "ERR_AUTH_TOKEN_INVALID")
			e.expect(e.do(http.MethodPost, "/logout", minted, nil), http.StatusNoContent, "")
			e.expect(e.do(http.MethodGet, "/me", minted, nil), http.StatusUnauthorized, "ERR_AUTH_TOKEN_INVALID")
			e.expect(e.do(http.MethodGet, "/me", t2, nil), http.StatusOK, "")
		})
	}
}

// TestLoginTokenTTL: a development login's token expires after Options.LoginTokenTTL; 0 keeps
// it until revoked.
func TestLoginTokenTTL(t *testing.T) {
	st := stores(t)["sqlite"](t)
	// Long enough for the first check to come in time on a loaded machine.
	const ttl = time.Second
	short := newEnv(t, st, Options{AuthKey: "dev-auth-key-xyz", LoginTokenTTL: ttl})
	short.user("u1")
	tok := short.login("u1", "dev-auth-key-xyz")
	loggedIn := time.Now() // the token expires at the latest ttl after this
	short.expect(short.do(http.MethodGet, "/me", tok, nil), http.StatusOK, "")
	never := newEnv(t, st, Options{AuthKey: "dev-auth-key-xyz"}) // LoginTokenTTL 0: until revoked
	kept := never.login("u1", "dev-auth-key-xyz")
	time.Sleep(time.Until(loggedIn.Add(ttl)))
	short.expect(short.do(http.MethodGet, "/me", tok, nil), http.StatusUnauthorized, "ERR_AUTH_TOKEN_INVALID")
	short.expect(short.do(http.MethodPost, "/logout", tok, nil), http.StatusUnauthorized, "ERR_AUTH_TOKEN_INVALID")
	never.expect(never.do(http.MethodGet, "/me", kept, nil), http.StatusOK, "")
}
