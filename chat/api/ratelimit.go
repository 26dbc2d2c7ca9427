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

// userLimiter keeps one token bucket per user. A bucket idle for as long as it takes to refill
// is the same as a new one, so such buckets are dropped (a sweep at most once a minute) and
// the map stays as large as the set of recently active users.
type userLimiter struct {
	limit rate.Limit
	burst int
	idle  time.Duration

	mu        sync.Mutex
	buckets   map[string]*userBucket
	lastSweep time.Time
}

type userBucket struct {
	l    *rate.Limiter
	seen time.Time
}

func newUserLimiter(perSecond float64, burst int) *userLimiter {
	if perSecond <= 0 {
		return nil
	}
	burst = max(burst, 1)
	refill := time.Duration(float64(burst) / perSecond * float64(time.Second))
	return &userLimiter{limit: rate.Limit(perSecond), burst: burst, idle: refill + time.Second, buckets: map[string]*userBucket{}}
}

// allow takes one token from uid's bucket; when there is none it says how long until there is.
func (l *userLimiter) allow(uid string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) > time.Minute {
		for k, b := range l.buckets {
			if now.Sub(b.seen) > l.idle {
				delete(l.buckets, k)
			}
		}
		l.lastSweep = now
	}
	b := l.buckets[uid]
	if b == nil {
		b = &userBucket{l: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[uid] = b
	}
	b.seen = now
	r := b.l.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now) // a refused request costs nothing
		return false, d
	}
	return true, 0
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
