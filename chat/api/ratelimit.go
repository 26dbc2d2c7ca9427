package api

import (
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"github.com/agentry-dev/agentry/chat/model"
)

// Default per-user request budget of `agentry chat` (Options.RateLimit, RateBurst): a person's
// client needs a few requests a second, with a burst when it opens (lists, pages, receipts);
// a runaway script of one user should not take the service from everyone else.
const (
	DefaultRateLimit = 20
	DefaultRateBurst = 100
)

// keyedLimiter keeps one token bucket per key: a user (the request budget), a client address
// (failed credentials) or a user and group (failed group passwords). A bucket idle for as long as it takes to refill
// is the same as a new one, so such buckets are dropped (a sweep at most once a minute) and
// the map stays as large as the set of recently active users.
type keyedLimiter struct {
	limit rate.Limit
	burst int
	idle  time.Duration

	mu        sync.Mutex
	buckets   map[string]*keyedBucket
	lastSweep time.Time
}

type keyedBucket struct {
	l    *rate.Limiter
	seen time.Time
}

func newKeyedLimiter(perSecond float64, burst int) *keyedLimiter {
	if perSecond <= 0 {
		return nil
	}
	burst = max(burst, 1)
	refill := time.Duration(float64(burst) / perSecond * float64(time.Second))
	return &keyedLimiter{limit: rate.Limit(perSecond), burst: burst, idle: refill + time.Second, buckets: map[string]*keyedBucket{}}
}

// allow takes one token from uid's bucket; when there is none it says how long until there is.
func (l *keyedLimiter) allow(uid string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.bucket(uid, now)
	r := b.l.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now) // a refused request costs nothing
		return false, d
	}
	return true, 0
}

// spent says whether key has no token left, and how long until it has one, without taking one:
// a throttle of failures checks before the attempt and spends only on a failure.
func (l *keyedLimiter) spent(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		return false, 0
	}
	if tokens := b.l.TokensAt(now); tokens < 1 {
		return true, time.Duration((1 - tokens) / float64(l.limit) * float64(time.Second))
	}
	return false, 0
}

// spend takes a token from key's bucket (a failure), if it has one.
func (l *keyedLimiter) spend(key string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bucket(key, now).l.AllowN(now, 1)
}

// bucket returns key's bucket, sweeping idle ones at most once a minute; l.mu is held.
func (l *keyedLimiter) bucket(key string, now time.Time) *keyedBucket {
	if now.Sub(l.lastSweep) > time.Minute {
		for k, b := range l.buckets {
			if now.Sub(b.seen) > l.idle {
				delete(l.buckets, k)
			}
		}
		l.lastSweep = now
	}
	b := l.buckets[key]
	if b == nil {
		b = &keyedBucket{l: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[key] = b
	}
	b.seen = now
	return b
}

// rateLimit refuses a signed-in user's request past their budget with 429 ERR_RATE_LIMITED and
// Retry-After (whole seconds, at least 1). Server routes (the REST API key) are not limited:
// they are the operator's own backend.
func (a *API) rateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if a.limiter == nil {
			return next(c)
		}
		ok, wait := a.limiter.allow(uidOf(c), time.Now())
		if !ok {
			c.Response().Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
			return model.Errorf(model.ErrRateLimited, "too many requests from this user: retry in %s", wait.Round(time.Millisecond))
		}
		return next(c)
	}
}

// Throttles of failures: a client address may get credentials wrong 20 times at once, then
// once every 3 s; a user may get one group's password wrong 5 times, then once a minute.
// Past that, 429 ERR_RATE_LIMITED with Retry-After, before the credentials are looked at.
const (
	authFailureBurst     = 20
	authFailureEvery     = 3 * time.Second
	passwordFailureBurst = 5
	passwordFailureEvery = time.Minute
)

func newFailureLimiter(every time.Duration, burst int) *keyedLimiter {
	return newKeyedLimiter(1/every.Seconds(), burst)
}

// throttled answers 429 when key has used up its failures.
func throttled(c echo.Context, l *keyedLimiter, key, what string) error {
	blocked, wait := l.spent(key, time.Now())
	if !blocked {
		return nil
	}
	c.Response().Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
	return model.Errorf(model.ErrRateLimited, "too many %s: retry in %s", what, wait.Round(time.Second))
}

// authThrottled refuses a client address that failed credentials too often.
func (a *API) authThrottled(c echo.Context) error {
	return throttled(c, a.authFailures, c.RealIP(), "failed sign-ins from this address")
}

// authFailed counts a wrong credential against the client's address.
func (a *API) authFailed(c echo.Context) {
	a.authFailures.spend(c.RealIP(), time.Now())
}
