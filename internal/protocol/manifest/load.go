package manifest

import (
	"github.com/agentry-dev/agentry/internal/protocol/manifest/decode"
)

// DefaultNamespace is the namespace given to objects that name none, as kubectl would.
const DefaultNamespace = decode.DefaultNamespace

// Source says where an object was read from, for error messages.
type Source = decode.Source

// Set holds the Agentry objects read from one or more files.
type Set = decode.Set

// Loader reads manifests.
type Loader = decode.Loader

// NewLoader returns a Loader that validates and defaults every Agentry object with the
// embedded CRDs' schemas and CEL rules, as the API server does: for hand-written manifests.
func NewLoader() (*Loader, error) {
	v, err := NewValidator()
	if err != nil {
		return nil, err
	}
	return decode.NewLoader(v), nil
}
