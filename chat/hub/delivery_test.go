package hub

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

// groupsOf puts user i in two of five groups, so conversations overlap.
func groupsOf(i int) []string {
	return []string{fmt.Sprintf("group_g%d", i%5), fmt.Sprintf("group_g%d", (i/10)%5)}
}

func setupGroups(l *memLog, users int) map[string][]string {
	members := map[string][]string{}
	for i := range users {
		for _, g := range groupsOf(i) {
			u := fmt.Sprintf("u%02d", i)
			if len(members[g]) == 0 || members[g][len(members[g])-1] != u {
				members[g] = append(members[g], u)
			}
		}
	}
	for g, uids := range members {
		l.setMembers(g, uids...)
	}
	return members
}

// commitTraffic commits n messages per writer from several writers at once, to random groups,
// plus an event targeted at a random user every tenth message.
func commitTraffic(e *env, members map[string][]string, writers, n int, users int) {
	var groups []string
	for g := range members {
		groups = append(groups, g)
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for i := range n {
				g := groups[r.IntN(len(groups))]
				sender := members[g][r.IntN(len(members[g]))]
				e.commit(g, model.EventMessageCreated, "", map[string]any{"sender": sender, "text": fmt.Sprintf("w%d-%d", w, i)})
				if i%10 == 0 {
					e.commit("", model.EventGroupCreated, fmt.Sprintf("u%02d", r.IntN(users)), map[string]any{"n": i})
				}
			}
		}()
	}
	wg.Wait()
}

// TestFanOutManyClientsExactlyOnceInOrder: 50 sockets in overlapping groups while four
// writers commit; every socket gets every event its user may see, once, in seq order.
func TestFanOutManyClientsExactlyOnceInOrder(t *testing.T) {
	const users = 50
	e := newEnv(t, Options{}, newMemLog(), false)
	members := setupGroups(e.log, users)
	e.commit("group_g0", model.EventMessageCreated, "", "before anyone connected")

	clients := make([]*client, users)
	for i := range clients {
		clients[i] = e.connect(fmt.Sprintf("u%02d", i), nil)
	}
	commitTraffic(e, members, 4, 100, users)

	for _, c := range clients {
		want := e.log.expected(c.uid, c.ready.Pos)
		eventually(t, 10*time.Second, c.uid+" to receive everything", func() bool {
			got, _ := c.snapshot()
			return len(got) >= len(want)
		})
		got, _ := c.snapshot()
		if dups := checkDelivery(t, c.uid, got, want); dups != 0 {
			t.Errorf("%s: %d duplicates on a socket that never reconnected", c.uid, dups)
		}
	}
	if s := e.hub.Stats(); s.Sockets != users || s.Dropped != 0 {
		t.Errorf("stats = %+v", s)
	}
}

// TestRandomDisconnectsAndResumesLoseNothing: clients drop their sockets at random points
// (abruptly or with a close frame) and resume from their last pos while writers commit.
func TestRandomDisconnectsAndResumesLoseNothing(t *testing.T) {
	const users = 20
	e := newEnv(t, Options{}, newMemLog(), false)
	members := setupGroups(e.log, users)

	var got sync.Map // uid → []model.Event over all of its connections
	var reconnects, dropped atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			uid := fmt.Sprintf("u%02d", i)
			got.Store(uid, resumeUntilStopped(t, e, uid, rand.New(rand.NewPCG(uint64(i), 2)), stop, &reconnects, &dropped))
		}()
	}
	// Traffic goes on until sockets have come and gone many times; the pause only spreads
	// commits over the reconnections.
	for round := 0; round < 30 || reconnects.Load() < 150; round++ {
		commitTraffic(e, members, 2, 10, users)
		time.Sleep(time.Millisecond)
		if round > 5000 {
			t.Fatalf("only %d reconnections", reconnects.Load())
		}
	}
	close(stop)
	wg.Wait()

	dups := 0
	for i := range users {
		uid := fmt.Sprintf("u%02d", i)
		evs, _ := got.Load(uid)
		all, _ := evs.([]model.Event)
		dups += checkDelivery(t, uid, all, e.log.expected(uid, 0))
	}
	t.Logf("%d connections (%d closed by the server); duplicates after resumes (dropped by the SDK): %d", reconnects.Load(), dropped.Load(), dups)
}

// resumeUntilStopped connects uid again and again, from the start of the log and then from its
// last pos, each time until a random number of events arrived or the server closed the socket
// (too slow: resume, as the SDK does). After stop its last connection reads until everything
// committed is there. It returns the events of all its connections.
func resumeUntilStopped(t *testing.T, e *env, uid string, r *rand.Rand, stop <-chan struct{}, reconnects, dropped *atomic.Int64) []model.Event {
	var all []model.Event
	resume := int64(0) // from the start of the log: the test checks every event
	for {
		c := e.connect(uid, &resume)
		reconnects.Add(1)
		quota := 1 + r.IntN(20)
		stopping, serverClosed := false, false
		for !stopping && !serverClosed {
			if evs, _ := c.snapshot(); len(evs) >= quota {
				break
			}
			select {
			case <-stop:
				stopping = true
			case <-c.done:
				serverClosed = true
				dropped.Add(1)
			case <-time.After(2 * time.Millisecond):
			}
		}
		caughtUp := stopping && catchUp(t, e, c)
		if r.IntN(2) == 0 {
			_ = c.conn.CloseNow()
		} else {
			_ = c.conn.Close(1000, "bye")
		}
		<-c.done
		evs, last := c.snapshot()
		all = append(all, evs...)
		resume = last
		if caughtUp {
			return all
		}
	}
}

// catchUp reads on c until everything committed for its user is there: false when the server
// closed it first (the caller resumes), true otherwise (a failure when it never caught up).
func catchUp(t *testing.T, e *env, c *client) bool {
	want := e.log.expected(c.uid, 0)
	wantLast := want[len(want)-1].Pos
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, last := c.snapshot(); last >= wantLast {
			return true
		}
		select {
		case <-c.done:
			return false
		case <-time.After(2 * time.Millisecond):
		}
	}
	if isDone(c) {
		return false
	}
	t.Errorf("%s did not catch up to %d", c.uid, wantLast)
	return true // give up: report what arrived
}
