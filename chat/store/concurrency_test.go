package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestConcurrentSendsKeepSeqAndPosInOrder: 8 writers on one conversation; seq has no gaps or
// duplicates and pos order equals seq order.
func TestConcurrentSendsKeepSeqAndPosInOrder(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		uids := writers(t, s, 8)
		before := allEvents(t, s)
		const per = 10
		wait := sendConcurrently(s, uids, per)
		for _, err := range wait() {
			t.Fatal(err)
		}
		evs := allEvents(t, s)
		var seqs []int64
		for _, e := range evs {
			if e.ConversationID == "group_g" {
				seqs = append(seqs, e.Seq)
			}
		}
		if len(evs)-len(before) != len(uids)*per {
			t.Fatalf("%d new events, want %d", len(evs)-len(before), len(uids)*per)
		}
		for i, seq := range seqs {
			if seq != int64(i+1) {
				t.Fatalf("in pos order, event %d has seq %d: %v", i, seq, seqs)
			}
		}
		if !sort.SliceIsSorted(evs, func(i, j int) bool { return evs[i].Pos < evs[j].Pos }) {
			t.Error("EventsAfter is not in pos order")
		}
		msgs := must[[]model.Message](t)(s.ListMessages(ctx, "w0", MessageQuery{GUID: "g", Limit: 100, Categories: []string{model.CategoryMessage}}))
		if len(msgs) != len(uids)*per {
			t.Errorf("%d messages stored", len(msgs))
		}
	})
}

// TestConcurrentJoinAndBan: whichever commits first, a banned user never ends up a member.
func TestConcurrentJoinAndBan(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		users(t, s, "owner")
		group(t, s, "owner", "g", model.GroupPublic)
		for i := 0; i < 15; i++ {
			uid := fmt.Sprintf("u%d", i)
			users(t, s, uid)
			var wg sync.WaitGroup
			var joinErr, banErr error
			wg.Add(2)
			go func() { defer wg.Done(); _, joinErr = s.JoinGroup(ctx, uid, "g", nil) }()
			go func() { defer wg.Done(); banErr = s.BanMember(ctx, "owner", "g", uid) }()
			wg.Wait()
			wantCode(t, banErr, "")
			if joinErr != nil && model.CodeOf(joinErr) != model.ErrBanned {
				t.Fatalf("join: %v", joinErr)
			}
			if isMember(t, s, uid, "g") {
				t.Fatalf("banned %s is a member (join error %v)", uid, joinErr)
			}
		}
		g := must[model.Group](t)(s.GetGroup(ctx, "owner", "g"))
		banned := must[Page[model.Member]](t)(s.ListBanned(ctx, "owner", "g", MemberQuery{}))
		if g.MembersCount != 1 || len(banned.Items) != 15 {
			t.Errorf("members %d, banned %d", g.MembersCount, len(banned.Items))
		}
	})
}

// TestWakeAcrossReplicas: a commit through one store wakes another on the same PostgreSQL,
// which then reads the event; SQLite's Wake never fires.
func TestWakeAcrossReplicas(t *testing.T) {
	a, b := replicas(t)
	users(t, a, "alice", "bob")
	_, newest := must2(t)(b.Horizon(ctx))
	listening(t, a, b)
	m := send(t, a, text("alice", "bob", model.ReceiverUser, "across"))
	select {
	case <-b.Wake():
	case <-time.After(10 * time.Second):
		t.Fatal("B was not woken by A's commit")
	}
	evs := must[[]model.Event](t)(b.EventsAfter(ctx, newest, 0))
	if len(evs) != 1 || evs[0].Type != model.EventMessageCreated || evs[0].ConversationID != m.ConversationID {
		t.Errorf("B reads %+v", evs)
	}

	sq := open(t, "sqlite")
	users(t, sq, "x")
	select {
	case <-sq.Wake():
		t.Error("SQLite's Wake fired")
	case <-time.After(50 * time.Millisecond):
	}
}

// listening returns once b's listener hears a's notifications: it sends probes until one
// reaches b, then a fence, and empties b's broadcasts up to the fence (notifications arrive in
// commit order, so no probe is still on its way) and b's wake-up (the set-up's commits and the
// listener's own reach b before the first probe). It returns how many probes it took.
func listening(t *testing.T, a, b Store) int {
	t.Helper()
	deadline := time.After(30 * time.Second)
	probes := 0
	for got := false; !got; {
		probes++
		testutil.Check(t, a.Broadcast(ctx, []byte(`{"probe":true}`)))
		select {
		case <-b.Broadcasts():
			got = true
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatal("B's listener never heard A")
		}
	}
	testutil.Check(t, a.Broadcast(ctx, []byte(`{"fence":true}`)))
	for fenced := false; !fenced; {
		select {
		case f := <-b.Broadcasts():
			fenced = string(f) == `{"fence":true}`
		case <-deadline:
			t.Fatal("the fence never reached B")
		}
	}
	select {
	case <-b.Wake():
	default:
	}
	return probes
}

// TestBroadcastsDroppedOnArrivalAreCounted: a replica whose reader fell behind lets other
// replicas' ephemeral frames go once its buffer is full, and counts each one it let go.
func TestBroadcastsDroppedOnArrivalAreCounted(t *testing.T) {
	a, b := replicas(t)
	buffered := cap(b.Broadcasts())
	probes := listening(t, a, b)
	const sent = 1100
	for i := range sent {
		testutil.Check(t, a.Broadcast(ctx, []byte(fmt.Sprintf(`{"n":%d}`, i))))
	}
	// B reads nothing: all but the buffer's worth are let go, and counted. A last frame, let
	// go and counted too, shows that B has seen every frame before it.
	testutil.Check(t, a.Broadcast(ctx, []byte(`{"last":true}`)))
	want := uint64(sent - buffered)
	deadline := time.Now().Add(30 * time.Second)
	for b.BroadcastsDropped() < want+1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := b.BroadcastsDropped(); got < want+1 || got > want+uint64(probes) {
		t.Fatalf("B counted %d dropped with the last frame, want %d + 1 (%d sent, %d buffered, %d probes)", got, want, sent, buffered, probes)
	}
	if got := len(b.Broadcasts()); got != buffered {
		t.Errorf("B holds %d, want a full buffer of %d", got, buffered)
	}
	first := <-b.Broadcasts()
	for string(first) == `{"probe":true}` {
		first = <-b.Broadcasts()
	}
	if string(first) != `{"n":0}` {
		t.Errorf("B's first frame is %s: the buffer keeps the oldest", first)
	}
	if sq := open(t, "sqlite"); sq.BroadcastsDropped() != 0 {
		t.Error("SQLite counts drops")
	}
}

// TestWakeSurvivesPostgresRestart: the listener reconnects after the server restarts, and
// writes fail with ErrUnavailable while it is down.
func TestWakeSurvivesPostgresRestart(t *testing.T) {
	a, b := replicas(t)
	users(t, a, "alice", "bob")
	pg.Stop()
	_, err := a.SendMessage(ctx, text("alice", "bob", model.ReceiverUser, "down"))
	wantCode(t, err, model.ErrUnavailable)
	var me *model.Error
	// The cause (here "conn closed" or a dial error) is in the chain for logs, not in Message.
	if !errors.As(err, &me) || strings.Contains(me.Message, "127.0.0.1") || err.Error() == me.Error() {
		t.Errorf("message %q, chain %q", me.Message, err)
	}
	pg.Start()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err = a.SendMessage(ctx, text("alice", "bob", model.ReceiverUser, "up"))
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	wantCode(t, err, "")
	// The listener reconnects with backoff; every later commit wakes B.
	for {
		select {
		case <-b.Wake():
		case <-time.After(200 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("B's listener did not reconnect")
			}
			continue
		}
		break
	}
	for {
		select {
		case <-b.Wake():
			continue
		default:
		}
		break
	}
	send(t, a, text("alice", "bob", model.ReceiverUser, "again"))
	select {
	case <-b.Wake():
	case <-time.After(10 * time.Second):
		t.Fatal("B not woken after the restart")
	}
}

// TestPollingAfterSeesEveryMessage: a reader paging with After=<last id> while 16 writers send
// to one group sees every message, and message ids follow the order of their events (commit
// order): an id taken before the conversation's lock could commit after a larger one and be
// skipped by the reader.
func TestPollingAfterSeesEveryMessage(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		uids := writers(t, s, 16)
		// Poll from the group's newest message (the action message of its last join): After
		// 0 is no cursor, which ListMessages answers with the newest page, so a first poll
		// that comes after more than 100 sends (a starved reader) would skip the oldest.
		start := must[[]model.Message](t)(s.ListMessages(ctx, "w0", MessageQuery{GUID: "g", Limit: 1}))
		if len(start) != 1 {
			t.Fatalf("group g has %d messages before the sends, want its join messages", len(start))
		}
		const per = 12
		wait := sendConcurrently(s, uids, per)
		done := make(chan struct{})
		var errs []error
		go func() { errs = wait(); close(done) }()
		seen := map[int64]bool{}
		last := start[0].ID
		poll := func() {
			for {
				page, err := s.ListMessages(ctx, "w0", MessageQuery{GUID: "g", After: last, Limit: 100, Categories: []string{model.CategoryMessage}})
				testutil.Check(t, err)
				for _, m := range page {
					seen[m.ID] = true
					last = max(last, m.ID)
				}
				if len(page) < 100 {
					return
				}
			}
		}
		for running := true; running; {
			select {
			case <-done:
				running = false
			default:
			}
			poll()
		}
		poll()
		for _, err := range errs {
			t.Fatal(err)
		}
		if len(seen) != len(uids)*per {
			t.Errorf("the polling reader saw %d of %d messages", len(seen), len(uids)*per)
		}
		var ids []int64
		for _, e := range allEvents(t, s) {
			if e.Type != model.EventMessageCreated || e.ConversationID != "group_g" {
				continue
			}
			var m model.Message
			testutil.Check(t, json.Unmarshal(e.Data, &m))
			if m.Category == model.CategoryMessage {
				ids = append(ids, m.ID)
			}
		}
		if !sort.SliceIsSorted(ids, func(i, j int) bool { return ids[i] < ids[j] }) {
			t.Errorf("message ids in event (commit) order are not increasing: %v", ids)
		}
	})
}

// writers creates users w0…w<n-1> and the public group g (owner w0) with all of them.
func writers(t *testing.T, s Store, n int) []string {
	t.Helper()
	var uids []string
	for i := 0; i < n; i++ {
		uids = append(uids, fmt.Sprintf("w%d", i))
	}
	users(t, s, uids...)
	group(t, s, "w0", "g", model.GroupPublic, uids[1:]...)
	return uids
}

// sendConcurrently has each uid send per messages to group g at once; wait returns the errors.
func sendConcurrently(s Store, uids []string, per int) (wait func() []error) {
	return sendEach([]Store{s}, uids, per, func(int, int) (string, model.ReceiverType) { return "g", model.ReceiverGroup })
}

// sendEach has each uid send per messages at once: the i-th uid's j-th message through
// stores[i % len(stores)], to to(i, j) (the receiver and its type). wait returns the errors.
func sendEach(stores []Store, uids []string, per int, to func(i, j int) (string, model.ReceiverType)) (wait func() []error) {
	var wg sync.WaitGroup
	errs := make(chan error, len(uids))
	for i, uid := range uids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < per; j++ {
				receiver, typ := to(i, j)
				if _, err := stores[i%len(stores)].SendMessage(ctx, text(uid, receiver, typ, fmt.Sprintf("%s-%d", uid, j))); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	return func() []error {
		wg.Wait()
		close(errs)
		var out []error
		for err := range errs {
			out = append(out, err)
		}
		return out
	}
}
