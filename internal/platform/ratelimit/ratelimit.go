// Package ratelimit is the one keyed rate limiter of Agentry's HTTP services: the runtime's
// per-agent IP and user budgets, the chat's per-user budget and its throttles of failed
// credentials. It is GCRA (the generic cell rate algorithm: a token bucket kept as one
// timestamp per key) in a table bounded in size, and one way to tell a client when to retry.
package ratelimit

import (
	"container/list"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// DefaultMaxKeys bounds how many keys' state a Limiter keeps at once.
const DefaultMaxKeys = 100_000

// sweepEvery is how often keys whose budget is whole again are dropped.
const sweepEvery = time.Minute

// Rate is a budget: one request every Every on average, Burst of them at once. The zero Rate
// (or Every ≤ 0) does not limit.
type Rate struct {
	Every time.Duration
	Burst int
}

// PerMinute is n requests a minute, burst at once.
func PerMinute(n, burst int) Rate {
	if n <= 0 {
		return Rate{}
	}
	return Rate{Every: time.Minute / time.Duration(n), Burst: burst}
}

// PerSecond is f requests a second, burst at once.
func PerSecond(f float64, burst int) Rate {
	if f <= 0 {
		return Rate{}
	}
	return Rate{Every: time.Duration(float64(time.Second) / f), Burst: burst}
}

// Limiter keeps one GCRA state per key: the theoretical arrival time (TAT). A key whose TAT
// has passed has its whole burst back and is the same as a key never seen, so dropping it
// loses nothing: such keys are swept once a minute, and when the table is full the least
// recently used key goes (only a flood of distinct keys within one burst window can evict a
// key that still carries state, and the per-IP key a flood comes from is itself limited).
type Limiter struct {
	mu        sync.Mutex
	max       int
	items     map[string]*list.Element
	lru       *list.List // front: most recently used
	lastSweep time.Time
	now       func() time.Time
}

type entry struct {
	key string
	tat int64 // unix nanoseconds
}

// New returns a Limiter holding at most maxKeys keys (DefaultMaxKeys when ≤ 0).
func New(maxKeys int) *Limiter {
	if maxKeys <= 0 {
		maxKeys = DefaultMaxKeys
	}
	return &Limiter{max: maxKeys, items: make(map[string]*list.Element), lru: list.New(), now: time.Now}
}

// Take spends one request of key's budget. It returns 0 when the request is allowed, else how
// long until it would be (a refused request spends nothing).
func (l *Limiter) Take(key string, r Rate) time.Duration {
	return l.take(key, r, true)
}

// Wait says how long until key may spend a request, without spending one (0: it may now): a
// throttle of failures checks before the attempt and spends only on a failure (Spend).
func (l *Limiter) Wait(key string, r Rate) time.Duration {
	return l.take(key, r, false)
}

// Spend counts a failure against key's budget, if it has any left.
func (l *Limiter) Spend(key string, r Rate) {
	l.take(key, r, true)
}

func (l *Limiter) take(key string, r Rate, spend bool) time.Duration {
	if r.Every <= 0 {
		return 0
	}
	interval, burst := int64(r.Every), int64(max(r.Burst, 1))
	now := l.now().UnixNano()

	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	el, ok := l.items[key]
	var tat int64
	if ok {
		tat = el.Value.(*entry).tat
		l.lru.MoveToFront(el)
	}
	newTAT := max(tat, now) + interval
	if wait := newTAT - now - burst*interval; wait > 0 {
		return time.Duration(wait)
	}
	if !spend {
		return 0
	}
	if ok {
		el.Value.(*entry).tat = newTAT
		return 0
	}
	for l.lru.Len() >= l.max {
		oldest := l.lru.Back()
		l.lru.Remove(oldest)
		delete(l.items, oldest.Value.(*entry).key)
	}
	l.items[key] = l.lru.PushFront(&entry{key: key, tat: newTAT})
	return 0
}

// sweep drops the keys whose budget is whole again, at most once a minute; l.mu is held.
func (l *Limiter) sweep(now int64) {
	if now-l.lastSweep.UnixNano() < int64(sweepEvery) {
		return
	}
	l.lastSweep = time.Unix(0, now)
	for el := l.lru.Back(); el != nil; {
		prev := el.Prev()
		if e := el.Value.(*entry); e.tat <= now {
			l.lru.Remove(el)
			delete(l.items, e.key)
		}
		el = prev
	}
}

// Len reports how many keys are held.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.items)
}

// SetRetryAfter tells a refused client when to come back: whole seconds, rounded up, at least 1.
func SetRetryAfter(h http.Header, wait time.Duration) {
	h.Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
}
