package store

import (
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

var _ = cases(
	behaviour{"events: pruning by age moves the horizon, in batches, and keeps the newest", func(t *testing.T, s Store) {
		defer func(n int) { pruneBatch = n }(pruneBatch)
		pruneBatch = 3 // several batches from a few events
		users(t, s, "a", "b")
		for i := 0; i < 5; i++ {
			send(t, s, text("a", "b", model.ReceiverUser, "old"))
		}
		time.Sleep(2 * time.Millisecond) // at_us has microseconds: keep the cut clear of both sides
		cut := time.Now()
		time.Sleep(2 * time.Millisecond)
		for i := 0; i < 4; i++ {
			send(t, s, text("b", "a", model.ReceiverUser, "new"))
		}
		before := allEvents(t, s)
		var old, kept []model.Event
		for _, e := range before {
			if e.At.Before(cut) {
				old = append(old, e)
			} else {
				kept = append(kept, e)
			}
		}
		if len(old) < 5 || len(kept) < 4 {
			t.Fatalf("events before the cut %d, after %d", len(old), len(kept))
		}

		if n := must[int64](t)(s.PruneEvents(ctx, time.Unix(0, 0))); n != 0 {
			t.Errorf("pruning before the first event deleted %d", n)
		}
		if n := must[int64](t)(s.PruneEvents(ctx, cut)); n != int64(len(old)) {
			t.Errorf("pruned %d, want the %d events before the cut", n, len(old))
		}
		oldest, newest, err := s.Horizon(ctx)
		if err != nil || oldest != kept[0].Pos || newest != kept[len(kept)-1].Pos {
			t.Errorf("horizon %d..%d (%v), want %d..%d", oldest, newest, err, kept[0].Pos, kept[len(kept)-1].Pos)
		}
		if got := must[[]model.Event](t)(s.EventsSince(ctx, "b", 0, 100)); len(got) != len(kept) || got[0].Pos != kept[0].Pos {
			t.Errorf("b replays %d events from %d, want %d", len(got), got[0].Pos, len(kept))
		}
		if got := must[[]model.Message](t)(s.ListMessages(ctx, "a", MessageQuery{UID: "b"})); len(got) != 9 {
			t.Errorf("pruning events lost messages: %d left", len(got))
		}

		// Everything is old now: all but the newest go, so a fresh socket still starts after it.
		if n := must[int64](t)(s.PruneEvents(ctx, time.Now().Add(time.Hour))); n != int64(len(kept)-1) {
			t.Errorf("pruned %d of the rest, want %d", n, len(kept)-1)
		}
		oldest, newest, err = s.Horizon(ctx)
		if err != nil || oldest != newest || newest != kept[len(kept)-1].Pos {
			t.Errorf("horizon after pruning all %d..%d (%v), want the newest %d", oldest, newest, err, kept[len(kept)-1].Pos)
		}
		next := send(t, s, text("a", "b", model.ReceiverUser, "after"))
		evs := must[[]model.Event](t)(s.EventsSince(ctx, "b", newest, 100))
		if len(evs) == 0 || evs[0].Pos <= newest || evs[len(evs)-1].Type != model.EventMessageCreated {
			t.Errorf("events after pruning %+v (message %d)", evs, next.ID)
		}
	}},
	behaviour{"events: pruning leaves no gap when times are out of pos order", func(t *testing.T, s Store) {
		users(t, s, "a", "b")
		for i := 0; i < 6; i++ {
			send(t, s, text("a", "b", model.ReceiverUser, "m"))
		}
		evs := allEvents(t, s)
		if len(evs) < 6 {
			t.Fatalf("%d events", len(evs))
		}
		// The third event's write began later than the events after it were written (a slow
		// transaction, or another replica's clock): it is newer than the cut, they are not.
		sq, ok := s.(*sqlStore)
		if pg, isPG := s.(*pgStore); isPG {
			sq, ok = pg.sqlStore, true
		}
		if !ok {
			t.Fatalf("store %T", s)
		}
		late := evs[2].Pos
		if _, err := sq.db.ExecContext(ctx, sq.d.rebind(`UPDATE chat_events SET at_us = $1 WHERE pos = $2`), us(time.Now().Add(2*time.Hour)), late); err != nil {
			t.Fatal(err)
		}
		if n := must[int64](t)(s.PruneEvents(ctx, time.Now().Add(time.Hour))); n != 2 {
			t.Errorf("pruned %d, want the 2 events before the late one (no gap after it)", n)
		}
		if oldest, _, _ := s.Horizon(ctx); oldest != late {
			t.Errorf("oldest %d, want %d", oldest, late)
		}
		if got := must[[]model.Event](t)(s.EventsSince(ctx, "b", late-1, 100)); len(got) != len(evs)-2 {
			t.Errorf("a resume from just before the late event replays %d, want %d", len(got), len(evs)-2)
		}
		if n := must[int64](t)(s.PruneEvents(ctx, time.Now().Add(3*time.Hour))); n != int64(len(evs)-3) {
			t.Errorf("pruned %d once the late one is old too, want %d (all but the newest)", n, len(evs)-3)
		}
	}},
)
