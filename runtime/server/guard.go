package server

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/internal/platform/httpserve"
	"github.com/agentry-dev/agentry/internal/platform/ratelimit"
	"github.com/agentry-dev/agentry/runtime/registry"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

// Rate-limit defaults for agents that configure none. The per-IP default is generous because a
// chat platform calls from a few egress IPs on behalf of all of its users; fairness between
// those users comes from the per-user limit, which only counts authenticated requests.
const (
	DefaultRequestsPerMinute     = 3000
	DefaultBurst                 = 500
	DefaultUserRequestsPerMinute = 120
	DefaultUserBurst             = 30
	DefaultUserHeader            = "X-User-Id"
	// authCacheTTL bounds how long a rotated auth Secret takes to apply.
	authCacheTTL = 5 * time.Second
)

// agentOf returns the agent the guard resolved for this request.
func agentOf(c echo.Context) *registry.Entry {
	e, _ := c.Get("agentry.agent").(*registry.Entry)
	return e
}

// guard resolves the agent of the request and enforces, in this order: 404 for an unknown
// agent, 429 when the client IP's rate is exceeded, 401 when the configured auth headers are
// missing or wrong, 429 when the authenticated user's rate is exceeded, and 413 when the body
// is over the limit.
func (s *Server) guard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		e, err := s.lookup(c)
		if err != nil {
			return err
		}
		lim := limitFor(e)
		if err := s.allow(c, e.Agent.ID+"\x00ip\x00"+c.RealIP(), lim.ip); err != nil {
			return err
		}
		ok, err := s.auth.check(c.Request(), e)
		if err != nil {
			s.opts.Logger.Error(err, "endpoint auth headers are unavailable; refusing requests", "agent", e.Agent.ID)
			return echo.NewHTTPError(http.StatusInternalServerError, "Endpoint authentication is misconfigured")
		}
		if !ok {
			return echo.NewHTTPError(http.StatusUnauthorized, "Unauthorized")
		}
		// Only now is the user header worth anything: before auth, anyone could rotate it.
		if user := c.Request().Header.Get(lim.userHeader); user != "" {
			if err := s.allow(c, e.Agent.ID+"\x00user\x00"+user, lim.user); err != nil {
				return err
			}
		}
		limit := s.opts.MaxBodyBytes
		if ep := e.Manifest.Spec.Endpoint; ep != nil && ep.MaxBodyBytes != nil {
			limit = *ep.MaxBodyBytes
		}
		req := c.Request()
		if req.ContentLength > limit {
			return echo.ErrStatusRequestEntityTooLarge
		}
		req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
		c.Set("agentry.agent", e)
		return next(c)
	}
}

// authChecker compares the configured header values in constant time.
type authChecker struct {
	secrets secrets.Source
	mu      sync.Mutex
	cache   map[string]cachedHeaders
}

type cachedHeaders struct {
	headers map[string]string
	expires time.Time
}

func (a *authChecker) headers(name string) (map[string]string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if c, ok := a.cache[name]; ok && time.Now().Before(c.expires) {
		return c.headers, nil
	}
	if a.secrets == nil {
		return nil, fmt.Errorf("no Secret source to read %q from", name)
	}
	h, err := a.secrets.Secret(name)
	if err != nil {
		return nil, err
	}
	if len(h) == 0 {
		return nil, fmt.Errorf("secret %q holds no headers", name)
	}
	for k, v := range h {
		// An empty value would compare equal to a missing header and let everyone in.
		if strings.TrimSpace(v) == "" {
			return nil, fmt.Errorf("secret %q has an empty value for header %q", name, k)
		}
		if strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("secret %q has an empty header name", name)
		}
	}
	if a.cache == nil {
		a.cache = map[string]cachedHeaders{}
	}
	a.cache[name] = cachedHeaders{headers: h, expires: time.Now().Add(authCacheTTL)}
	return h, nil
}

// check reports whether the request carries every configured header with its exact value.
func (a *authChecker) check(r *http.Request, e *registry.Entry) (bool, error) {
	ep := e.Manifest.Spec.Endpoint
	if ep == nil || ep.Auth == nil {
		return true, nil
	}
	want, err := a.headers(ep.Auth.HeadersSecretRef.Name)
	if err != nil {
		return false, err
	}
	names := make([]string, 0, len(want))
	for k := range want {
		names = append(names, k)
	}
	sort.Strings(names)
	ok := true
	for _, k := range names {
		// Compare every header even after a mismatch, so timing says nothing about which failed.
		if !httpserve.SecretEqual(r.Header.Get(k), want[k]) {
			ok = false
		}
	}
	return ok, nil
}

// agentLimits are an agent's effective rate limits.
type agentLimits struct {
	ip, user   ratelimit.Rate
	userHeader string
}

func limitFor(e *registry.Entry) agentLimits {
	perMinute, burst, userPerMinute, userBurst, userHeader := DefaultRequestsPerMinute, DefaultBurst, DefaultUserRequestsPerMinute, DefaultUserBurst, DefaultUserHeader
	if ep := e.Manifest.Spec.Endpoint; ep != nil && ep.RateLimit != nil {
		rl := ep.RateLimit
		if rl.RequestsPerMinute != nil {
			perMinute = int(*rl.RequestsPerMinute)
			burst = max(1, perMinute/6)
		}
		if rl.Burst > 0 {
			burst = int(rl.Burst)
		}
		if rl.UserRequestsPerMinute != nil {
			userPerMinute = int(*rl.UserRequestsPerMinute)
			userBurst = max(1, userPerMinute/4)
		}
		if rl.UserBurst > 0 {
			userBurst = int(rl.UserBurst)
		}
		if rl.UserHeader != "" {
			userHeader = rl.UserHeader
		}
	}
	return agentLimits{ip: ratelimit.PerMinute(perMinute, burst), user: ratelimit.PerMinute(userPerMinute, userBurst), userHeader: userHeader}
}

// allow answers 429 with Retry-After once key's budget is spent.
func (s *Server) allow(c echo.Context, key string, r ratelimit.Rate) error {
	if wait := s.limits.Take(key, r); wait > 0 {
		ratelimit.SetRetryAfter(c.Response().Header(), wait)
		return echo.NewHTTPError(http.StatusTooManyRequests, "Too many requests")
	}
	return nil
}
