package store

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/agentry-dev/agentry/chat/model"
)

// cursor is the position after the last item of a page: a string key and a number (keyset
// paging), for one listing (Of), so a cursor of one listing is refused by another.
type cursor struct {
	Of  string `json:"o"`
	Key string `json:"k,omitempty"`
	N   int64  `json:"n,omitempty"`
}

// encodeCursor signs the cursor with the database's key, so a client cannot forge a position
// (or a listing) and every replica accepts what any replica issued.
func (s *sqlStore) encodeCursor(c cursor) string {
	b, _ := json.Marshal(c)
	mac := hmac.New(sha256.New, s.cursorKey)
	mac.Write(b)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:16])
}

// decodeCursor returns the zero cursor for "" and ErrBadCursor for anything not issued by
// this server for listing of.
func (s *sqlStore) decodeCursor(of, raw string) (cursor, error) {
	if raw == "" {
		return cursor{}, nil
	}
	bad := model.Errorf(model.ErrBadCursor, "the cursor was not issued by this server for this listing")
	body, sig, ok := strings.Cut(raw, ".")
	if !ok {
		return cursor{}, bad
	}
	b, err1 := base64.RawURLEncoding.DecodeString(body)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return cursor{}, bad
	}
	mac := hmac.New(sha256.New, s.cursorKey)
	mac.Write(b)
	if !hmac.Equal(mac.Sum(nil)[:16], got) {
		return cursor{}, bad
	}
	var c cursor
	if err := json.Unmarshal(b, &c); err != nil || c.Of != of {
		return cursor{}, bad
	}
	return c, nil
}

// Page sizes: the default and the largest a listing answers.
const (
	defaultLimit = 30
	maxLimit     = 100
)

// limitOf validates a requested page size: 0 means the default.
func limitOf(n int) (int, error) {
	switch {
	case n == 0:
		return defaultLimit, nil
	case n < 0 || n > maxLimit:
		return 0, model.Errorf(model.ErrValidation, "limit must be between 1 and %d", maxLimit)
	}
	return n, nil
}

// likePattern is a case-insensitive substring pattern for LIKE ... ESCAPE '\'.
func likePattern(keyword string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(strings.ToLower(keyword)) + "%"
}
