package server

import (
	"container/list"
	"sync"
	"time"
)

// DefaultRateLimitKeys bounds how many clients' rate state is kept at once.
const DefaultRateLimitKeys = 100_000

// rateTable is a bounded table of GCRA rate states keyed by client. GCRA keeps one timestamp
// per key (the theoretical arrival time, TAT): a key whose TAT has passed has its whole burst
// back and is indistinguishable from a key never seen, so dropping it loses nothing. When the
// table is full the least recently used key is dropped; only a flood of distinct keys within
// one burst window can evict a key that still carries state, and the per-IP key a flood comes
// from is itself limited.
type rateTable struct {
	mu    sync.Mutex
	max   int
	items map[string]*list.Element
	lru   *list.List // front: most recently used
	now   func() time.Time
}

type rateEntry struct {
	key string
	tat int64 // unix nanoseconds
}

func newRateTable(max int) *rateTable {
	if max <= 0 {
		max = DefaultRateLimitKeys
	}
	return &rateTable{max: max, items: make(map[string]*list.Element), lru: list.New(), now: time.Now}
}

// take spends one request of key's budget: perMinute sustained, burst at once. It returns 0
// when allowed, else how long until the request would be allowed (nothing is spent then).
func (t *rateTable) take(key string, perMinute, burst int) time.Duration {
	if perMinute <= 0 {
		return 0
	}
	burst = max(burst, 1)
	interval := int64(time.Minute) / int64(perMinute)
	now := t.now().UnixNano()

	t.mu.Lock()
	defer t.mu.Unlock()
	el, ok := t.items[key]
	var tat int64
	if ok {
		tat = el.Value.(*rateEntry).tat
	}
	newTAT := max(tat, now) + interval
	if wait := newTAT - now - int64(burst)*interval; wait > 0 {
		if ok {
			t.lru.MoveToFront(el)
		}
		return time.Duration(wait)
	}
	if ok {
		el.Value.(*rateEntry).tat = newTAT
		t.lru.MoveToFront(el)
		return 0
	}
	for t.lru.Len() >= t.max {
		oldest := t.lru.Back()
		t.lru.Remove(oldest)
		delete(t.items, oldest.Value.(*rateEntry).key)
	}
	t.items[key] = t.lru.PushFront(&rateEntry{key: key, tat: newTAT})
	return 0
}

// len reports how many keys are held.
func (t *rateTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.items)
}
