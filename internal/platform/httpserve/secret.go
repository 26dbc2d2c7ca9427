package httpserve

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// SecretEqual compares a credential a client sent with the configured one in constant time.
// An empty configured secret never matches, so an unset key cannot be satisfied by an absent
// header.
func SecretEqual(got, want string) bool {
	if want == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// BearerToken is the token of an "Authorization: Bearer …" header, or "".
func BearerToken(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}
