package hub

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestSlowConsumerIsDroppedOthersKeepUp: a socket that stops reading fills its queue and is
// closed with 4008, while ten readers of the same group get every event promptly.
func TestSlowConsumerIsDroppedOthersKeepUp(t *testing.T) {
	e := newEnv(t, Options{QueueSize: 16}, newMemLog(), true)
	var uids []string
	for i := range 11 {
		uids = append(uids, fmt.Sprintf("u%02d", i))
	}
	e.log.setMembers("group_g", uids...)
	slow := e.connectPaused("u00", nil, true)
	var fast []*client
	for _, uid := range uids[1:] {
		fast = append(fast, e.connect(uid, nil))
	}

	// Commits come in rounds of 8, within the queue of a socket that keeps up; the slow one
	// falls further behind each round. Each round's latency (commit to arrival at every
	// reader) is measured and checked only against a generous bound: the machine is shared.
	const n, round = 240, 8
	payload := strings.Repeat("x", 2<<10)
	var worst time.Duration
	for r := 0; r < n/round; r++ {
		start := time.Now()
		var lastPos int64
		for i := range round {
			lastPos = e.commit("group_g", model.EventMessageCreated, "", map[string]any{"i": r*round + i, "text": payload}).Pos
		}
		for _, c := range fast {
			eventually(t, 10*time.Second, c.uid+" to receive the round", func() bool { _, l := c.snapshot(); return l >= lastPos })
		}
		worst = max(worst, time.Since(start))
	}
	eventually(t, 10*time.Second, "the slow socket to be dropped", func() bool { return e.hub.Stats().Dropped >= 1 })
	if d := e.hub.Stats().Dropped; d != 1 {
		t.Errorf("%d sockets dropped; only the slow one should be", d)
	}
	for _, c := range fast {
		got, _ := c.snapshot()
		checkDelivery(t, c.uid, got, e.log.expected(c.uid, c.ready.Pos))
	}
	t.Logf("worst round latency (commit to all %d readers): %v", len(fast), worst)
	if worst > 5*time.Second {
		t.Errorf("readers were held up: %v", worst)
	}

	// The slow client reads again: it finds what was buffered, then the 4008 close.
	slow.start()
	if code := slow.waitClosed(t, 10*time.Second); code != CloseTooSlow {
		t.Errorf("slow socket closed with %v, want %v", code, CloseTooSlow)
	}
	got, last := slow.snapshot()
	if len(got) >= n {
		t.Errorf("the slow socket got all %d events; it was never slow", len(got))
	}
	// It resumes from its last pos and gets the rest.
	again := e.connect("u00", &last)
	eventually(t, 10*time.Second, "the resumed socket to catch up", func() bool {
		_, l := again.snapshot()
		return l >= int64(n)
	})
	more, _ := again.snapshot()
	checkDelivery(t, "u00", append(got, more...), e.log.expected("u00", slow.ready.Pos))
}

// TestResetWhenResumeIsTooOld: a resume from before the horizon, or ahead of the log, gets a
// reset with the newest pos and then live events; one just inside the horizon replays.
func TestResetWhenResumeIsTooOld(t *testing.T) {
	e := newEnv(t, Options{}, newMemLog(), false)
	e.log.setMembers("group_g", "a")
	for i := range 20 {
		e.commit("group_g", model.EventMessageCreated, "", i)
	}
	e.log.mu.Lock()
	e.log.oldest = 10 // events 1–9 were pruned
	e.log.mu.Unlock()

	tooOld, ahead, inside := int64(3), int64(100), int64(9)
	old := e.connect("a", &tooOld)
	fut := e.connect("a", &ahead)
	in := e.connect("a", &inside)
	live := e.commit("group_g", model.EventMessageCreated, "", "live")
	for _, c := range []*client{old, fut} {
		eventually(t, 5*time.Second, "reset and the live event", func() bool {
			_, last := c.snapshot()
			return last == live.Pos
		})
		c.mu.Lock()
		if len(c.resets) != 1 || c.resets[0] != 20 || len(c.events) != 1 || c.events[0].Pos != live.Pos {
			t.Errorf("resume %v: resets %v, events %v; want reset 20 then pos %d", c.ready, c.resets, c.events, live.Pos)
		}
		c.mu.Unlock()
	}
	eventually(t, 5*time.Second, "replay from 10", func() bool { _, last := in.snapshot(); return last == live.Pos })
	got, _ := in.snapshot()
	checkDelivery(t, "a", got, e.log.expected("a", 9))
	// 10–20 replayed, and the live event too when it committed before the replay read it.
	if s := e.hub.Stats(); s.Resets != 2 || s.Replayed < 11 || s.Replayed > 12 {
		t.Errorf("stats = %+v, want 2 resets and 11 or 12 replayed", s)
	}
}

// TestResetWhenReplayIsTooLong: past ReplayLimit the client gets a reset instead of the rest.
func TestResetWhenReplayIsTooLong(t *testing.T) {
	e := newEnv(t, Options{ReplayLimit: 5, PageSize: 5}, newMemLog(), false)
	e.log.setMembers("group_g", "a")
	for i := range 20 {
		e.commit("group_g", model.EventMessageCreated, "", i)
	}
	from := int64(0)
	c := e.connect("a", &from)
	eventually(t, 5*time.Second, "a reset", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return len(c.resets) == 1 })
	got, last := c.snapshot()
	if len(got) != 5 || last != 20 {
		t.Errorf("got %d events and last %d; want 5 replayed and a reset to 20", len(got), last)
	}
}

// TestAuthFailures: a bad token, a first frame that is not auth and silence all end in 4001.
func TestAuthFailures(t *testing.T) {
	e := newEnv(t, Options{AuthTimeout: 200 * time.Millisecond}, newMemLog(), false)
	cases := map[string]any{
		"bad token":      map[string]any{"type": "auth", "token": "nope"},
		"empty token":    map[string]any{"type": "auth"},
		"not auth first": map[string]any{"type": "typing", "conversationId": "group_g"},
		"silence":        nil,
	}
	for name, first := range cases {
		t.Run(name, func(t *testing.T) {
			conn := dialRaw(t, e.url, false)
			defer func() { _ = conn.CloseNow() }()
			if first != nil {
				sendJSON(t, conn, first)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, data, err := conn.Read(ctx)
			if code := websocket.CloseStatus(err); code != CloseUnauthorized {
				t.Errorf("read = %s, %v; want close %v", data, err, CloseUnauthorized)
			}
		})
	}
	if s := e.hub.Stats(); s.Sockets != 0 {
		t.Errorf("sockets = %d", s.Sockets)
	}
}

// TestHeartbeatClosesDeadPeer: a peer that stops answering pings is closed; one that answers
// stays through many heartbeats.
func TestHeartbeatClosesDeadPeer(t *testing.T) {
	// The live peer's pongs may take a while on a loaded machine; the timeout only delays the
	// dead peer's close.
	e := newEnv(t, Options{Heartbeat: 20 * time.Millisecond, HeartbeatTimeout: time.Second}, newMemLog(), false)
	alive := e.connect("alive", nil)
	dead := e.connectPaused("dead", nil, false) // never reads again, so never answers a ping
	eventually(t, 5*time.Second, "the dead peer to be closed", func() bool { return e.hub.Stats().Sockets == 1 })
	select {
	case <-alive.done:
		t.Fatalf("the live peer was closed: %v", alive.closeErr)
	default:
	}
	// The server closed the dead peer's connection: reading now fails.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, _, err := dead.conn.Read(ctx); err == nil || ctx.Err() != nil {
		t.Errorf("dead peer read = %v; want the server to have closed it", err)
	}
}

// TestTyping: a typing frame reaches the conversation's other members only; non-members
// cannot send one.
func TestTyping(t *testing.T) {
	e := newEnv(t, Options{}, newMemLog(), false)
	e.log.setMembers("group_g", "a", "b", "c")
	a, b, c, d := e.connect("a", nil), e.connect("b", nil), e.connect("c", nil), e.connect("d", nil)

	sendJSON(t, a.conn, map[string]any{"type": "typing", "conversationId": "group_g", "started": true})
	sendJSON(t, a.conn, map[string]any{"type": "ack", "pos": 1}) // ignored
	eventually(t, 5*time.Second, "typing at b and c", func() bool { return e.hub.Stats().Typing == 2 })
	e.hub.Typing("d", "group_g", true) // not a member: nothing
	e.hub.Typing("b", "group_g", false)
	if s := e.hub.Stats(); s.Typing != 4 {
		t.Errorf("typing frames queued = %d, want 4", s.Typing)
	}
	// A stored event after the typing frames marks the end of what each socket will get.
	mark := e.commit("group_g", model.EventMessageCreated, "", "mark")
	dmark := e.commit("", model.EventGroupCreated, "d", "mark")
	for _, cl := range []*client{a, b, c} {
		eventually(t, 5*time.Second, cl.uid+" marker", func() bool { _, l := cl.snapshot(); return l == mark.Pos })
	}
	eventually(t, 5*time.Second, "d marker", func() bool { _, l := d.snapshot(); return l == dmark.Pos })

	want := map[string][]string{"a": {"b:typing.ended"}, "b": {"a:typing.started"}, "c": {"a:typing.started", "b:typing.ended"}, "d": nil}
	for _, cl := range []*client{a, b, c, d} {
		cl.mu.Lock()
		var got []string
		for _, ev := range cl.typing {
			got = append(got, strings.SplitN(string(ev.Data), `"uid":"`, 2)[1][:1]+":"+ev.Type)
		}
		cl.mu.Unlock()
		if fmt.Sprint(got) != fmt.Sprint(want[cl.uid]) {
			t.Errorf("%s typing = %v, want %v", cl.uid, got, want[cl.uid])
		}
	}
}

// TestMembershipFollowsTheLog: a joiner sees its join and what follows; a kicked member sees
// its kick and nothing after; a target sees its own events whatever its membership.
func TestMembershipFollowsTheLog(t *testing.T) {
	e := newEnv(t, Options{}, newMemLog(), false)
	e.log.setMembers("group_g", "a", "b")
	a, b, c := e.connect("a", nil), e.connect("b", nil), e.connect("c", nil)
	// The hub loads a conversation's members when it first sees it, as they are then; from
	// there on the log's membership events keep them. Warm it before the changes.
	warm := e.commit("group_g", model.EventMessageCreated, "", "warm")
	eventually(t, 5*time.Second, "warm-up", func() bool { _, l := a.snapshot(); return l == warm.Pos })

	m1 := e.commit("group_g", model.EventMessageCreated, "", "one")
	join := e.commit("group_g", model.EventMemberJoined, "", map[string]string{"uid": "c"})
	m2 := e.commit("group_g", model.EventMessageCreated, "", "two")
	kick := e.commit("group_g", model.EventMemberKicked, "b", map[string]string{"by": "a"})
	m3 := e.commit("group_g", model.EventMessageCreated, "", "three")
	bmark := e.commit("", model.EventGroupCreated, "b", "mark")
	cmark := e.commit("", model.EventGroupCreated, "c", "mark")

	want := map[*client][]int64{
		a: {warm.Pos, m1.Pos, join.Pos, m2.Pos, kick.Pos, m3.Pos},
		b: {warm.Pos, m1.Pos, join.Pos, m2.Pos, kick.Pos, bmark.Pos},
		c: {join.Pos, m2.Pos, kick.Pos, m3.Pos, cmark.Pos},
	}
	for cl, w := range want {
		eventually(t, 5*time.Second, cl.uid+" events", func() bool { _, l := cl.snapshot(); return l == w[len(w)-1] })
		got, _ := cl.snapshot()
		var pos []int64
		for _, ev := range got {
			pos = append(pos, ev.Pos)
		}
		if fmt.Sprint(pos) != fmt.Sprint(w) {
			t.Errorf("%s got %v, want %v", cl.uid, pos, w)
		}
	}
}

// TestShutdownClosesSockets: ending Run closes every socket with 1001 and refuses new ones.
func TestShutdownClosesSockets(t *testing.T) {
	l := newMemLog()
	h := New(Options{Events: l, Authenticate: testAuth})
	ctx, cancel := context.WithCancel(context.Background())
	runDone := make(chan error, 1)
	go func() { runDone <- h.Run(ctx) }()
	srv := newTestServer(h)
	defer srv.Close()
	e := &env{t: t, hub: h, log: l, url: "ws" + strings.TrimPrefix(srv.URL, "http")}
	c1, c2 := e.connect("a", nil), e.connect("b", nil)

	cancel()
	if err := <-runDone; err != nil {
		t.Fatalf("Run: %v", err)
	}
	for _, c := range []*client{c1, c2} {
		if code := c.waitClosed(t, 5*time.Second); code != websocket.StatusGoingAway {
			t.Errorf("%s closed with %v (%v), want going away", c.uid, code, c.closeErr)
		}
	}
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Get(srv.URL)
	testutil.Check(t, err)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("after shutdown: %d", resp.StatusCode)
	}
}

// TestTypingBeforeTheFirstMessage: a one-to-one conversation has no members until its first
// message, yet typing reaches the other user (named by the conversation id).
func TestTypingBeforeTheFirstMessage(t *testing.T) {
	e := newEnv(t, Options{}, newMemLog(), false)
	a, b, x := e.connect("a", nil), e.connect("b_c", nil), e.connect("x", nil)
	e.hub.Typing("a", "user_a_user_b_c", true)
	e.hub.Typing("x", "user_a_user_b_c", true) // not one of the pair: nothing
	eventually(t, 5*time.Second, "typing at b_c", func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.typing) == 1 })
	if s := e.hub.Stats(); s.Typing != 1 {
		t.Errorf("typing frames queued = %d, want 1", s.Typing)
	}
	for _, c := range []*client{a, x} {
		c.mu.Lock()
		if len(c.typing) != 0 {
			t.Errorf("%s got typing %v", c.uid, c.typing)
		}
		c.mu.Unlock()
	}
}

// TestTypingIsLimitedPerSecond: a socket's typing frames are relayed at most TypingPerSecond in
// any one second (the documented limit), however many arrive; the next second admits more.
// The limit's clock stands still during the burst and moves a second on for the last frame,
// so a loaded machine handling the frames slowly changes nothing.
func TestTypingIsLimitedPerSecond(t *testing.T) {
	var calls, offset atomic.Int64 // frames the limit has seen; the clock's advance
	t0 := time.Now()
	typingClock = func() time.Time { calls.Add(1); return t0.Add(time.Duration(offset.Load())) }
	t.Cleanup(func() { typingClock = time.Now }) // after the hub below has stopped
	e := newEnv(t, Options{}, newMemLog(), false)
	e.log.setMembers("group_g", "a", "b")
	a := e.connect("a", nil)
	e.connect("b", nil)
	for i := 0; i < 30; i++ {
		sendJSON(t, a.conn, map[string]any{"type": "typing", "conversationId": "group_g", "started": i%2 == 0})
	}
	eventually(t, 10*time.Second, "the reader to handle all 30", func() bool { return calls.Load() == 30 })
	if n := e.hub.Stats().Typing; n != TypingPerSecond {
		t.Fatalf("%d typing frames relayed from a burst of 30, want %d", n, TypingPerSecond)
	}
	offset.Store(int64(time.Second))
	sendJSON(t, a.conn, map[string]any{"type": "typing", "conversationId": "group_g", "started": false})
	eventually(t, 5*time.Second, "a frame a second later", func() bool { return e.hub.Stats().Typing == TypingPerSecond+1 })
}

func TestWindow(t *testing.T) {
	w := window{period: time.Second}
	t0 := time.Unix(1000, 0)
	got := 0
	for i := 0; i < 20; i++ { // 20 frames over 2 s: 100 ms apart
		if w.allow(t0.Add(time.Duration(i) * 100 * time.Millisecond)) {
			got++
		}
	}
	if got != 2*TypingPerSecond {
		t.Errorf("%d of 20 frames over two seconds admitted, want %d", got, 2*TypingPerSecond)
	}
}
