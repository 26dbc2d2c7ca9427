package jwtauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// errUnknownKey: the token names a key id the issuer's key set does not hold, even after
// fetching it again (or it was fetched too recently to try).
var errUnknownKey = errors.New("unknown signing key")

const (
	// refetchEvery bounds fetches of the key set for unknown key ids: a stream of tokens with
	// made-up key ids costs at most one fetch per period, not one per request.
	refetchEvery = 10 * time.Second
	// keysMaxAge is how long a fetched key set is trusted before it is fetched again, so a key
	// the issuer removed stops verifying.
	keysMaxAge = time.Hour
	// maxKeySetBytes bounds a key set's document.
	maxKeySetBytes = 1 << 20
)

// keySet is an issuer's public keys (a JWK Set at url), fetched when first needed, again for
// a key id it does not hold (at most every refetchEvery) and when older than keysMaxAge. It
// implements go-oidc's KeySet: go-oidc checks the claims, go-jose the signature.
type keySet struct {
	url    string
	client *http.Client
	algs   []jose.SignatureAlgorithm
	// refetch is refetchEvery (tests shorten it).
	refetch time.Duration

	mu      sync.Mutex // held across a fetch: concurrent misses wait for one fetch
	keys    []jose.JSONWebKey
	fetched time.Time
	tried   time.Time
}

func (k *keySet) VerifySignature(ctx context.Context, raw string) ([]byte, error) {
	jws, err := jose.ParseSigned(raw, k.algs)
	if err != nil {
		return nil, fmt.Errorf("malformed token: %w", err)
	}
	if len(jws.Signatures) != 1 {
		return nil, errors.New("malformed token: want exactly one signature")
	}
	kid := jws.Signatures[0].Header.KeyID
	keys, err := k.keysFor(ctx, kid)
	if err != nil {
		return nil, err
	}
	for i := range keys {
		if payload, err := jws.Verify(&keys[i]); err == nil {
			return payload, nil
		}
	}
	return nil, errors.New("signature not verified")
}

// keysFor returns the keys that may have signed a token with key id kid (every key when the
// token names none), fetching the set when it must.
func (k *keySet) keysFor(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := time.Now()
	stale := k.fetched.IsZero() || now.Sub(k.fetched) > keysMaxAge
	if stale || (!k.holds(kid) && now.Sub(k.tried) >= k.refetch) {
		k.tried = now
		keys, err := k.fetch(ctx)
		if err != nil && k.fetched.IsZero() {
			return nil, fmt.Errorf("%w: %v", ErrIssuerUnavailable, err)
		}
		if err == nil {
			k.keys, k.fetched = keys, now
		}
	}
	var out []jose.JSONWebKey
	for _, key := range k.keys {
		if kid == "" || key.KeyID == kid {
			out = append(out, key)
		}
	}
	if len(out) == 0 {
		return nil, errUnknownKey
	}
	return out, nil
}

func (k *keySet) holds(kid string) bool {
	for _, key := range k.keys {
		if kid == "" || key.KeyID == kid {
			return true
		}
	}
	return false
}

// fetch reads the key set, keeping public signing keys only.
func (k *keySet) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return nil, fmt.Errorf("failed to build the key set request for %q: %w", k.url, err)
	}
	// RFC 7517's type first: the Kubernetes API server answers 406 to application/json alone.
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	res, err := k.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("failed to fetch the key set %q: %w", k.url, err)
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("failed to fetch the key set %q: status %d", k.url, res.StatusCode)
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(io.LimitReader(res.Body, maxKeySetBytes)).Decode(&set); err != nil {
		return nil, fmt.Errorf("failed to decode the key set %q: %w", k.url, err)
	}
	var keys []jose.JSONWebKey
	for _, key := range set.Keys {
		if key.Use == "enc" || !key.Valid() || !key.IsPublic() {
			continue
		}
		keys = append(keys, key)
	}
	return keys, nil
}
