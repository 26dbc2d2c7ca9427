package store

import (
	"errors"
	"sync"
	"testing"

	"github.com/agentry-dev/agentry/chat/model"
)

// TestNULIsAValidationError: text holding a NUL character is refused the same way on both
// backends (PostgreSQL cannot store it, SQLite would): ErrValidation, nothing written, never
// ErrUnavailable ("retry later").
func TestNULIsAValidationError(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		users(t, s, "a", "b")
		before := len(allEvents(t, s))
		_, err := s.CreateUser(ctx, model.User{UID: "c", Name: "C\x00"})
		wantCode(t, err, model.ErrValidation)
		_, err = s.SendMessage(ctx, text("a", "b", model.ReceiverUser, "hi\x00there"))
		wantCode(t, err, model.ErrValidation)
		_, err = s.CreateGroup(ctx, "a", model.Group{GUID: "g", Name: "G\x00", Type: model.GroupPublic}, nil)
		wantCode(t, err, model.ErrValidation)
		_, err = s.ListGroups(ctx, "a", GroupQuery{SearchKeyword: "x\x00"})
		wantCode(t, err, model.ErrValidation)
		if _, err := s.GetUser(ctx, "c"); model.CodeOf(err) != model.ErrUIDNotFound {
			t.Errorf("the refused user was stored: %v", err)
		}
		if n := len(allEvents(t, s)); n != before {
			t.Errorf("refused writes added %d events", n-before)
		}
	})
}

// TestRetriedSendIsStoredOnce: a send repeating its muid (the answer to the first was lost)
// stores nothing and returns the first message with ErrAlreadySent, also when the retries race
// each other; another sender may use the same muid.
func TestRetriedSendIsStoredOnce(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		users(t, s, "a", "b")
		m := text("a", "b", model.ReceiverUser, "once")
		m.MUID = "m-1"
		first := send(t, s, m)
		if first.MUID != "m-1" {
			t.Errorf("stored muid %q", first.MUID)
		}
		events := len(allEvents(t, s))
		again, err := s.SendMessage(ctx, m)
		if !errors.Is(err, ErrAlreadySent) || again.ID != first.ID || again.Text != "once" {
			t.Fatalf("retry: %+v %v, want message %d and ErrAlreadySent", again, err, first.ID)
		}
		// Eight concurrent sends of a new muid: one is stored, the others get it back.
		m.MUID, m.Text = "m-2", "raced"
		ids := make(chan int64, 8)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := s.SendMessage(ctx, m)
				if err != nil && !errors.Is(err, ErrAlreadySent) {
					t.Error(err)
				}
				ids <- got.ID
			}()
		}
		wg.Wait()
		close(ids)
		var seen []int64
		for id := range ids {
			if len(seen) > 0 && id != seen[0] {
				t.Errorf("concurrent retries got ids %v and %d", seen, id)
			}
			seen = append(seen, id)
		}
		other := text("b", "a", model.ReceiverUser, "mine")
		other.MUID = "m-1"
		send(t, s, other)
		msgs := must[[]model.Message](t)(s.ListMessages(ctx, "a", MessageQuery{UID: "b", Limit: 100}))
		if len(msgs) != 3 {
			t.Errorf("%d messages stored, want 3 (once, raced, b's)", len(msgs))
		}
		if n := len(allEvents(t, s)) - events; n != 2 {
			t.Errorf("%d events after the first send, want 2", n)
		}
		if got, err := s.MessageByMUID(ctx, "a", "m-2"); err != nil || got.ID != seen[0] {
			t.Errorf("MessageByMUID = %d %v, want %d", got.ID, err, seen[0])
		}
		_, err = s.MessageByMUID(ctx, "a", "nope")
		wantCode(t, err, model.ErrMessageNotFound)
	})
}
