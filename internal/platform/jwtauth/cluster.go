package jwtauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// ClusterJWKSPath is where a Kubernetes API server serves its ServiceAccount token keys,
// whatever jwks_uri its discovery document advertises (that may be a public mirror).
const ClusterJWKSPath = "/openid/v1/jwks"

// ClusterIssuer reads a Kubernetes cluster's ServiceAccount token issuer from its API server at
// host, through client (authenticated as a ServiceAccount: every one may read the discovery
// document and keys by default, the system:service-account-issuer-discovery binding). It
// returns the issuer tokens carry and the API server's URL of its keys. An error wraps
// ErrIssuerUnavailable.
func ClusterIssuer(ctx context.Context, client *http.Client, host string) (issuer, jwksURL string, err error) {
	host = strings.TrimSuffix(host, "/")
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, host+"/.well-known/openid-configuration", nil)
	if err != nil {
		return "", "", fmt.Errorf("%w: failed to read the service-account issuer of %q: %v", ErrIssuerUnavailable, host, err)
	}
	res, err := client.Do(req)
	if err != nil {
		return "", "", fmt.Errorf("%w: failed to read the service-account issuer of %q: %v", ErrIssuerUnavailable, host, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return "", "", fmt.Errorf("%w: failed to read the service-account issuer of %q: %s", ErrIssuerUnavailable, host, res.Status)
	}
	var doc struct {
		Issuer string `json:"issuer"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, maxKeySetBytes)).Decode(&doc); err != nil || doc.Issuer == "" {
		return "", "", fmt.Errorf("%w: the discovery document of %q names no issuer", ErrIssuerUnavailable, host)
	}
	return doc.Issuer, host + ClusterJWKSPath, nil
}
