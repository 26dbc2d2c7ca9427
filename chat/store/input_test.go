package store

import (
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
