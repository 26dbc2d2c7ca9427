package api

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"golang.org/x/crypto/bcrypt"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
)

const (
	testAPIKey = "test-api-key-0123456789"
	keyAuth    = "\x00apikey" // do() sends the API key instead of a bearer token
)

// env is the API served over real HTTP.
type env struct {
	t      *testing.T
	srv    *httptest.Server
	api    *API
	hub    *fakeHub
	logs   *logBuffer
	apiKey string
}

// fakeHub records what the API tells the hub.
type fakeHub struct {
	notified atomic.Int64
	mu       sync.Mutex
	typing   []string
	all      []string // frames sent to every socket (PublishAll)
}

func (h *fakeHub) ServeHTTP(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }
func (h *fakeHub) Notify()                                          { h.notified.Add(1) }
func (h *fakeHub) PublishAll(frame []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.all = append(h.all, string(frame))
}

// published returns the frames sent to every socket so far and forgets them.
func (h *fakeHub) published() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.all
	h.all = nil
	return out
}

func (h *fakeHub) Typing(uid, conv string, started bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.typing = append(h.typing, uid+" "+conv+" "+map[bool]string{true: "start", false: "end"}[started])
}

// logBuffer keeps every log line, so tests can check secrets never reach the log.
type logBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *logBuffer) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.buf.WriteString(prefix + " " + args + "\n")
	}, funcr.Options{Verbosity: 1})
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newEnv(t *testing.T, st store.Store, opts Options) *env {
	t.Helper()
	return newEnvOn(t, nil, st, opts)
}

// newEnvOn serves the API on l (nil: a new loopback listener), for a test that must know the
// server's URL before the API is built (an identity provider's redirect URL).
func newEnvOn(t *testing.T, l net.Listener, st store.Store, opts Options) *env {
	t.Helper()
	e := &env{t: t, hub: &fakeHub{}, logs: &logBuffer{}}
	opts.Store, opts.Hub, opts.Logger = st, e.hub, e.logs.logger()
	opts.APIKey = cmp.Or(opts.APIKey, testAPIKey)
	if opts.MediaDir == "" {
		opts.MediaDir = t.TempDir()
	}
	opts.PasswordCost = bcrypt.MinCost
	if opts.AgentEgress.Allow == nil {
		// The connection tests' agents listen on loopback.
		opts.AgentEgress.Allow = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	}
	e.apiKey = opts.APIKey
	e.api = New(opts)
	e.srv = httptest.NewUnstartedServer(e.api.Handler())
	if l != nil {
		_ = e.srv.Listener.Close()
		e.srv.Listener = l
	}
	e.srv.Start()
	t.Cleanup(e.srv.Close)
	return e
}

type resp struct {
	status int
	body   []byte
	header http.Header
}

// code is the error code of an error answer ("" otherwise).
func (r resp) code() string {
	var b errorBody
	_ = json.Unmarshal(r.body, &b)
	return b.Error.Code
}

func (r resp) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("failed to decode %q: %v", r.body, err)
	}
}

// do sends a request under /chat/v1: auth is a bearer token, keyAuth, or "" for none; a string
// or []byte body is sent as is, anything else as JSON.
func (e *env) do(method, path, auth string, body any, hdr ...string) resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, e.srv.URL+Prefix+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	switch auth {
	case "":
	case keyAuth:
		req.Header.Set("apikey", e.apiKey)
	default:
		req.Header.Set("Authorization", "Bearer "+auth)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{status: res.StatusCode, body: b, header: res.Header}
}

// expect checks an answer's status and, for errors, its code.
func (e *env) expect(r resp, status int, code string) {
	e.t.Helper()
	if r.status != status || r.code() != code {
		e.t.Fatalf("got %d %s, want %d %s (body %s)", r.status, r.code(), status, code, r.body)
	}
	if status >= 400 && !json.Valid(r.body) {
		e.t.Fatalf("error body is not JSON: %q", r.body)
	}
}

// stubStore answers users and tokens from memory for the tests that need no real store (auth,
// validation). Every other method is the nil embedded interface: a test that reaches one
// panics, which the API answers as 500 and the test reports.
type stubStore struct {
	store.Store
	mu     sync.Mutex
	users  map[string]model.User
	tokens map[string]string // hash → uid
	ids    map[string]string // hash → token id
	n      int
}

func newStubEnv(t *testing.T, opts Options) *env {
	return newEnv(t, &stubStore{users: map[string]model.User{}, tokens: map[string]string{}, ids: map[string]string{}}, opts)
}

func (s *stubStore) Kind() string               { return "stub" }
func (s *stubStore) Ping(context.Context) error { return nil }
func (s *stubStore) Close() error               { return nil }
func (s *stubStore) Wake() <-chan struct{}      { return nil }
func (s *stubStore) RevokeUserTokens(_ context.Context, uid string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for h, u := range s.tokens {
		if u == uid {
			delete(s.tokens, h)
		}
	}
	return nil
}

func (s *stubStore) CreateUser(_ context.Context, u model.User) (model.User, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.users[u.UID]; ok {
		return model.User{}, model.Errorf(model.ErrUIDExists, "uid taken")
	}
	u.CreatedAt = time.Now()
	s.users[u.UID] = u
	return u, nil
}

func (s *stubStore) GetUser(_ context.Context, uid string) (model.User, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[uid]
	if !ok {
		return model.User{}, model.Errorf(model.ErrUIDNotFound, "no user %q", uid)
	}
	return u, nil
}

func (s *stubStore) CreateToken(_ context.Context, uid string, hash []byte, _ time.Time) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.users[uid]; !ok {
		return "", model.Errorf(model.ErrUIDNotFound, "no user %q", uid)
	}
	s.n++
	id := fmt.Sprintf("t%d", s.n)
	s.tokens[hex.EncodeToString(hash)] = uid
	s.ids[hex.EncodeToString(hash)] = id
	return id, nil
}

// CreateSession is CreateToken: the stub keeps no idle timeouts (TestSessionIdleTimeout runs
// on a real store).
func (s *stubStore) CreateSession(ctx context.Context, uid string, hash []byte, exp time.Time, _ time.Duration) (string, error) {
	return s.CreateToken(ctx, uid, hash, exp)
}

func (s *stubStore) TokenUser(_ context.Context, hash []byte) (store.TokenInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	uid, ok := s.tokens[hex.EncodeToString(hash)]
	if !ok {
		return store.TokenInfo{}, model.Errorf(model.ErrUnauthenticated, "invalid token")
	}
	return store.TokenInfo{UID: uid, ID: s.ids[hex.EncodeToString(hash)]}, nil
}

func (s *stubStore) RevokeToken(_ context.Context, uid, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for h, tid := range s.ids {
		if tid == id && s.tokens[h] == uid {
			delete(s.tokens, h)
			delete(s.ids, h)
			return nil
		}
	}
	return model.Errorf(model.ErrNotFound, "user %q has no token %q", uid, id)
}

// user creates a user through the API and mints a token for it.
func (e *env) user(uid string) string {
	e.t.Helper()
	e.expect(e.do(http.MethodPost, "/users", keyAuth, map[string]any{"uid": uid, "name": "User " + uid}), http.StatusCreated, "")
	return e.user2(uid)
}

// user2 mints another token for uid with the REST API key.
func (e *env) user2(uid string) string {
	e.t.Helper()
	r := e.do(http.MethodPost, "/users/"+uid+"/auth_tokens", keyAuth, nil)
	e.expect(r, http.StatusCreated, "")
	var tok tokenResponse
	r.decode(e.t, &tok)
	return tok.AuthToken
}

// login signs uid in with the development Auth Key.
func (e *env) login(uid, authKey string) string {
	e.t.Helper()
	r := e.do(http.MethodPost, "/login", "", map[string]string{"uid": uid, "authKey": authKey})
	e.expect(r, http.StatusOK, "")
	var tok tokenResponse
	r.decode(e.t, &tok)
	return tok.AuthToken
}
