package api

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

func TestUserLimiter(t *testing.T) {
	if newKeyedLimiter(0, 10) != nil {
		t.Fatal("a zero rate must mean no limiter")
	}
	l := newKeyedLimiter(2, 3) // 2/s, 3 at once
	now := time.Unix(1_800_000_000, 0)
	for i := range 3 {
		if ok, _ := l.allow("a", now); !ok {
			t.Fatalf("request %d of the burst refused", i+1)
		}
	}
	ok, wait := l.allow("a", now)
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("past the burst: ok=%v wait=%v, want refused for 500ms", ok, wait)
	}
	if ok, _ := l.allow("b", now); !ok {
		t.Fatal("another user shares the first one's bucket")
	}
	// A refused request takes no token: after the wait exactly one more is allowed.
	if ok, _ := l.allow("a", now.Add(500*time.Millisecond)); !ok {
		t.Fatal("refused after waiting as told")
	}
	if ok, _ := l.allow("a", now.Add(500*time.Millisecond)); ok {
		t.Fatal("allowed twice after one refill")
	}
	// Buckets idle long enough to be full again are swept, at most once a minute.
	later := now.Add(2 * time.Minute)
	l.allow("c", later)
	l.mu.Lock()
	n := len(l.buckets)
	l.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d buckets after the sweep, want only c's", n)
	}
}

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
