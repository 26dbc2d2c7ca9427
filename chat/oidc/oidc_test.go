package oidc

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

const redirect = "http://127.0.0.1:9/chat/v1/auth/oidc/callback"

var users = []testutil.IDPUser{
	{Sub: "ann", Password: "ann-pw", Email: "ann@example.com", EmailVerified: true, Name: "Ann Lee", Groups: []string{"eng", "chat-admins"}},
	{Sub: "bob", Password: "bob-pw", Email: "bob@example.com", EmailVerified: true, Name: "Bob", Groups: []string{"eng"}},
	{Sub: "eve", Password: "eve-pw", Email: "eve@elsewhere.org", EmailVerified: true, Name: "Eve", Groups: []string{"eng"}},
	{Sub: "sam", Password: "sam-pw", Email: "sam@example.com", EmailVerified: true, Name: "Sam", Groups: []string{"sales"}},
	{Sub: "uma", Password: "uma-pw", Email: "uma@example.com", EmailVerified: false, Name: "Uma", Groups: []string{"eng"}},
}

func startProvider(t *testing.T) string {
	return testutil.StartIDP(t, testutil.IDPConfig{Users: users, Clients: []testutil.IDPClient{
		{ID: "agentry", Secret: "agentry-secret-0123456789", RedirectURIs: []string{redirect}},
		{ID: "other-app", Secret: "other-secret-0123456789", RedirectURIs: []string{redirect}},
	}}).Issuer
}

func newClient(t *testing.T, issuer string, edit func(*Config)) *Client {
	t.Helper()
	cfg := Config{Issuer: issuer, ClientID: "agentry", ClientSecret: "agentry-secret-0123456789", RedirectURL: redirect,
		Scopes: []string{"email", "profile", "groups"}, GroupsClaim: "groups", AdminGroups: []string{"chat-admins"}}
	if edit != nil {
		edit(&cfg)
	}
	c, err := New(context.Background(), cfg)
	testutil.NoError(t, err)
	return c
}

// authorize signs user in on the provider's own login form, as a browser would, and returns
// the state and code the provider sends to the redirect URL.
func authorize(t *testing.T, authURL, user, password string) (state, code string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), redirect) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	res, err := hc.Get(authURL)
	testutil.NoError(t, err)
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(page), `name="password"`) {
		t.Fatalf("no login form: %d %s", res.StatusCode, page)
	}
	res, err = hc.PostForm(res.Request.URL.String()+"/login", url.Values{"username": {user}, "password": {password}})
	testutil.NoError(t, err)
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther && res.StatusCode != http.StatusFound {
		t.Fatalf("the provider did not send the browser back: %d", res.StatusCode)
	}
	loc, err := url.Parse(res.Header.Get("Location"))
	testutil.NoError(t, err)
	return loc.Query().Get("state"), loc.Query().Get("code")
}

func signIn(t *testing.T, c *Client, user, password string) (Identity, error) {
	t.Helper()
	authURL, login := c.Begin()
	state, code := authorize(t, authURL, user, password)
	return c.Finish(context.Background(), login, state, code)
}

func refusalCode(err error) string {
	var r *Refusal
	if errors.As(err, &r) {
		return r.Code
	}
	return ""
}

func TestSignIn(t *testing.T) {
	issuer := startProvider(t)
	c := newClient(t, issuer, nil)
	authURL, _ := c.Begin()
	q := mustQuery(t, authURL)
	for _, k := range []string{"state", "nonce", "code_challenge"} {
		if q.Get(k) == "" {
			t.Fatalf("the authorization URL has no %s: %s", k, authURL)
		}
	}
	if q.Get("code_challenge_method") != "S256" || q.Get("response_type") != "code" {
		t.Fatalf("not the code flow with PKCE S256: %v", q)
	}
	ann, err := signIn(t, c, "ann", "ann-pw")
	testutil.NoError(t, err)
	if ann.Subject != "ann" || ann.Name != "Ann Lee" || ann.Email != "ann@example.com" || !ann.EmailVerified || !ann.Admin {
		t.Fatalf("identity = %+v", ann)
	}
	if ann.UID != UID(issuer, "ann") || strings.Contains(ann.UID, "ann") {
		t.Fatalf("uid %q: want one derived from the issuer and sub", ann.UID)
	}
	bob, err := signIn(t, c, "bob", "bob-pw")
	testutil.NoError(t, err)
	if bob.Admin || bob.UID == ann.UID {
		t.Fatalf("bob = %+v", bob)
	}
	again, err := signIn(t, c, "ann", "ann-pw")
	testutil.NoError(t, err)
	if again.UID != ann.UID {
		t.Fatalf("a second sign-in gave uid %q, first %q", again.UID, ann.UID)
	}
	end, err := url.Parse(c.EndSessionURL(c.PostLogoutURL()))
	testutil.NoError(t, err)
	if end.Query().Get("client_id") != "agentry" || end.Query().Get("post_logout_redirect_uri") != "http://127.0.0.1:9/" || !strings.HasPrefix(end.String(), issuer) {
		t.Fatalf("the provider offers RP-initiated logout; EndSessionURL is %q", end)
	}
}

func TestSignInPolicy(t *testing.T) {
	issuer := startProvider(t)
	c := newClient(t, issuer, func(cfg *Config) {
		cfg.AllowedDomains, cfg.RequiredGroups = []string{"EXAMPLE.com"}, []string{"eng"}
	})
	for _, tc := range []struct{ user, code string }{
		{"ann", ""}, {"eve", "domain"}, {"sam", "group"}, {"uma", "email_unverified"},
	} {
		_, err := signIn(t, c, tc.user, tc.user+"-pw")
		if refusalCode(err) != tc.code {
			t.Errorf("%s: err = %v, want refusal %q", tc.user, err, tc.code)
		}
	}
	verified := newClient(t, issuer, func(cfg *Config) { cfg.RequireVerifiedEmail = true })
	if _, err := signIn(t, verified, "uma", "uma-pw"); refusalCode(err) != "email_unverified" {
		t.Errorf("unverified e-mail: %v", err)
	}
}

func TestSignInRefusals(t *testing.T) {
	issuer := startProvider(t)
	c := newClient(t, issuer, nil)
	ctx := context.Background()

	t.Run("wrong state", func(t *testing.T) {
		authURL, login := c.Begin()
		_, code := authorize(t, authURL, "bob", "bob-pw")
		if _, err := c.Finish(ctx, login, "forged-state", code); refusalCode(err) != "invalid" {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("replayed code", func(t *testing.T) {
		authURL, login := c.Begin()
		state, code := authorize(t, authURL, "bob", "bob-pw")
		_, err := c.Finish(ctx, login, state, code)
		testutil.NoError(t, err)
		if _, err := c.Finish(ctx, login, state, code); refusalCode(err) != "invalid" || !strings.Contains(err.Error(), "invalid_grant") {
			t.Fatalf("replayed code: err = %v", err)
		}
	})
	t.Run("nonce mismatch", func(t *testing.T) {
		authURL, login := c.Begin()
		state, code := authorize(t, authURL, "bob", "bob-pw")
		login.Nonce = "another-sign-in's-nonce"
		if _, err := c.Finish(ctx, login, state, code); refusalCode(err) != "invalid" || !strings.Contains(err.Error(), "nonce") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("missing PKCE verifier", func(t *testing.T) {
		authURL, login := c.Begin()
		state, code := authorize(t, authURL, "bob", "bob-pw")
		login.Verifier = oauth2.GenerateVerifier()
		if _, err := c.Finish(ctx, login, state, code); refusalCode(err) != "invalid" {
			t.Fatalf("err = %v", err)
		}
	})

	// The ID token itself: one real token from the provider, checked as go-oidc checks it for
	// another audience, another issuer, another key, and after it expired.
	raw := rawIDToken(t, c, "bob", "bob-pw")
	other := startProvider(t)
	otherKeys := oidc.NewRemoteKeySet(ctx, other+"/jwks")
	for name, v := range map[string]*oidc.IDTokenVerifier{
		"audience": c.provider.Verifier(&oidc.Config{ClientID: "other-app"}),
		"issuer":   newClient(t, other, nil).verifier,
		"key":      oidc.NewVerifier(issuer, otherKeys, &oidc.Config{ClientID: "agentry"}),
		"expired":  c.provider.Verifier(&oidc.Config{ClientID: "agentry", Now: func() time.Time { return time.Now().Add(3 * time.Hour) }}),
	} {
		if _, err := v.Verify(ctx, raw); err == nil {
			t.Errorf("%s: an ID token for another %s verified", name, name)
		}
	}
	if _, err := c.verifier.Verify(ctx, raw); err != nil {
		t.Fatalf("the token itself does not verify: %v", err)
	}
}

func rawIDToken(t *testing.T, c *Client, user, password string) string {
	t.Helper()
	authURL, login := c.Begin()
	_, code := authorize(t, authURL, user, password)
	tok, err := c.oauth.Exchange(oidc.ClientContext(context.Background(), c.cfg.HTTPClient), code, oauth2.VerifierOption(login.Verifier))
	testutil.NoError(t, err)
	raw, _ := tok.Extra("id_token").(string)
	return raw
}

func mustQuery(t *testing.T, raw string) url.Values {
	t.Helper()
	u, err := url.Parse(raw)
	testutil.NoError(t, err)
	return u.Query()
}
