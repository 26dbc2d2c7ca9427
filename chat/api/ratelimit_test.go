package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/chat/model"
)

// TestRateLimitOverHTTP: a user past their budget gets 429 ERR_RATE_LIMITED with Retry-After
// and loses nothing (the refused request did nothing); other users and the REST API key are
// not affected; admins by token are limited like everyone.
func TestRateLimitOverHTTP(t *testing.T) {
	e := newStubEnv(t, Options{RateLimit: 0.5, RateBurst: 3})
	alice, bob := e.user("alice"), e.user("bob")
	for range 3 {
		e.expect(e.do(http.MethodGet, "/me", alice, nil), http.StatusOK, "")
	}
	r := e.do(http.MethodGet, "/me", alice, nil)
	e.expect(r, http.StatusTooManyRequests, model.ErrRateLimited)
	if got := r.header.Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After %q, want 2 (one token every 2 s)", got)
	}
	if !strings.Contains(string(r.body), "too many requests") {
		t.Errorf("body %s", r.body)
	}
	e.expect(e.do(http.MethodGet, "/me", bob, nil), http.StatusOK, "")
	for range 10 { // the operator's backend is never limited
		e.expect(e.do(http.MethodPost, "/users/alice/auth_tokens", keyAuth, nil), http.StatusCreated, "")
	}
	// Without credentials the answer is 401, not 429: nothing to key a budget on.
	e.expect(e.do(http.MethodGet, "/me", "", nil), http.StatusUnauthorized, model.ErrUnauthenticated)

	e.expect(e.do(http.MethodPost, "/users", keyAuth, map[string]any{"uid": "root", "name": "Root", "role": RoleAdmin}), http.StatusCreated, "")
	tr := e.do(http.MethodPost, "/users/root/auth_tokens", keyAuth, nil)
	var tok tokenResponse
	tr.decode(t, &tok)
	for range 3 {
		e.expect(e.do(http.MethodGet, "/me", tok.AuthToken, nil), http.StatusOK, "")
	}
	e.expect(e.do(http.MethodGet, "/agents", tok.AuthToken, nil), http.StatusTooManyRequests, model.ErrRateLimited)

	// The zero Options do not limit.
	free := newStubEnv(t, Options{})
	carol := free.user("carol")
	for range 50 {
		free.expect(free.do(http.MethodGet, "/me", carol, nil), http.StatusOK, "")
	}
}
