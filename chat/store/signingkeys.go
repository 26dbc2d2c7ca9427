package store

import (
	"context"
	"fmt"

	"github.com/agentry-dev/agentry/chat/model"
)

// sealing AD of a signing key: a sealed key copied to another row does not open.
func signingKeyAD(kid string) string { return "signing-key:" + kid }

// AddSigningKey implements SigningKeys.
func (s *sqlStore) AddSigningKey(ctx context.Context, k SigningKey) error {
	if s.headers == nil {
		return model.Errorf(model.ErrValidation, "the chat needs its headers key to keep signing keys")
	}
	sealed, err := s.headers.seal(signingKeyAD(k.ID), k.Private)
	if err != nil {
		return fmt.Errorf("failed to seal signing key %q: %w", k.ID, err)
	}
	return s.write(ctx, "add signing key", func(t *txn) error {
		_, err := t.exec(`INSERT INTO chat_signing_keys (kid, private, created_us) VALUES ($1, $2, $3)`, k.ID, sealed, us(t.now))
		return err
	})
}

// SigningKeys implements SigningKeys.
func (s *sqlStore) SigningKeys(ctx context.Context, n int) ([]SigningKey, error) {
	var out []SigningKey
	err := s.read(ctx, "read signing keys", func(t *txn) error {
		rows, err := t.query(`SELECT kid, private, created_us FROM chat_signing_keys ORDER BY created_us DESC, kid LIMIT $1`, n)
		if err != nil {
			return err
		}
		defer func() { _ = rows.Close() }()
		for rows.Next() {
			var k SigningKey
			var sealed string
			var created int64
			if err := rows.Scan(&k.ID, &sealed, &created); err != nil {
				return err
			}
			if s.headers == nil {
				return model.Errorf(model.ErrValidation, "the chat needs its headers key to read its signing keys")
			}
			if k.Private, err = s.headers.open(signingKeyAD(k.ID), sealed); err != nil {
				return fmt.Errorf("failed to open signing key %q (was the headers key changed?): %w", k.ID, err)
			}
			k.CreatedAt = fromUS(created)
			out = append(out, k)
		}
		return rows.Err()
	})
	return out, err
}
