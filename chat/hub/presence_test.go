package hub

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

type presenceLog struct {
	mu    sync.Mutex
	calls []string
}

func (p *presenceLog) record(_ context.Context, uids []string, online bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, fmt.Sprint(uids, online))
	return nil
}

func (p *presenceLog) get() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.calls...)
}

func waitCalls(t *testing.T, p *presenceLog, want ...string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := p.get()
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("presence calls %q, want %q", got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A user is online from its first socket to its last, confirmed while connected; a second
// socket changes nothing.
func TestPresenceFollowsTheUsersSockets(t *testing.T) {
	p := &presenceLog{}
	e := newEnv(t, Options{Presence: p.record, PresenceRefresh: time.Hour}, newMemLog(), false)
	a1 := e.connect("alice", nil)
	waitCalls(t, p, "[alice] true")
	a2 := e.connect("alice", nil)
	a1.close()
	eventually(t, 5*time.Second, "the first socket's end", func() bool { return e.hub.Stats().Sockets == 1 })
	waitCalls(t, p, "[alice] true")
	a2.close()
	waitCalls(t, p, "[alice] true", "[alice] false")
}

func TestPresenceIsConfirmedWhileConnected(t *testing.T) {
	p := &presenceLog{}
	e := newEnv(t, Options{Presence: p.record, PresenceRefresh: 50 * time.Millisecond}, newMemLog(), false)
	c := e.connect("bob", nil)
	defer c.close()
	deadline := time.Now().Add(5 * time.Second)
	for n := 0; n < 3; {
		n = 0
		for _, call := range p.get() {
			if call == "[bob] true" {
				n++
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("confirmations: %q", p.get())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
