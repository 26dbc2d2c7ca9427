package store

import (
	"crypto/sha256"
	"sync"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

var _ = cases(
	behaviour{"invitations: a code works once, only the newest works, and not for agents, deactivated people or after expiry", func(t *testing.T, s Store) {
		users(t, s, "dave", "erin")
		h := func(code string) []byte { sum := sha256.Sum256([]byte(code)); return sum[:] }
		week := time.Now().Add(7 * 24 * time.Hour)
		first := must[model.Invitation](t)(s.CreateInvitation(ctx, model.Invitation{UID: "dave", CreatedBy: "admin", ExpiresAt: week}, h("first")))
		if first.ID == "" || first.UID != "dave" || first.CreatedBy != "admin" || first.CreatedAt.IsZero() {
			t.Fatalf("invitation %+v", first)
		}
		if got := must[model.Invitation](t)(s.Invitation(ctx, h("first"))); got.ID != first.ID || !got.ExpiresAt.Equal(first.ExpiresAt) {
			t.Fatalf("read back %+v, made %+v", got, first)
		}
		// A newer link replaces it.
		must[model.Invitation](t)(s.CreateInvitation(ctx, model.Invitation{UID: "dave", ExpiresAt: week}, h("second")))
		_, err := s.Invitation(ctx, h("first"))
		wantCode(t, err, model.ErrInvitationInvalid)
		if hash := must[string](t)(s.UserPasswordHash(ctx, "dave")); hash != "" {
			t.Fatalf("a password before accepting: %q", hash)
		}
		// Two accepts at once: one wins.
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.AcceptInvitation(ctx, h("second"), "$2a$hash")
			}()
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("two accepts of one code: %v, %v", errs[0], errs[1])
		}
		for _, err := range errs {
			if err != nil {
				wantCode(t, err, model.ErrInvitationInvalid)
			}
		}
		if hash := must[string](t)(s.UserPasswordHash(ctx, "dave")); hash != "$2a$hash" {
			t.Fatalf("password hash %q", hash)
		}
		_, err = s.AcceptInvitation(ctx, h("second"), "$2a$other")
		wantCode(t, err, model.ErrInvitationInvalid)
		// A reset: a new invitation sets a new password.
		must[model.Invitation](t)(s.CreateInvitation(ctx, model.Invitation{UID: "dave", ExpiresAt: week}, h("reset")))
		if inv := must[model.Invitation](t)(s.AcceptInvitation(ctx, h("reset"), "$2a$new")); inv.UID != "dave" {
			t.Fatalf("accepted %+v", inv)
		}
		if hash := must[string](t)(s.UserPasswordHash(ctx, "dave")); hash != "$2a$new" {
			t.Fatalf("password hash after reset %q", hash)
		}

		// Deactivating erin makes her invitation useless.
		must[model.Invitation](t)(s.CreateInvitation(ctx, model.Invitation{UID: "erin", ExpiresAt: week}, h("erin")))
		must[model.User](t)(s.SetDeactivated(ctx, "erin", true))
		_, err = s.AcceptInvitation(ctx, h("erin"), "$2a$hash")
		wantCode(t, err, model.ErrInvitationInvalid)
		_, err = s.CreateInvitation(ctx, model.Invitation{UID: "erin", ExpiresAt: week}, h("erin2"))
		wantCode(t, err, model.ErrUserDeactivated)

		must[model.User](t)(s.CreateUser(ctx, model.User{UID: "helper", Name: "Helper", Kind: model.UserKindAgent}))
		_, err = s.CreateInvitation(ctx, model.Invitation{UID: "helper", ExpiresAt: week}, h("agent"))
		wantCode(t, err, model.ErrValidation)
		_, err = s.CreateInvitation(ctx, model.Invitation{UID: "nobody", ExpiresAt: week}, h("nobody"))
		wantCode(t, err, model.ErrUIDNotFound)
		_, err = s.CreateInvitation(ctx, model.Invitation{UID: "dave", ExpiresAt: time.Now().Add(-time.Second)}, h("past"))
		wantCode(t, err, model.ErrValidation)
		// Expiry: a code that was live stops working once its time passes.
		must[model.Invitation](t)(s.CreateInvitation(ctx, model.Invitation{UID: "dave", ExpiresAt: time.Now().Add(50 * time.Millisecond)}, h("short")))
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, err := s.Invitation(ctx, h("short"))
			if model.CodeOf(err) == model.ErrInvitationInvalid {
				break
			}
			if err != nil || time.Now().After(deadline) {
				t.Fatalf("expired invitation still live: %v", err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}},
)
