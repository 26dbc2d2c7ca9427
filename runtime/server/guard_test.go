package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/platform/cidr"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

const guardAgents = `
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: per-ip}
spec:
  model: {name: m}
  endpoint:
    rateLimit: {requestsPerMinute: 6, burst: 3, userRequestsPerMinute: 0}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: per-user}
spec:
  model: {name: m}
  endpoint:
    auth: {headersSecretRef: {name: platform-auth}}
    rateLimit: {requestsPerMinute: 0, userRequestsPerMinute: 2, userBurst: 2}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: empty-auth}
spec:
  model: {name: m}
  endpoint:
    auth: {headersSecretRef: {name: empty-auth}}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: small-body}
spec:
  model: {name: m}
  endpoint: {maxBodyBytes: 1024}
`

var guardSecrets = secrets.Static{
	"platform-auth": {"Authorization": "Bearer s3cr3t"},
	"empty-auth":    {"Authorization": ""},
}

func startGuardEnv(t *testing.T, adjust func(*Options)) *env {
	return startEnv(t, scriptedmodel.Sequence(), envOptions{manifests: guardAgents, server: func(o *Options) {
		o.Secrets = guardSecrets
		if adjust != nil {
			adjust(o)
		}
	}})
}

func (e *env) get(path string, header map[string]string) *http.Response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.base+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// Rotating the user header must not mint a fresh budget: the per-IP bucket holds.
func TestRateLimitPerIPIgnoresTheUserHeader(t *testing.T) {
	e := startGuardEnv(t, nil)
	var codes []int
	for i := 0; i < 10; i++ {
		codes = append(codes, e.get("/api/agents/per-ip", map[string]string{"X-User-Id": fmt.Sprint("user-", i)}).StatusCode)
	}
	want := []int{200, 200, 200, 429, 429, 429, 429, 429, 429, 429}
	if fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Fatalf("statuses with 10 user ids from one IP: %v, want %v", codes, want)
	}
	resp := e.get("/api/agents/per-ip", nil)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("429 needs Retry-After: %d %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

// The per-user bucket only counts requests that passed authentication, so unauthenticated
// requests naming a user neither spend nor get that user's budget.
func TestUserLimitCountsOnlyAfterAuth(t *testing.T) {
	e := startGuardEnv(t, nil)
	for i := 0; i < 5; i++ {
		if code := e.get("/api/agents/per-user", map[string]string{"X-User-Id": "alice"}).StatusCode; code != 401 {
			t.Fatalf("unauthenticated request %d: %d, want 401", i, code)
		}
	}
	auth := func(user string) int {
		return e.get("/api/agents/per-user", map[string]string{"X-User-Id": user, "Authorization": "Bearer s3cr3t"}).StatusCode
	}
	got := []int{auth("alice"), auth("alice"), auth("alice"), auth("bob")}
	if fmt.Sprint(got) != "[200 200 429 200]" {
		t.Fatalf("authenticated alice x3, bob: %v, want [200 200 429 200]", got)
	}
}

// A Secret with an empty value must not let requests without the header in.
func TestEmptyAuthValueFailsClosed(t *testing.T) {
	e := startGuardEnv(t, nil)
	for _, h := range []map[string]string{nil, {"Authorization": ""}, {"Authorization": " "}} {
		resp := e.get("/api/agents/empty-auth", h)
		if resp.StatusCode != http.StatusInternalServerError {
			t.Fatalf("empty auth value, header %v: %d, want 500", h, resp.StatusCode)
		}
	}
	status, body := e.do(http.MethodPost, "/api/agents/empty-auth/generate", userMessage("hi"))
	if status != 500 || body["error"] != "Endpoint authentication is misconfigured" {
		t.Fatalf("generate with an empty auth value: %d %v", status, body)
	}
}

func TestBodyLimit(t *testing.T) {
	e := startGuardEnv(t, nil)
	status, body := e.do(http.MethodPost, "/api/agents/small-body/generate", userMessage(strings.Repeat("x", 2048)))
	if status != 413 || body["error"] != "Request body too large" {
		t.Fatalf("2 KiB body over a 1 KiB limit: %d %v", status, body)
	}
	if status, _ := e.do(http.MethodPost, "/api/agents/small-body/generate", userMessage("short")); status != 200 {
		t.Fatalf("small body: %d", status)
	}
}

// X-Forwarded-For names the client only when the request comes from a trusted proxy.
func TestForwardedForTrustedOnlyFromTrustedProxies(t *testing.T) {
	send := func(h http.Handler, remote, xff string) int {
		req := httptest.NewRequest(http.MethodGet, "/api/agents/per-ip", nil)
		req.RemoteAddr = remote + ":40000"
		req.Header.Set("X-Forwarded-For", xff)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	build := func(trusted ...string) http.Handler {
		e := startGuardEnv(t, nil)
		nets, err := cidr.Parse(trusted)
		testutil.NoError(t, err)
		return New(Options{Registry: e.reg, TrustedProxies: nets}).Handler()
	}

	// Default: a private address is not a proxy; every forwarded address shares its bucket.
	h := build()
	var codes []int
	for i := 0; i < 4; i++ {
		codes = append(codes, send(h, "10.1.2.3", fmt.Sprintf("203.0.113.%d", i)))
	}
	if fmt.Sprint(codes) != "[200 200 200 429]" {
		t.Fatalf("untrusted proxy: %v, want the fourth request limited", codes)
	}

	// Trusted: each forwarded client has its own bucket.
	h = build("10.0.0.0/8")
	codes = nil
	for i := 0; i < 4; i++ {
		codes = append(codes, send(h, "10.1.2.3", fmt.Sprintf("203.0.113.%d", i)))
	}
	if fmt.Sprint(codes) != "[200 200 200 200]" {
		t.Fatalf("trusted proxy: %v, want every forwarded client served", codes)
	}

}
