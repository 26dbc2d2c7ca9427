package api

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/platform/httpserve"
)

// timedJoin measures how long the store's password check takes inside JoinGroup's transaction.
type timedJoin struct {
	store.Store
	longest time.Duration
}

func (s *timedJoin) JoinGroup(ctx context.Context, uid, guid string, check func(string) bool) (model.Group, error) {
	return s.Store.JoinGroup(ctx, uid, guid, func(hash string) bool {
		start := time.Now()
		ok := check(hash)
		s.longest = max(s.longest, time.Since(start))
		return ok
	})
}

// TestGroupPasswordsAreCheckedOutsideTheWrite: on both backends, bcrypt runs before the join's
// transaction; inside it the store only compares hashes (on SQLite one slow check inside would
// hold every writer; on PostgreSQL a connection and the group's row lock).
func TestGroupPasswordsAreCheckedOutsideTheWrite(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			st := &timedJoin{Store: open(t)}
			e := newEnv(t, st, Options{})
			e.api.opts.PasswordCost = bcrypt.DefaultCost // a real cost: tens of milliseconds per check
			owner, joiner := e.user("owner"), e.user("joiner")
			e.expect(e.do("POST", "/groups", owner, map[string]any{"guid": "vault", "name": "Vault", "type": "password", "password": "open sesame"}), http.StatusCreated, "")
			e.expect(e.do("POST", "/groups/vault/join", joiner, map[string]any{"password": "wrong"}), http.StatusForbidden, model.ErrWrongGroupPassword)
			e.expect(e.do("POST", "/groups/vault/join", joiner, map[string]any{"password": "open sesame"}), http.StatusOK, "")
			if st.longest > 5*time.Millisecond {
				t.Errorf("the password check inside the join's transaction took %s: bcrypt runs inside it", st.longest)
			}
		})
	}
}

// TestWrongGroupPasswordsAreThrottled: a user who gets a group's password wrong 5 times gets
// 429 with Retry-After (even with the right one) until a minute passes; another user, or the
// same user on another group, is not held up.
func TestWrongGroupPasswordsAreThrottled(t *testing.T) {
	e := newEnv(t, stores(t)["sqlite"](t), Options{})
	owner, mallory, alice := e.user("owner"), e.user("mallory"), e.user("alice")
	for _, g := range []string{"vault", "safe"} {
		e.expect(e.do("POST", "/groups", owner, map[string]any{"guid": g, "name": g, "type": "password", "password": "open sesame"}), http.StatusCreated, "")
	}
	for range passwordFailureBurst {
		e.expect(e.do("POST", "/groups/vault/join", mallory, map[string]any{"password": "guess"}), http.StatusForbidden, model.ErrWrongGroupPassword)
	}
	r := e.do("POST", "/groups/vault/join", mallory, map[string]any{"password": "open sesame"})
	e.expect(r, http.StatusTooManyRequests, model.ErrRateLimited)
	if s, _ := strconv.Atoi(r.header.Get("Retry-After")); s < 1 || s > 60 {
		t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
	}
	e.expect(e.do("POST", "/groups/safe/join", mallory, map[string]any{"password": "open sesame"}), http.StatusOK, "")
	e.expect(e.do("POST", "/groups/vault/join", alice, map[string]any{"password": "open sesame"}), http.StatusOK, "")
}

// TestFailedCredentialsAreThrottledPerAddress: wrong API keys, bearer tokens and Auth Keys from
// one address are answered 401 until 20 failures, then 429 with Retry-After before any check
// (the right key too); another address is not held up.
func TestFailedCredentialsAreThrottledPerAddress(t *testing.T) {
	e := newStubEnv(t, Options{AuthKey: "dev-auth-key-0123456789"})
	tok := e.user("u1")
	from := func(ip string) []string { return []string{"X-Forwarded-For", ip} } // the test client is loopback: a trusted proxy
	attempts := []func(ip string) resp{
		func(ip string) resp {
			return e.do("POST", "/users/u1/auth_tokens", "", nil, append(from(ip), "apikey", "wrong-key-0123456789")...)
		},
		func(ip string) resp { return e.do("GET", "/me", "not-a-token", nil, from(ip)...) },
		func(ip string) resp {
			return e.do("POST", "/login", "", map[string]any{"uid": "u1", "authKey": "guessing-the-key"}, from(ip)...)
		},
	}
	for i := range authFailureBurst {
		r := attempts[i%len(attempts)]("203.0.113.7")
		if r.status != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d %s, want 401", i+1, r.status, r.body)
		}
	}
	for _, try := range []resp{
		attempts[0]("203.0.113.7"),
		e.do("POST", "/users/u1/auth_tokens", keyAuth, nil, from("203.0.113.7")...),
		e.do("GET", "/me", tok, nil, from("203.0.113.7")...),
	} {
		e.expect(try, http.StatusTooManyRequests, model.ErrRateLimited)
		if try.header.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
	}
	e.expect(e.do("GET", "/me", tok, nil, from("198.51.100.9")...), http.StatusOK, "")
	e.expect(attempts[0]("198.51.100.9"), http.StatusUnauthorized, model.ErrAPIKeyInvalid)
}

// TestTrickledLoginIsCutOff: served as agentry chat serves it, an unauthenticated login whose
// body trickles in past the body timeout is answered 408 ERR_REQUEST_TIMEOUT in the API's shape.
func TestTrickledLoginIsCutOff(t *testing.T) {
	e := newStubEnv(t, Options{AuthKey: "dev-auth-key-0123456789"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testutil.NoError(t, err)
	srv := httpserve.Server(e.api.Handler(), httpserve.Limits{BodyTimeout: 300 * time.Millisecond, Timeout: RequestTimeout})
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	testutil.NoError(t, err)
	defer c.Close()
	fmt.Fprint(c, "POST /chat/v1/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n{\"uid\"")
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	testutil.NoError(t, err)
	defer res.Body.Close()
	var body errorBody
	_ = json.NewDecoder(res.Body).Decode(&body)
	if res.StatusCode != http.StatusRequestTimeout || body.Error.Code != model.ErrRequestTimeout {
		t.Errorf("got %d %+v, want 408 %s", res.StatusCode, body, model.ErrRequestTimeout)
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
	root := e.user2("root")
	for range 3 {
		e.expect(e.do(http.MethodGet, "/me", root, nil), http.StatusOK, "")
	}
	e.expect(e.do(http.MethodGet, "/agents", root, nil), http.StatusTooManyRequests, model.ErrRateLimited)

	// The zero Options do not limit.
	free := newStubEnv(t, Options{})
	carol := free.user("carol")
	for range 50 {
		free.expect(free.do(http.MethodGet, "/me", carol, nil), http.StatusOK, "")
	}
}
