package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/platform/httpserve"
	"github.com/agentry-dev/agentry/internal/platform/jwtauth"
	"github.com/agentry-dev/agentry/internal/platform/ratelimit"
	"github.com/agentry-dev/agentry/internal/protocol/manifest"
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
		res, err := s.auth.check(c.Request(), e)
		switch {
		case errors.Is(err, jwtauth.ErrIssuerUnavailable):
			s.opts.Logger.Error(err, "the issuer of the agent's bearer tokens cannot be read; refusing bearer tokens for now", "agent", e.Agent.ID)
			c.Response().Header().Set("Retry-After", "10")
			return echo.NewHTTPError(http.StatusServiceUnavailable, "The token issuer cannot be reached; try again")
		case err != nil:
			s.opts.Logger.Error(err, "endpoint auth is misconfigured; refusing requests", "agent", e.Agent.ID)
			return echo.NewHTTPError(http.StatusInternalServerError, "Endpoint authentication is misconfigured")
		case !res.ok:
			if res.bearer {
				c.Response().Header().Set("WWW-Authenticate", res.challenge())
			}
			if res.reason != "" {
				return echo.NewHTTPError(http.StatusUnauthorized, "Unauthorized: "+res.reason)
			}
			return echo.NewHTTPError(http.StatusUnauthorized, "Unauthorized")
		}
		// Only now is the user worth anything: before auth, anyone could rotate the header. A
		// verified token's subject is the user, whatever the header says.
		user := c.Request().Header.Get(lim.userHeader)
		if res.caller.Subject != "" {
			user = "jwt\x00" + res.caller.Issuer + "\x00" + res.caller.Subject
			c.Set(callerKey, res.caller)
			// Tools read the verified caller from the run's context (Tool callerIdentity).
			c.SetRequest(c.Request().WithContext(jwtauth.WithCaller(c.Request().Context(), res.caller)))
		}
		if user != "" {
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

// callerKey holds the verified caller (jwtauth.Caller) of a request that sent a bearer JWT.
const callerKey = "agentry.caller"

// authChecker compares the configured header values in constant time and verifies bearer JWTs.
type authChecker struct {
	secrets secrets.Source
	mu      sync.Mutex
	cache   map[string]cachedHeaders
	// jwt is each agent's verifier, replaced when its settings change; client reads issuers
	// (internal addresses allowed: an in-cluster issuer; metadata and link-local never).
	jwt    map[string]agentVerifier
	client *http.Client
	// sa is each agent's verifier of the cluster's ServiceAccount tokens; cluster reads the
	// cluster's issuer once for all of them.
	sa      map[string]saVerifier
	cluster *clusterIssuer
}

type agentVerifier struct {
	// cfg is the manifest's settings the verifier was made for: the same pointer until the
	// registry reloads; settings is their JSON, compared only then, so an unchanged reload
	// keeps the verifier (and its keys and remembered tokens).
	cfg      *v1alpha1.JWTAuth
	settings string
	v        *jwtauth.Verifier
}

// authResult is what check found: ok, and for a bearer JWT the caller, or why it was refused
// (reason: safe to show, never the token).
type authResult struct {
	ok     bool
	caller jwtauth.Caller
	// bearer: the agent accepts bearer JWTs, so a refusal carries a WWW-Authenticate challenge.
	bearer bool
	reason string
}

// challenge is the WWW-Authenticate value of a refusal (RFC 6750): no error when no token came.
func (r authResult) challenge() string {
	if r.reason == "" {
		return `Bearer realm="agentry"`
	}
	return fmt.Sprintf(`Bearer realm="agentry", error="invalid_token", error_description=%q`, r.reason)
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

// check lets a request in when the agent has no auth, when it carries every configured header
// with its exact value, or when its bearer token verifies (a JWT from the trusted issuer, or a
// ServiceAccount token from this cluster); with several set, any will do. An unreadable
// headers Secret is an error unless a token passes.
func (a *authChecker) check(r *http.Request, e *registry.Entry) (authResult, error) {
	ep := e.Manifest.Spec.Endpoint
	if ep == nil || ep.Auth == nil {
		return authResult{ok: true}, nil
	}
	var headersErr error
	if ref := ep.Auth.HeadersSecretRef; ref != nil {
		ok, err := a.headersMatch(r, ref.Name)
		if ok {
			return authResult{ok: true}, nil
		}
		headersErr = err
	}
	jwtCfg, accounts := ep.Auth.JWT, len(ep.Auth.ServiceAccounts) > 0
	if jwtCfg == nil && !accounts {
		return authResult{}, headersErr
	}
	res := authResult{bearer: true}
	tok := httpserve.BearerToken(r)
	if tok == "" {
		return res, headersErr
	}
	var refusals []*jwtauth.Refusal
	var errs []error
	try := func(v *jwtauth.Verifier, err error) (jwtauth.Caller, bool) {
		if err != nil {
			errs = append(errs, err)
			return jwtauth.Caller{}, false
		}
		caller, err := v.Verify(r.Context(), tok)
		var refused *jwtauth.Refusal
		switch {
		case err == nil:
			return caller, true
		case errors.As(err, &refused):
			refusals = append(refusals, refused)
		default:
			errs = append(errs, err)
		}
		return jwtauth.Caller{}, false
	}
	if jwtCfg != nil {
		if caller, ok := try(a.verifier(e.Agent.ID, jwtCfg)); ok {
			return authResult{ok: true, bearer: true, caller: caller}, nil
		}
	}
	if accounts {
		// A ServiceAccount is a service acting for its users, as a header Secret is: not a
		// person, so it is no caller whose subject binds memory or reaches tools.
		if _, ok := try(a.saVerifier(r.Context(), e)); ok {
			return authResult{ok: true}, nil
		}
	}
	// The refusal worth telling is from the verifier the token was meant for: another issuer
	// only when every verifier says so.
	for _, ref := range refusals {
		if !ref.OtherIssuer {
			res.reason = ref.Reason
			return res, nil
		}
	}
	if len(errs) > 0 {
		return res, errors.Join(errs...)
	}
	res.reason = refusals[0].Reason
	return res, nil
}

// verifier is the agent's verifier for cfg, made again when cfg changed.
func (a *authChecker) verifier(agentID string, cfg *v1alpha1.JWTAuth) (*jwtauth.Verifier, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	av, ok := a.jwt[agentID]
	if ok && av.cfg == cfg {
		return av.v, nil
	}
	b, _ := json.Marshal(cfg)
	if ok && av.settings == string(b) {
		a.jwt[agentID] = agentVerifier{cfg: cfg, settings: av.settings, v: av.v}
		return av.v, nil
	}
	v, err := jwtauth.New(manifest.JWTConfig(cfg), a.client)
	if err != nil {
		return nil, fmt.Errorf("failed to use spec.endpoint.auth.jwt of agent %q: %w", agentID, err)
	}
	if a.jwt == nil {
		a.jwt = map[string]agentVerifier{}
	}
	a.jwt[agentID] = agentVerifier{cfg: cfg, settings: string(b), v: v}
	return v, nil
}

// headersMatch reports whether the request carries every header of the Secret with its exact
// value.
func (a *authChecker) headersMatch(r *http.Request, name string) (bool, error) {
	want, err := a.headers(name)
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

// callerOf is the caller the request's bearer JWT verified (zero without one).
func callerOf(c echo.Context) jwtauth.Caller {
	caller, _ := c.Get(callerKey).(jwtauth.Caller)
	return caller
}

// boundResource is the memory resource (the user a thread belongs to) of a request: with a
// verified caller, its subject, and naming another resource is refused, so nobody reads or
// writes another person's thread by naming it; otherwise what the request names.
func boundResource(c echo.Context, named string) (string, error) {
	caller := callerOf(c)
	if caller.Subject == "" {
		return named, nil
	}
	if named != "" && named != caller.Subject {
		return "", echo.NewHTTPError(http.StatusForbidden, "The memory resource must be the token's subject")
	}
	return caller.Subject, nil
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
