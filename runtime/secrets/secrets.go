// Package secrets resolves references to Kubernetes Secrets inside the runtime. The operator
// mounts each referenced Secret as a directory (one file per key); locally, a directory laid
// out the same way works. Values are read on use, so a rotated Secret needs no restart.
package secrets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DefaultDir is where the operator mounts referenced Secrets.
const DefaultDir = "/var/run/agentry/secrets"

// MemoryURLEnv carries the storage URL of an Agent whose spec.memory.urlSecretRef names a
// Secret: the operator sets it from secretKeyRef.
const MemoryURLEnv = "AGENTRY_MEMORY_URL"

// Source resolves Secret data by name.
type Source interface {
	// Secret returns every key of the named Secret.
	Secret(name string) (map[string]string, error)
}

// ErrNotFound is returned for a Secret that is not available.
var ErrNotFound = errors.New("secret not found")

// Dir reads Secrets from <dir>/<name>/<key> files.
type Dir string

// Secret implements Source.
func (d Dir) Secret(name string) (map[string]string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return nil, fmt.Errorf("invalid secret name %q", name)
	}
	root := filepath.Join(string(d), name)
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("failed to read secret %q from %s: %w", name, string(d), ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read secret %q: %w", name, err)
	}
	out := map[string]string{}
	for _, e := range entries {
		// Kubernetes secret volumes hold ..data and timestamped directories next to the key links.
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		path := filepath.Join(root, e.Name())
		if info, err := os.Stat(path); err != nil || info.IsDir() {
			continue // a dangling link or a directory is no key
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("failed to read key %q of secret %q: %w", e.Name(), name, err)
		}
		out[e.Name()] = strings.TrimRight(string(data), "\r\n")
	}
	return out, nil
}

// Static is an in-memory Source, for tests and embedding.
type Static map[string]map[string]string

// Secret implements Source.
func (s Static) Secret(name string) (map[string]string, error) {
	if v, ok := s[name]; ok {
		return v, nil
	}
	return nil, fmt.Errorf("secret %q: %w", name, ErrNotFound)
}
