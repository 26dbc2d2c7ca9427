// Package ids makes the random identifiers of runs, messages, approvals, media and tokens: one
// helper, so every id has the same form and randomness.
package ids

import (
	"crypto/rand"
	"encoding/hex"
)

// New returns a random identifier with a prefix, e.g. run_3f2a… (12 random bytes, hex).
func New(prefix string) string {
	return prefix + "_" + Hex(12)
}

// Hex returns n random bytes as hex (crypto/rand never fails since Go 1.24: it aborts the
// process when the system has no randomness to give).
func Hex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
