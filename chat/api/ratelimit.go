package api

import (
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/platform/ratelimit"
)

// Default per-user request budget of `agentry chat` (Options.RateLimit, RateBurst): a person's
// client needs a few requests a second, with a burst when it opens (lists, pages, receipts);
// a runaway script of one user should not take the service from everyone else.
const (
	DefaultRateLimit = 20
	DefaultRateBurst = 100
)

// Throttles of failures: a client address may get credentials wrong 20 times at once, then
// once every 3 s; a user may get one group's password wrong 5 times, then once a minute.
// Past that, 429 ERR_RATE_LIMITED with Retry-After, before the credentials are looked at.
const (
	authFailureBurst     = 20
	authFailureEvery     = 3 * time.Second
	passwordFailureBurst = 5
	passwordFailureEvery = time.Minute
)

var (
	authFailures     = ratelimit.Rate{Every: authFailureEvery, Burst: authFailureBurst}
	passwordFailures = ratelimit.Rate{Every: passwordFailureEvery, Burst: passwordFailureBurst}
)

// Keys of the one limiter table: a user's request budget, a client address's failed
// credentials, a user's failed passwords of one group.
func userKey(uid string) string           { return "user\x00" + uid }
func addressKey(ip string) string         { return "address\x00" + ip }
func passwordKey(uid, guid string) string { return "password\x00" + uid + "\x00" + guid }

// rateLimit refuses a signed-in user's request past their budget with 429 ERR_RATE_LIMITED and
// Retry-After. Server routes (the REST API key) are not limited: they are the operator's own
// backend.
func (a *API) rateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if wait := a.limits.Take(userKey(uidOf(c)), a.userRate); wait > 0 {
			ratelimit.SetRetryAfter(c.Response().Header(), wait)
			return model.Errorf(model.ErrRateLimited, "too many requests from this user: retry in %s", wait.Round(time.Millisecond))
		}
		return next(c)
	}
}

// throttled answers 429 when key has used up its failures.
func (a *API) throttled(c echo.Context, key string, r ratelimit.Rate, what string) error {
	if wait := a.limits.Wait(key, r); wait > 0 {
		ratelimit.SetRetryAfter(c.Response().Header(), wait)
		return model.Errorf(model.ErrRateLimited, "too many %s: retry in %s", what, wait.Round(time.Second))
	}
	return nil
}

// authThrottled refuses a client address that failed credentials too often.
func (a *API) authThrottled(c echo.Context) error {
	return a.throttled(c, addressKey(c.RealIP()), authFailures, "failed sign-ins from this address")
}

// authFailed counts a wrong credential against the client's address.
func (a *API) authFailed(c echo.Context) {
	a.limits.Spend(addressKey(c.RealIP()), authFailures)
}
