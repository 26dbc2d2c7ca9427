package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/platform/ids"
)

// CreateInvitation implements Invitations.
func (s *sqlStore) CreateInvitation(ctx context.Context, inv model.Invitation, hash []byte) (model.Invitation, error) {
	if len(hash) == 0 {
		return model.Invitation{}, model.Errorf(model.ErrValidation, "invitation code hash is required")
	}
	inv.ID = ids.Hex(16)
	err := s.write(ctx, "create invitation", func(t *txn) error {
		u, err := getUser(t, inv.UID)
		switch {
		case err != nil:
			return err
		case u.Kind != model.UserKindUser:
			return model.Errorf(model.ErrValidation, "%q is an agent: only people are invited", inv.UID)
		case u.Deactivated:
			return model.Errorf(model.ErrUserDeactivated, "user %q is deactivated: reactivate them first", inv.UID)
		case !inv.ExpiresAt.After(t.now):
			return model.Errorf(model.ErrValidation, "an invitation must expire in the future")
		}
		inv.CreatedAt = t.now
		// Only the newest link works: an admin who sends a new one means the old one is lost.
		if _, err := t.exec(`UPDATE chat_invitations SET used_us = $2 WHERE uid = $1 AND used_us = 0`, inv.UID, us(t.now)); err != nil {
			return err
		}
		_, err = t.exec(`INSERT INTO chat_invitations (id, uid, hash, created_by, expires_us, created_us) VALUES ($1, $2, $3, $4, $5, $6)`,
			inv.ID, inv.UID, hex.EncodeToString(hash), inv.CreatedBy, us(inv.ExpiresAt), us(t.now))
		return err
	})
	if err != nil {
		return model.Invitation{}, err
	}
	inv.ExpiresAt = fromUS(us(inv.ExpiresAt))
	return inv, nil
}

func liveInvitation(t *txn, hash []byte) (model.Invitation, error) {
	var inv model.Invitation
	var exp, created int64
	err := t.row(`SELECT i.id, i.uid, i.created_by, i.expires_us, i.created_us FROM chat_invitations i JOIN chat_users u ON u.uid = i.uid
		WHERE i.hash = $1 AND i.used_us = 0 AND i.expires_us > $2 AND u.deactivated_us = 0`, hex.EncodeToString(hash), us(t.now)).
		Scan(&inv.ID, &inv.UID, &inv.CreatedBy, &exp, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return inv, model.Errorf(model.ErrInvitationInvalid, "this invitation is unknown, used, replaced by a newer one or expired: ask an admin for a new link")
	}
	inv.ExpiresAt, inv.CreatedAt = fromUS(exp), fromUS(created)
	return inv, err
}

// Invitation implements Invitations.
func (s *sqlStore) Invitation(ctx context.Context, hash []byte) (model.Invitation, error) {
	var inv model.Invitation
	err := s.read(ctx, "read invitation", func(t *txn) (err error) {
		inv, err = liveInvitation(t, hash)
		return err
	})
	return inv, err
}

// AcceptInvitation implements Invitations.
func (s *sqlStore) AcceptInvitation(ctx context.Context, hash []byte, passwordHash string) (model.Invitation, error) {
	if passwordHash == "" {
		return model.Invitation{}, model.Errorf(model.ErrValidation, "password hash is required")
	}
	var inv model.Invitation
	err := s.write(ctx, "accept invitation", func(t *txn) (err error) {
		if inv, err = liveInvitation(t, hash); err != nil {
			return err
		}
		// The used_us = 0 guard makes two concurrent accepts of one code end with one winner.
		res, err := t.exec(`UPDATE chat_invitations SET used_us = $2 WHERE id = $1 AND used_us = 0`, inv.ID, us(t.now))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return model.Errorf(model.ErrInvitationInvalid, "this invitation was used already")
		}
		_, err = t.exec(`INSERT INTO chat_user_passwords (uid, hash, updated_us) VALUES ($1, $2, $3)
			ON CONFLICT (uid) DO UPDATE SET hash = excluded.hash, updated_us = excluded.updated_us`, inv.UID, passwordHash, us(t.now))
		return err
	})
	return inv, err
}

// UserPasswordHash implements Invitations.
func (s *sqlStore) UserPasswordHash(ctx context.Context, uid string) (string, error) {
	var hash string
	err := s.read(ctx, "read password", func(t *txn) error {
		err := t.row(`SELECT hash FROM chat_user_passwords WHERE uid = $1`, uid).Scan(&hash)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	return hash, err
}
