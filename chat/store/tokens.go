package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/platform/ids"
)

// CreateToken implements Tokens. The caller hashes the token (SHA-256); only the hash is
// stored, so a copy of the database does not log anyone in.
func (s *sqlStore) CreateToken(ctx context.Context, uid string, hash []byte, expires time.Time) (string, error) {
	return s.CreateSession(ctx, uid, hash, expires, 0)
}

// CreateSession implements Tokens.
func (s *sqlStore) CreateSession(ctx context.Context, uid string, hash []byte, expires time.Time, idle time.Duration) (string, error) {
	if len(hash) == 0 {
		return "", model.Errorf(model.ErrValidation, "token hash is required")
	}
	if idle < 0 {
		return "", model.Errorf(model.ErrValidation, "idle timeout must not be negative")
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
		_, err = t.exec(`INSERT INTO chat_tokens (id, uid, hash, expires_us, created_us, idle_us, used_us) VALUES ($1, $2, $3, $4, $5, $6, $5)`,
			id, uid, hex.EncodeToString(hash), exp, us(t.now), idle.Microseconds())
		return err
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

// liveToken selects a token that is neither revoked, expired nor idle for too long, of a user
// who is not deactivated (their tokens were revoked with it; the join refuses them regardless).
const liveToken = `SELECT k.uid, k.id, k.expires_us, k.idle_us, k.used_us FROM chat_tokens k JOIN chat_users u ON u.uid = k.uid
	WHERE %s AND k.revoked_us = 0 AND (k.expires_us = 0 OR k.expires_us > $2)
	AND (k.idle_us = 0 OR k.used_us + k.idle_us > $2) AND u.deactivated_us = 0`

// TokenUser implements Tokens.
func (s *sqlStore) TokenUser(ctx context.Context, hash []byte) (TokenInfo, error) {
	return s.liveToken(ctx, "k.hash = $1", hex.EncodeToString(hash))
}

// TokenByID implements Tokens.
func (s *sqlStore) TokenByID(ctx context.Context, id string) (TokenInfo, error) {
	return s.liveToken(ctx, "k.id = $1", id)
}

func (s *sqlStore) liveToken(ctx context.Context, where, key string) (TokenInfo, error) {
	var ti TokenInfo
	var expires, idle, used int64
	err := s.read(ctx, "check token", func(t *txn) error {
		err := t.row(fmt.Sprintf(liveToken, where), key, us(t.now)).Scan(&ti.UID, &ti.ID, &expires, &idle, &used)
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
	if idle != 0 {
		ti.Idle = time.Duration(idle) * time.Microsecond
		ti.UsedAt = fromUS(used)
	}
	return ti, nil
}

// TouchToken implements Tokens. A session already past its idle timeout stays ended.
func (s *sqlStore) TouchToken(ctx context.Context, id string) error {
	return s.write(ctx, "touch token", func(t *txn) error {
		_, err := t.exec(`UPDATE chat_tokens SET used_us = $2 WHERE id = $1 AND idle_us > 0 AND used_us < $2 AND used_us + idle_us > $2`, id, us(t.now))
		return err
	})
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
