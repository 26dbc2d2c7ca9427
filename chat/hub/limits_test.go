package hub

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

// TestSocketsPerUserAreCapped: a user's socket past MaxSocketsPerUser closes the user's oldest
// with 4009; the newer ones and other users' sockets keep working.
func TestSocketsPerUserAreCapped(t *testing.T) {
	e := newEnv(t, Options{MaxSocketsPerUser: 3}, newMemLog(), false)
	e.log.setMembers("group_g", "a", "b")
	var socks []*client
	for range 4 {
		socks = append(socks, e.connect("a", nil))
	}
	other := e.connect("b", nil)
	if code := socks[0].waitClosed(t, 5*time.Second); code != CloseTooManySockets {
		t.Fatalf("the oldest socket closed with %d, want %d", code, CloseTooManySockets)
	}
	ev := e.commit("group_g", model.EventMessageCreated, "", "after")
	for _, c := range append(socks[1:], other) {
		eventually(t, 5*time.Second, c.uid+" gets the event", func() bool { _, l := c.snapshot(); return l == ev.Pos })
	}
	if s := e.hub.Stats(); s.Sockets != 4 || s.Evicted != 1 {
		t.Errorf("stats %+v, want 4 sockets and 1 evicted", s)
	}
}

// TestReplayIsBoundedInBytes: a replay stops at ReplayMaxBytes with a reset, however few events
// that is.
func TestReplayIsBoundedInBytes(t *testing.T) {
	e := newEnv(t, Options{ReplayMaxBytes: 16 << 10, PageSize: 10}, newMemLog(), false)
	e.log.setMembers("group_g", "a")
	big := strings.Repeat("x", 4<<10)
	for range 20 {
		e.commit("group_g", model.EventMessageCreated, "", big)
	}
	from := int64(0)
	c := e.connect("a", &from)
	eventually(t, 5*time.Second, "a reset", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return len(c.resets) == 1 })
	if got, last := c.snapshot(); len(got) < 3 || len(got) > 5 || last != 20 {
		t.Errorf("got %d events (last %d); want the ~16 KiB that fit (4), then a reset to 20", len(got), last)
	}
}

// slowLog serves EventsSince slowly, so replays overlap; user a's reads wait for hold.
type slowLog struct {
	*memLog
	hold   chan struct{}
	mu     sync.Mutex
	active map[string]int
	max    map[string]int
	total  int
	peak   int
}

func (l *slowLog) EventsSince(ctx context.Context, uid string, pos int64, limit int) ([]model.Event, error) {
	l.mu.Lock()
	l.active[uid]++
	l.total++
	l.max[uid] = max(l.max[uid], l.active[uid])
	l.peak = max(l.peak, l.total)
	l.mu.Unlock()
	if uid == "a" {
		<-l.hold
	}
	time.Sleep(20 * time.Millisecond)
	l.mu.Lock()
	l.active[uid]--
	l.total--
	l.mu.Unlock()
	return l.memLog.EventsSince(ctx, uid, pos, limit)
}

// TestReplaysAreFair: many sockets of one user resuming at once replay one at a time, never
// more than MaxReplays run together, and another user's resume is not stuck behind them all:
// b's replay ends while a's first one is still held.
func TestReplaysAreFair(t *testing.T) {
	l := &slowLog{memLog: newMemLog(), hold: make(chan struct{}), active: map[string]int{}, max: map[string]int{}}
	e := newEnv(t, Options{MaxReplays: 2, MaxSocketsPerUser: 50}, l, false)
	release := sync.OnceFunc(func() { close(l.hold) })
	t.Cleanup(release) // before the hub stops: a held replay would keep it waiting
	e.log = l.memLog
	l.setMembers("group_g", "a", "b")
	for i := range 5 {
		e.commit("group_g", model.EventMessageCreated, "", i)
	}
	from := int64(0)
	var wg sync.WaitGroup
	var ready atomic.Int64
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := e.connect("a", &from)
			ready.Add(1)
			eventually(t, 10*time.Second, "a's replay", func() bool { _, last := c.snapshot(); return last == 5 })
		}()
	}
	eventually(t, 10*time.Second, "a's sockets queued behind its first replay", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return ready.Load() == 10 && l.active["a"] == 1
	})
	b := e.connect("b", &from)
	eventually(t, 10*time.Second, "b's replay while a's first is held", func() bool { _, last := b.snapshot(); return last == 5 })
	release()
	wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.max["a"] != 1 || l.peak > 2 {
		t.Errorf("a had up to %d replays at once, all users %d; want 1 and at most 2", l.max["a"], l.peak)
	}
}
