package hub

import (
	"sync"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

// TestPruneLoop: with a Retention the hub prunes old events on its own, counts them, and a
// client resuming from before what is left gets a reset, then live events.
func TestPruneLoop(t *testing.T) {
	l := newMemLog()
	l.setMembers("group_g", "a")
	for i := range 10 {
		l.commit("group_g", model.EventMessageCreated, "", i)
	}
	time.Sleep(60 * time.Millisecond)
	e := newEnv(t, Options{Retention: 50 * time.Millisecond, PruneInterval: 10 * time.Millisecond}, l, false)
	eventually(t, 5*time.Second, "the old events pruned", func() bool { return e.hub.Stats().Pruned == 9 })
	if oldest, newest, _ := l.Horizon(t.Context()); oldest != 10 || newest != 10 {
		t.Fatalf("horizon %d..%d, want 10..10: the newest is kept", oldest, newest)
	}
	from := int64(2)
	c := e.connect("a", &from)
	live := e.commit("group_g", model.EventMessageCreated, "", "live")
	eventually(t, 5*time.Second, "reset and the live event", func() bool { _, last := c.snapshot(); return last == live.Pos })
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.resets) != 1 || c.resets[0] != 10 || len(c.events) != 1 {
		t.Errorf("resets %v, events %d; want one reset to 10 and the live event", c.resets, len(c.events))
	}
}

// TestPruneDuringReplay: events pruned while a resume replays them, before it read them, end
// the replay in a reset (the client reloads) rather than a silent gap.
func TestPruneDuringReplay(t *testing.T) {
	l := newMemLog()
	l.setMembers("group_g", "a")
	for i := range 20 {
		l.commit("group_g", model.EventMessageCreated, "", i)
	}
	l.commit("group_other", model.EventMessageCreated, "", "not a's") // newest: 21, which a does not see
	var once sync.Once
	l.beforeSince = func() {
		once.Do(func() {
			l.mu.Lock()
			l.oldest = 8 // another replica pruned 1–7 between the horizon read and the first page
			l.mu.Unlock()
		})
	}
	e := newEnv(t, Options{}, l, false)
	from := int64(3) // inside the horizon when the socket connected
	c := e.connect("a", &from)
	eventually(t, 5*time.Second, "a reset", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return len(c.resets) == 1 })
	got, last := c.snapshot()
	if last != 21 || len(got) != 13 || got[0].Pos != 8 {
		t.Errorf("got %d events, last %d; want 8–20 replayed, then a reset at 21", len(got), last)
	}
	c.mu.Lock()
	if c.resets[0] != 21 {
		t.Errorf("reset to %d, want the newest pos 21 (not the last replayed)", c.resets[0])
	}
	c.mu.Unlock()

	// Pruning that stays behind where a replay began costs nothing.
	l.beforeSince = nil
	l.mu.Lock()
	l.oldest = 10
	l.mu.Unlock()
	from = 12
	d := e.connect("a", &from)
	// Frames arrive in order: a reset after the replay would come before this live event.
	live := e.commit("group_g", model.EventMessageCreated, "", "live")
	eventually(t, 5*time.Second, "the replay and the live event", func() bool { _, last := d.snapshot(); return last == live.Pos })
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.resets) != 0 || len(d.events) != 9 {
		t.Errorf("resets %v, events %d; want 13–20, the live event and no reset", d.resets, len(d.events))
	}
}
