package hub

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestPublishAllReachesEverySocket: PublishAll queues a frame to every connected socket,
// whatever its conversations (two sockets of one user both get it), and never waits for a
// socket that stopped reading: that one fills its bounded queue and is closed with 4008 while
// the readers get every frame in order.
func TestPublishAllReachesEverySocket(t *testing.T) {
	e := newEnv(t, Options{QueueSize: 16}, newMemLog(), true)
	slow := e.connectPaused("dave", nil, true)
	readers := []*client{e.connect("alice", nil), e.connect("alice", nil), e.connect("bob", nil), e.connect("carol", nil)}

	const n, round = 240, 8
	payload := strings.Repeat("x", 2<<10)
	var worst time.Duration
	for r := 0; r < n/round; r++ {
		start := time.Now()
		for i := range round {
			e.hub.PublishAll([]byte(fmt.Sprintf(`{"type":"agents.changed","agentId":"a%d","pad":%q}`, r*round+i, payload)))
		}
		worst = max(worst, time.Since(start))
		for _, c := range readers {
			eventually(t, 10*time.Second, c.uid+" to receive the round", func() bool {
				c.mu.Lock()
				defer c.mu.Unlock()
				return len(c.other) >= (r+1)*round
			})
		}
	}
	if worst > time.Second {
		t.Errorf("PublishAll was held up: %v for %d frames", worst, round)
	}
	eventually(t, 10*time.Second, "the slow socket to be dropped", func() bool { return e.hub.Stats().Dropped >= 1 })
	if s := e.hub.Stats(); s.Dropped != 1 {
		t.Errorf("%d sockets dropped; only the slow one should be", s.Dropped)
	}
	for _, c := range readers {
		c.mu.Lock()
		if len(c.other) != n {
			t.Errorf("%s got %d frames, want %d", c.uid, len(c.other), n)
		}
		for i, f := range c.other {
			if want := fmt.Sprintf(`"agentId":"a%d"`, i); !strings.Contains(string(f), want) {
				t.Errorf("%s frame %d = %.60s…, want %s (order kept)", c.uid, i, f, want)
				break
			}
		}
		c.mu.Unlock()
	}
	slow.start()
	if code := slow.waitClosed(t, 10*time.Second); code != CloseTooSlow {
		t.Errorf("slow socket closed with %v, want %v", code, CloseTooSlow)
	}
}
