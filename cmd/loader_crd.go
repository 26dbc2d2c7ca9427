//go:build !agentry_runtime

package cmd

import (
	"github.com/agentry-dev/agentry/internal/protocol/manifest"
	"github.com/agentry-dev/agentry/internal/protocol/manifest/decode"
)

// crdLoader validates and defaults hand-written manifests with the CRDs' schemas and CEL rules.
func crdLoader() (*decode.Loader, error) { return manifest.NewLoader() }
