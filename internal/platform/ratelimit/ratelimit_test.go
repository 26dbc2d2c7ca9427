package ratelimit

import (
	"fmt"
	"net/http"
	"runtime"
	"testing"
	"time"
)

func fixedClock(l *Limiter, t time.Time) *time.Time {
	now := t
	l.now = func() time.Time { return now }
	return &now
}

// TestGCRA: 60 a minute with a burst of 3 allows three at once, then one a second; a refused
// request spends nothing; a zero rate does not limit.
func TestGCRA(t *testing.T) {
	l := New(10)
	now := fixedClock(l, time.Unix(1000, 0))
	r := PerMinute(60, 3)
	for i := 0; i < 3; i++ {
		if w := l.Take("k", r); w != 0 {
			t.Fatalf("burst request %d waited %v", i, w)
		}
	}
	if w := l.Take("k", r); w != time.Second {
		t.Fatalf("fourth request: wait %v, want 1s", w)
	}
	*now = now.Add(time.Second)
	if w := l.Take("k", r); w != 0 {
		t.Fatalf("after a second: wait %v", w)
	}
	if w := l.Take("k", r); w <= 0 {
		t.Fatal("the refill is one request per second")
	}
	*now = now.Add(time.Second)
	if w := l.Take("k", r); w != 0 {
		t.Fatalf("refused requests must not spend budget: wait %v", w)
	}
	if l.Take("off", PerMinute(0, 0)) != 0 || l.Take("off", PerSecond(0, 10)) != 0 {
		t.Fatal("a zero rate must not limit")
	}
}

// TestPerUserBudget: 2 a second, 3 at once, per key; after the wait exactly one more; keys
// whose budget is whole again are swept once a minute.
func TestPerUserBudget(t *testing.T) {
	l := New(0)
	now := fixedClock(l, time.Unix(1_800_000_000, 0))
	r := PerSecond(2, 3)
	for i := range 3 {
		if w := l.Take("a", r); w != 0 {
			t.Fatalf("request %d of the burst refused", i+1)
		}
	}
	if w := l.Take("a", r); w != 500*time.Millisecond {
		t.Fatalf("past the burst: wait=%v, want refused for 500ms", w)
	}
	if w := l.Take("b", r); w != 0 {
		t.Fatal("another user shares the first one's bucket")
	}
	*now = now.Add(500 * time.Millisecond)
	if w := l.Take("a", r); w != 0 {
		t.Fatal("refused after waiting as told")
	}
	if w := l.Take("a", r); w == 0 {
		t.Fatal("allowed twice after one refill")
	}
	*now = now.Add(2 * time.Minute)
	l.Take("c", r)
	if n := l.Len(); n != 1 {
		t.Fatalf("%d keys after the sweep, want only c's", n)
	}
}

// TestThrottleOfFailures: Wait looks without spending; Spend counts a failure; once the
// failures are spent, Wait says how long until the next attempt.
func TestThrottleOfFailures(t *testing.T) {
	l := New(0)
	now := fixedClock(l, time.Unix(1_800_000_000, 0))
	r := Rate{Every: 3 * time.Second, Burst: 2}
	for range 5 {
		if w := l.Wait("ip", r); w != 0 {
			t.Fatalf("looking spent the budget: %v", w)
		}
	}
	l.Spend("ip", r)
	l.Spend("ip", r)
	if w := l.Wait("ip", r); w != 3*time.Second {
		t.Fatalf("after two failures: wait %v, want 3s", w)
	}
	l.Spend("ip", r) // nothing left: spends nothing
	*now = now.Add(3 * time.Second)
	if w := l.Wait("ip", r); w != 0 {
		t.Fatalf("after the refill: wait %v", w)
	}
}

// TestBounded: a million distinct keys (random user ids or addresses) stay within the bound,
// and the most recent keys are the ones kept.
func TestBounded(t *testing.T) {
	l := New(DefaultMaxKeys)
	// A fixed clock: a key's state must not lapse while the GC below runs on a loaded machine.
	fixedClock(l, time.Unix(1_800_000_000, 0))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := PerMinute(600, 100)
	for i := 0; i < 1_000_000; i++ {
		l.Take(fmt.Sprintf("agent\x00ip\x00198.51.%d.%d", i>>8, i&0xff), r)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if n := l.Len(); n != DefaultMaxKeys {
		t.Fatalf("keys held: %d, want the bound %d", n, DefaultMaxKeys)
	}
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("heap after 1,000,000 keys: +%.1f MiB for %d held keys", float64(grown)/(1<<20), l.Len())
	if grown > 48<<20 {
		t.Fatalf("the table grew the heap by %d MiB, want under 48 MiB", grown>>20)
	}
	if w := l.Take("agent\x00ip\x00198.51.3906.63", PerMinute(1, 1)); w == 0 {
		t.Fatal("a recently used key must keep its state")
	}
}

func TestRetryAfter(t *testing.T) {
	for wait, want := range map[time.Duration]string{time.Millisecond: "1", time.Second: "1", 1500 * time.Millisecond: "2", 2 * time.Minute: "120"} {
		h := http.Header{}
		SetRetryAfter(h, wait)
		if got := h.Get("Retry-After"); got != want {
			t.Errorf("Retry-After for %v: %q, want %q", wait, got, want)
		}
	}
}
