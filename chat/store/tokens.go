package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/platform/ids"
)

// CreateToken implements Tokens. The caller hashes the token (SHA-256); only the hash is
// stored, so a copy of the database does not log anyone in.
func (s *sqlStore) CreateToken(ctx context.Context, uid string, hash []byte, expires time.Time) (string, error) {
	if len(hash) == 0 {
		return "", model.Errorf(model.ErrValidation, "token hash is required")
	}
	id := ids.Hex(16)
	var exp int64
	if !expires.IsZero() {
		exp = us(expires)
	}
	err := s.write(ctx, "create token", func(t *txn) error {
		u, err := getUser(t, uid)
		if err != nil {
			return err
		}
		if u.Deactivated {
			return model.Errorf(model.ErrUserDeactivated, "user %q is deactivated", uid)
		}
		_, err = t.exec(`INSERT INTO chat_tokens (id, uid, hash, expires_us, created_us) VALUES ($1, $2, $3, $4, $5)`, id, uid, hex.EncodeToString(hash), exp, us(t.now))
		return err
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

// TokenUser implements Tokens.
func (s *sqlStore) TokenUser(ctx context.Context, hash []byte) (TokenInfo, error) {
	var ti TokenInfo
	var expires int64
	err := s.read(ctx, "check token", func(t *txn) error {
		// A deactivated user's tokens were revoked with it; the join refuses them regardless.
		err := t.row(`SELECT k.uid, k.id, k.expires_us FROM chat_tokens k JOIN chat_users u ON u.uid = k.uid
			WHERE k.hash = $1 AND k.revoked_us = 0 AND (k.expires_us = 0 OR k.expires_us > $2) AND u.deactivated_us = 0`, hex.EncodeToString(hash), us(t.now)).Scan(&ti.UID, &ti.ID, &expires)
		if errors.Is(err, sql.ErrNoRows) {
			return model.Errorf(model.ErrUnauthenticated, "the auth token is unknown, expired or revoked")
		}
		return err
	})
	if err != nil {
		return TokenInfo{}, err
	}
	if expires != 0 {
		ti.ExpiresAt = fromUS(expires)
	}
	return ti, nil
}

// RevokeToken implements Tokens; revoking twice is not an error.
func (s *sqlStore) RevokeToken(ctx context.Context, uid, id string) error {
	return s.write(ctx, "revoke token", func(t *txn) error {
		var revoked int64
		err := t.row(`SELECT revoked_us FROM chat_tokens WHERE id = $1 AND uid = $2`, id, uid).Scan(&revoked)
		if errors.Is(err, sql.ErrNoRows) {
			return model.Errorf(model.ErrNotFound, "user %q has no token %q", uid, id)
		}
		if err != nil || revoked != 0 {
			return err
		}
		if _, err := t.exec(`UPDATE chat_tokens SET revoked_us = $3 WHERE id = $1 AND uid = $2`, id, uid, us(t.now)); err != nil {
			return err
		}
		return t.emit("", model.EventTokensRevoked, uid, map[string]string{"tokenId": id})
	})
}

// RevokeUserTokens implements Tokens.
func (s *sqlStore) RevokeUserTokens(ctx context.Context, uid string) error {
	return s.write(ctx, "revoke tokens", func(t *txn) error {
		if _, err := getUser(t, uid); err != nil {
			return err
		}
		if _, err := t.exec(`UPDATE chat_tokens SET revoked_us = $2 WHERE uid = $1 AND revoked_us = 0`, uid, us(t.now)); err != nil {
			return err
		}
		return t.emit("", model.EventTokensRevoked, uid, map[string]string{"tokenId": "*"})
	})
}
