package hub

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestResumeResetsOnRealStores: on SQLite and PostgreSQL, a socket resuming from a position
// ahead of the log (a restored database) or from before what pruning left gets a reset to
// the newest pos, never a silent ready; one resuming inside the log gets a replay.
func TestResumeResetsOnRealStores(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) store.Store{
		"sqlite":   func(t *testing.T) store.Store { return sqliteWithUsers(t, "alice", "bob") },
		"postgres": func(t *testing.T) store.Store { s, _ := postgresReplicas(t, "alice", "bob"); return s },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			for i := range 10 {
				sendText(t, s, "alice", "bob", fmt.Sprint("before ", i))
			}
			e := newEnv(t, Options{}, s, false)
			_, newest, err := s.Horizon(ctx)
			testutil.Check(t, err)
			ahead := newest + 100
			c := e.connect("bob", &ahead)
			eventually(t, 5*time.Second, "a reset for a resume ahead of the log", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return len(c.resets) == 1 })
			if c.resets[0] != newest {
				t.Errorf("reset to %d, want the newest pos %d", c.resets[0], newest)
			}

			inside := newest - 3
			d := e.connect("bob", &inside)
			eventually(t, 5*time.Second, "a replay of 3", func() bool { evs, _ := d.snapshot(); return len(evs) == 3 })

			// Prune everything but the newest event (they are all older than "now + 1h").
			if _, err := s.PruneEvents(ctx, time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			if oldest, _, _ := s.Horizon(ctx); oldest != newest {
				t.Fatalf("after pruning the oldest pos is %d, want %d", oldest, newest)
			}
			pruned := newest - 5
			p := e.connect("bob", &pruned)
			eventually(t, 5*time.Second, "a reset for a resume before the pruned horizon", func() bool { p.mu.Lock(); defer p.mu.Unlock(); return len(p.resets) == 1 })
			sendText(t, s, "alice", "bob", "after")
			e.hub.Notify()
			eventually(t, 5*time.Second, "the live message after the reset", func() bool { return hasMessage(p, "after") })
			if evs, _ := p.snapshot(); len(evs) != 1 || evs[0].Type != model.EventMessageCreated {
				t.Errorf("after the reset the socket got %d events, want only the live one", len(evs))
			}
		})
	}
}

// TestExpiredTokenClosesItsSocket: a socket opened with a token that expires is closed with
// 4001 when it expires (REST answers 401 from then on); one on a token without expiry stays.
func TestExpiredTokenClosesItsSocket(t *testing.T) {
	ctx := context.Background()
	s := sqliteWithUsers(t, "alice")
	expires := time.Now().Add(1500 * time.Millisecond)
	if _, err := s.CreateToken(ctx, "alice", tokenHash("short-lived"), expires); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateToken(ctx, "alice", tokenHash("lasting"), time.Time{}); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{Authenticate: storeAuth(s)}, s, false)
	short := e.connectToken("alice", "short-lived", nil)
	lasting := e.connectToken("alice", "lasting", nil)
	if code := short.waitClosed(t, 10*time.Second); code != CloseUnauthorized {
		t.Fatalf("closed with %d, want %d", code, CloseUnauthorized)
	}
	// At the expiry: not before it (the store keeps microseconds), and not long after, however
	// long connecting took.
	if d := time.Since(expires); d < -10*time.Millisecond || d > 3*time.Second {
		t.Errorf("closed %s after the expiry, want at the expiry", d)
	}
	if isDone(lasting) {
		t.Error("the socket of a token without expiry closed too")
	}
}
