package api

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/oidc"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

type ssoEnv struct {
	*env
	idp *testutil.IDP
}

var ssoUsers = []testutil.IDPUser{
	{Sub: "ann", Password: "ann-pw", Email: "ann@example.com", EmailVerified: true, Name: "Ann Lee", Picture: "https://example.com/ann.png", Groups: []string{"eng", "chat-admins"}},
	{Sub: "sam", Password: "sam-pw", Email: "sam@example.com", EmailVerified: true, Name: "Sam", Groups: []string{"sales"}},
	{Sub: "cy", Password: "cy-pw", Email: "cy@example.com", EmailVerified: true, Name: "Cy", Groups: []string{"eng", "design"}},
}

// newSSOEnv serves the API with sign-in through a real OpenID provider, which requires the
// "eng" group and makes "chat-admins" admins.
func newSSOEnv(t *testing.T) *ssoEnv {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	testutil.NoError(t, err)
	callback := "http://" + l.Addr().String() + Prefix + "/auth/sso/callback"
	idp := testutil.StartIDP(t, testutil.IDPConfig{Users: ssoUsers, Clients: []testutil.IDPClient{
		{ID: "agentry-chat", Secret: "chat-client-secret-0123456789", RedirectURIs: []string{callback}},
	}})
	client, err := oidc.New(context.Background(), oidc.Config{Issuer: idp.Issuer, ClientID: "agentry-chat",
		ClientSecret: "chat-client-secret-0123456789", RedirectURL: callback, ProviderName: "Test IdP",
		Scopes: []string{"email", "profile", "groups"}, GroupsClaim: "groups",
		AdminGroups: []string{"chat-admins"}, RequiredGroups: []string{"eng"}})
	testutil.NoError(t, err)
	st := stores(t)["sqlite"](t)
	return &ssoEnv{env: newEnvOn(t, l, st, Options{SSO: client, SessionTTL: time.Hour}), idp: idp}
}

// browser is a cookie-keeping client that follows redirects until it is sent back to the web
// app (/), where a page would run: it returns that last URL.
type browser struct {
	t  *testing.T
	hc *http.Client
}

func newBrowser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, hc: &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if req.URL.Path == "/" {
			return http.ErrUseLastResponse
		}
		return nil
	}}}
}

// signIn goes from the chat's sign-in route through the provider's login form and returns
// where the chat sent the browser back to.
func (b *browser) signIn(e *ssoEnv, user, password string) *url.URL {
	b.t.Helper()
	res, err := b.hc.Get(e.srv.URL + Prefix + "/auth/sso")
	testutil.NoError(b.t, err)
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(page), `name="password"`) {
		b.t.Fatalf("no login form at the provider: %d %s", res.StatusCode, page)
	}
	res, err = b.hc.PostForm(res.Request.URL.String()+"/login", url.Values{"username": {user}, "password": {password}})
	testutil.NoError(b.t, err)
	res.Body.Close()
	back, err := res.Location()
	testutil.NoError(b.t, err)
	return back
}

// session is the page's POST /auth/session with the browser's cookies.
func (b *browser) session(e *ssoEnv) (int, tokenResponse) {
	b.t.Helper()
	res, err := b.hc.Post(e.srv.URL+Prefix+"/auth/session", "application/json", nil)
	testutil.NoError(b.t, err)
	defer res.Body.Close()
	var tr tokenResponse
	_ = json.NewDecoder(res.Body).Decode(&tr)
	return res.StatusCode, tr
}

func TestSSOSignIn(t *testing.T) {
	e := newSSOEnv(t)
	b := newBrowser(t)
	back := b.signIn(e, "ann", "ann-pw")
	if back.Path != "/" || back.RawQuery != "" {
		t.Fatalf("sent back to %s, want / with nothing in the URL", back)
	}
	status, tr := b.session(e)
	if status != http.StatusOK || tr.AuthToken == "" || tr.User == nil {
		t.Fatalf("session: %d %+v", status, tr)
	}
	uid := oidc.UID(e.idp.Issuer, "ann")
	if tr.User.UID != uid || tr.User.Name != "Ann Lee" || tr.User.Role != RoleAdmin || tr.User.Avatar != "https://example.com/ann.png" {
		t.Fatalf("user = %+v", tr.User)
	}
	// The provider's account is kept (the chat's signed tokens name it), never answered.
	if stored, err := e.api.opts.Store.GetUser(context.Background(), uid); err != nil || stored.ProviderIssuer != e.idp.Issuer || stored.ProviderSubject != "ann" {
		t.Errorf("stored provider account %q %q (%v)", stored.ProviderIssuer, stored.ProviderSubject, err)
	}
	var meta map[string]string
	testutil.NoError(t, json.Unmarshal(tr.User.Metadata, &meta))
	if meta["email"] != "ann@example.com" {
		t.Fatalf("metadata = %s", tr.User.Metadata)
	}
	e.expect(e.do("GET", "/me", tr.AuthToken, nil), http.StatusOK, "")
	// The hand-off happens once.
	if status, _ := b.session(e); status != http.StatusUnauthorized {
		t.Fatalf("a second hand-off answered %d", status)
	}
	if strings.Contains(e.logs.String(), tr.AuthToken) {
		t.Fatal("the session token reached the log")
	}

	// The provider decides who is an admin, both ways, and the name follows it.
	e.idp.SetUser(t, testutil.IDPUser{Sub: "ann", Password: "ann-pw", Email: "ann@example.com", EmailVerified: true, Name: "Ann Lee-Park", Groups: []string{"eng"}})
	b2 := newBrowser(t)
	b2.signIn(e, "ann", "ann-pw")
	_, tr2 := b2.session(e)
	if tr2.User == nil || tr2.User.UID != uid || tr2.User.Role == RoleAdmin || tr2.User.Name != "Ann Lee-Park" {
		t.Fatalf("after the provider's change: %+v", tr2.User)
	}
	// Signing out ends that session only.
	e.expect(e.do("POST", "/logout", tr2.AuthToken, nil), http.StatusNoContent, "")
	e.expect(e.do("GET", "/me", tr2.AuthToken, nil), http.StatusUnauthorized, model.ErrUnauthenticated)
	e.expect(e.do("GET", "/me", tr.AuthToken, nil), http.StatusOK, "")
}

func TestSSORefusalsCreateNoSession(t *testing.T) {
	e := newSSOEnv(t)
	refused := func(t *testing.T, b *browser, back *url.URL, code string) {
		t.Helper()
		if back.Path != "/" || back.Query().Get("signin_error") != code {
			t.Fatalf("sent back to %s, want /?signin_error=%s", back, code)
		}
		if status, _ := b.session(e); status != http.StatusUnauthorized {
			t.Fatalf("a refused sign-in left a session (%d)", status)
		}
	}
	t.Run("outside the required group", func(t *testing.T) {
		b := newBrowser(t)
		refused(t, b, b.signIn(e, "sam", "sam-pw"), "group")
		if _, err := e.api.opts.Store.GetUser(context.Background(), oidc.UID(e.idp.Issuer, "sam")); err == nil {
			t.Fatal("a refused sign-in created the user")
		}
	})
	t.Run("the provider's own refusal", func(t *testing.T) {
		b := newBrowser(t)
		refused(t, b, b.get(e, "/auth/sso/callback?error=access_denied&state=x"), "access_denied")
		refused(t, b, b.get(e, "/auth/sso/callback?error=%3Cscript%3E"), "invalid")
	})
	t.Run("a callback this browser did not start", func(t *testing.T) {
		b := newBrowser(t)
		refused(t, b, b.get(e, "/auth/sso/callback?state=forged&code=forged"), "invalid")
	})
}

func TestSSONotConfigured(t *testing.T) {
	e := newStubEnv(t, Options{})
	for _, p := range []string{"/auth/sso", "/auth/sso/callback?code=x&state=y"} {
		e.expect(e.do("GET", p, "", nil), http.StatusNotFound, model.ErrNotFound)
	}
	e.expect(e.do("POST", "/auth/session", "", nil), http.StatusUnauthorized, model.ErrUnauthenticated)
	// A stale hand-off cookie on a server without a provider is still just refused.
	e.expect(e.do("POST", "/auth/session", "", nil, "Cookie", ssoSessionCookie+"=stale"), http.StatusUnauthorized, model.ErrUnauthenticated)
}

// get requests a chat path and returns where the chat sent the browser.
func (b *browser) get(e *ssoEnv, path string) *url.URL {
	b.t.Helper()
	res, err := b.hc.Get(e.srv.URL + Prefix + path)
	testutil.NoError(b.t, err)
	res.Body.Close()
	loc, err := res.Location()
	testutil.NoError(b.t, err)
	return loc
}

// TestDeactivation: an admin deactivates a person: every token of theirs stops at once, none is
// minted, the development login and the provider's sign-in refuse them; reactivated, they sign in
// again. Users cannot deactivate anyone, admins not themselves.
func TestDeactivation(t *testing.T) {
	e := newSSOEnv(t)
	e.api.opts.AuthKey = "dev-auth-key-0123456"
	e.expect(e.do(http.MethodPost, "/users", keyAuth, map[string]any{"uid": "root", "name": "Root", "role": RoleAdmin}), http.StatusCreated, "")
	root := e.user2("root")
	bob := e.user("bob")
	b := newBrowser(t)
	b.signIn(e, "ann", "ann-pw")
	_, ann := b.session(e)
	annUID := oidc.UID(e.idp.Issuer, "ann")

	e.expect(e.do("POST", "/users/"+annUID+"/deactivate", bob, nil), http.StatusForbidden, model.ErrPermissionDenied)
	e.expect(e.do("POST", "/users/root/deactivate", root, nil), http.StatusBadRequest, model.ErrValidation)
	r := e.do("POST", "/users/"+annUID+"/deactivate", root, nil)
	e.expect(r, http.StatusOK, "")
	var u model.User
	r.decode(t, &u)
	if !u.Deactivated {
		t.Fatalf("answer %s", r.body)
	}
	e.expect(e.do("GET", "/me", ann.AuthToken, nil), http.StatusUnauthorized, model.ErrUnauthenticated)
	e.expect(e.do("POST", "/users/"+annUID+"/auth_tokens", keyAuth, nil), http.StatusForbidden, model.ErrUserDeactivated)
	e.user("carl")
	e.expect(e.do("POST", "/users/carl/deactivate", keyAuth, nil), http.StatusOK, "")
	e.expect(e.do("POST", "/login", "", map[string]any{"uid": "carl", "authKey": "dev-auth-key-0123456"}), http.StatusForbidden, model.ErrUserDeactivated)
	b2 := newBrowser(t)
	if back := b2.signIn(e, "ann", "ann-pw"); back.Query().Get("signin_error") != "deactivated" {
		t.Fatalf("a deactivated user's sign-in went to %s", back)
	}
	if status, _ := b2.session(e); status != http.StatusUnauthorized {
		t.Fatalf("a deactivated user got a session (%d)", status)
	}
	e.expect(e.do("GET", "/me", bob, nil), http.StatusOK, "")

	e.expect(e.do("POST", "/users/"+annUID+"/reactivate", keyAuth, nil), http.StatusOK, "")
	b3 := newBrowser(t)
	b3.signIn(e, "ann", "ann-pw")
	if status, again := b3.session(e); status != http.StatusOK || again.User.Deactivated {
		t.Fatalf("after reactivation: %d %+v", status, again.User)
	}
	e.expect(e.do("GET", "/me", ann.AuthToken, nil), http.StatusUnauthorized, model.ErrUnauthenticated)
}

// TestSSOProviderGroupAudience: an agent meant for holders of a provider group (idp:design) is
// visible to them as the provider says at each sign-in, and to nobody else.
func TestSSOProviderGroupAudience(t *testing.T) {
	e := newSSOEnv(t)
	e.expect(e.do("PUT", "/agents/critic", keyAuth, map[string]any{"provider": "ag-ui", "name": "Critic", "enabled": true,
		"deploymentUrl": "https://critic.example.com/agent", "audience": []string{"idp:design"}}), http.StatusCreated, "")
	bob := e.user("bob")
	signedIn := func() string {
		b := newBrowser(t)
		b.signIn(e, "cy", "cy-pw")
		_, tr := b.session(e)
		return tr.AuthToken
	}
	cy := signedIn()
	e.expect(e.do("GET", "/agents/critic/profile", cy, nil), http.StatusOK, "")
	e.expect(e.do("GET", "/agents/critic/profile", bob, nil), http.StatusNotFound, model.ErrUIDNotFound)
	// The provider drops cy from design: at the next sign-in the agent is gone for cy.
	e.idp.SetUser(t, testutil.IDPUser{Sub: "cy", Password: "cy-pw", Email: "cy@example.com", EmailVerified: true, Name: "Cy", Groups: []string{"eng"}})
	cy = signedIn()
	e.expect(e.do("GET", "/agents/critic/profile", cy, nil), http.StatusNotFound, model.ErrUIDNotFound)
	e.expect(e.do("GET", "/users/critic", cy, nil), http.StatusNotFound, model.ErrUIDNotFound)
}

// TestStartSession: a session started from a token (POST /sessions) is the same user, lives no
// longer than the token, and signing out of it leaves the token.
func TestStartSession(t *testing.T) {
	e := newStubEnv(t, Options{SessionTTL: time.Hour})
	tok := e.user("alice")
	r := e.do("POST", "/sessions", tok, nil)
	e.expect(r, http.StatusCreated, "")
	var s tokenResponse
	r.decode(t, &s)
	if s.AuthToken == "" || s.AuthToken == tok || s.User == nil || s.User.UID != "alice" {
		t.Fatalf("session %s", r.body)
	}
	e.expect(e.do("POST", "/logout", s.AuthToken, nil), http.StatusNoContent, "")
	e.expect(e.do("GET", "/me", s.AuthToken, nil), http.StatusUnauthorized, model.ErrUnauthenticated)
	e.expect(e.do("GET", "/me", tok, nil), http.StatusOK, "")
	e.expect(e.do("POST", "/sessions", "not-a-token", nil), http.StatusUnauthorized, model.ErrUnauthenticated)
}
