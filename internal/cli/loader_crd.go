//go:build !agentry_runtime

package cli

import (
	"github.com/agentry-dev/agentry/internal/manifest"
	"github.com/agentry-dev/agentry/internal/manifest/decode"
)

// crdLoader validates and defaults hand-written manifests with the CRDs' schemas and CEL rules.
func crdLoader() (*decode.Loader, error) { return manifest.NewLoader() }
