package server

import (
	"crypto/subtle"
	"fmt"
	"math"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"github.com/agentry-dev/agentry/runtime/registry"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

// Rate-limit defaults for agents that configure none.
const (
	DefaultRequestsPerMinute = 600
	DefaultBurst             = 100
	DefaultUserHeader        = "X-User-Id"
	// authCacheTTL bounds how long a rotated auth Secret takes to apply.
	authCacheTTL = 5 * time.Second
	// limiterIdle is how long an idle client's bucket is kept.
	limiterIdle = 10 * time.Minute
)

// agentOf returns the agent the guard resolved for this request.
func agentOf(c echo.Context) *registry.Entry {
	e, _ := c.Get("agentry.agent").(*registry.Entry)
	return e
}

// guard resolves the agent of the request and enforces, in this order: 404 for an unknown
// agent, 429 when the client's rate is exceeded, 401 when the configured auth headers are
// missing or wrong, and 413 when the body is over the limit.
func (s *Server) guard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		e, err := s.lookup(c)
		if err != nil {
			return err
		}
		if err := s.limits.allow(c, e); err != nil {
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
	ok := 1
	for _, k := range names {
		// Compare every header even after a mismatch, so timing says nothing about which failed.
		ok &= subtle.ConstantTimeCompare([]byte(r.Header.Get(k)), []byte(want[k]))
	}
	return ok == 1, nil
}

// rateLimiters keeps one token bucket per agent, client IP and user.
type rateLimiters struct {
	mu      sync.Mutex
	buckets map[string]*bucket
	sweep   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func limitFor(e *registry.Entry) (perMinute, burst int, userHeader string) {
	perMinute, burst, userHeader = DefaultRequestsPerMinute, DefaultBurst, DefaultUserHeader
	if ep := e.Manifest.Spec.Endpoint; ep != nil && ep.RateLimit != nil {
		rl := ep.RateLimit
		if rl.RequestsPerMinute != nil {
			perMinute = int(*rl.RequestsPerMinute)
			burst = max(1, perMinute/6)
		}
		if rl.Burst > 0 {
			burst = int(rl.Burst)
		}
		if rl.UserHeader != "" {
			userHeader = rl.UserHeader
		}
	}
	return perMinute, burst, userHeader
}

func (l *rateLimiters) allow(c echo.Context, e *registry.Entry) error {
	perMinute, burst, userHeader := limitFor(e)
	if perMinute <= 0 {
		return nil
	}
	key := e.Agent.ID + "\x00" + c.RealIP() + "\x00" + c.Request().Header.Get(userHeader)
	now := time.Now()
	l.mu.Lock()
	if l.buckets == nil {
		l.buckets = map[string]*bucket{}
	}
	if now.Sub(l.sweep) > time.Minute {
		for k, b := range l.buckets {
			if now.Sub(b.seen) > limiterIdle {
				delete(l.buckets, k)
			}
		}
		l.sweep = now
	}
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(rate.Limit(float64(perMinute)/60), burst)}
		l.buckets[key] = b
	}
	b.seen = now
	res := b.lim.ReserveN(now, 1)
	delay := res.DelayFrom(now)
	if delay > 0 {
		res.CancelAt(now)
	}
	l.mu.Unlock()
	if delay <= 0 {
		return nil
	}
	c.Response().Header().Set("Retry-After", fmt.Sprint(int(math.Ceil(delay.Seconds()))))
	return echo.NewHTTPError(http.StatusTooManyRequests, "Too many requests")
}
