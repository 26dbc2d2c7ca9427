//go:build agentry_runtime

package cmd

import (
	"errors"

	"github.com/agentry-dev/agentry/internal/protocol/manifest/decode"
)

// crdLoader: the runtime build links none of the API server's validation code, so it serves
// only configs the operator rendered from validated objects (--prevalidated).
func crdLoader() (*decode.Loader, error) {
	return nil, errors.New("this is the runtime build of agentry (the agentry-runtime image): it serves only the config the operator renders (--prevalidated); " +
		"serve hand-written manifests with the full agentry binary, which validates them with the CRDs' schemas and CEL rules")
}
