package jwtauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

const (
	resource     = "https://agents.example.com/api/agents/chef"
	clientSecret = "jwt-client-secret-0123456789abcdef"
)

// countingClient counts the requests it sends (key set fetches).
func countingClient(n *atomic.Int32) *http.Client {
	return &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		n.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func machineIDP(t *testing.T, ttl map[string]int) *testutil.IDP {
	none := []string{}
	return testutil.StartIDP(t, testutil.IDPConfig{TTL: ttl, Clients: []testutil.IDPClient{{ID: "chat", Secret: clientSecret,
		GrantTypes: []string{"client_credentials"}, ResponseTypes: &none}}})
}

func wantRefusal(t *testing.T, what string, err error, reason string) {
	t.Helper()
	var r *Refusal
	if !errors.As(err, &r) || !strings.Contains(r.Reason, reason) {
		t.Errorf("%s: %v, want a refusal saying %q", what, err, reason)
	}
	// Every segment of a JWT is base64 JSON, which starts "eyJ": no part of a token is repeated.
	if strings.Contains(fmt_(err), "eyJ") {
		t.Errorf("%s: the error repeats the token: %v", what, err)
	}
}

// TestTokensOfARealProvider: JWT access tokens of the OpenID Certified oidc-provider (test/idp)
// are accepted for their audience, and refused, saying why, when tampered, for another audience
// or issuer, unsigned, signed with HS256 keyed by the public key, signed by an unknown key (with
// no key set fetch per such token), or missing a required claim; after the provider rotates its
// keys, its new tokens are accepted.
func TestTokensOfARealProvider(t *testing.T) {
	ctx := context.Background()
	idp := machineIDP(t, nil)
	var fetches atomic.Int32
	v, err := New(Config{Issuer: idp.Issuer, Audiences: []string{resource}}, countingClient(&fetches))
	testutil.NoError(t, err)
	tok := idp.ClientToken(t, "chat", clientSecret, resource)
	caller, err := v.Verify(ctx, tok)
	if err != nil || caller.Subject != "chat" || caller.Issuer != idp.Issuer {
		t.Fatalf("a valid token: %+v %v", caller, err)
	}
	// The token goes on only to one of its audiences, and is never printed.
	if got, ok := caller.TokenFor(resource); !ok || got != tok {
		t.Error("the token is not handed to its own audience")
	}
	if _, ok := caller.TokenFor("https://other.example.com/tool"); ok {
		t.Error("the token is handed to another audience")
	}
	if s := fmt.Sprintf("%v %+v %s %#v", caller, caller, caller, caller); strings.Contains(s, "eyJ") {
		t.Errorf("printing a caller prints its token: %s", s)
	}
	if c, ok := CallerFrom(WithCaller(ctx, caller)); !ok || c.Subject != "chat" {
		t.Error("the caller does not travel in the context")
	}
	if _, ok := CallerFrom(ctx); ok {
		t.Error("a context without a caller has one")
	}

	other := idp.ClientToken(t, "chat", clientSecret, "https://other.example.com/agent")
	_, err = v.Verify(ctx, other)
	wantRefusal(t, "another audience", err, "not for this audience")

	parts := strings.Split(tok, ".")
	claims, err := base64.RawURLEncoding.DecodeString(parts[1])
	testutil.NoError(t, err)
	forged := strings.Replace(string(claims), `"sub":"chat"`, `"sub":"admin"`, 1)
	if forged == string(claims) {
		t.Fatalf("no sub to tamper with in %s", claims)
	}
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(forged)) + "." + parts[2]
	_, err = v.Verify(ctx, tampered)
	wantRefusal(t, "a tampered token", err, "signature does not verify")

	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + "."
	_, err = v.Verify(ctx, none)
	wantRefusal(t, "alg none", err, "signing algorithm is not accepted")

	// HS256 keyed with the provider's public key (the classic key-confusion attack).
	var header struct {
		Kid string `json:"kid"`
	}
	h, _ := base64.RawURLEncoding.DecodeString(parts[0])
	testutil.NoError(t, json.Unmarshal(h, &header))
	pub := providerKey(t, idp, header.Kid)
	der, err := x509.MarshalPKIXPublicKey(pub)
	testutil.NoError(t, err)
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	_, err = v.Verify(ctx, sign(t, jose.HS256, pemKey, header.Kid, claims))
	wantRefusal(t, "HS256 with the public key", err, "signing algorithm is not accepted")

	// Signed by a key the provider does not publish: refused, and a flood of them fetches the
	// key set at most once more.
	own, err := rsa.GenerateKey(rand.Reader, 2048)
	testutil.NoError(t, err)
	before := fetches.Load()
	for i := range 20 {
		_, err = v.Verify(ctx, sign(t, jose.RS256, own, "attacker-"+string(rune('a'+i)), claims))
		wantRefusal(t, "an unknown key", err, "unknown key")
	}
	if n := fetches.Load() - before; n > 1 {
		t.Errorf("20 tokens with unknown key ids fetched the key set %d times", n)
	}
	_, err = v.Verify(ctx, sign(t, jose.RS256, own, header.Kid, claims))
	wantRefusal(t, "the provider's key id, another key", err, "signature does not verify")

	strict, err := New(Config{Issuer: idp.Issuer, Audiences: []string{resource}, RequiredClaims: map[string]string{"scope": "agent"}}, http.DefaultClient)
	testutil.NoError(t, err)
	if _, err := strict.Verify(ctx, tok); err != nil {
		t.Errorf("scope agent is required and present: %v", err)
	}
	stricter, err := New(Config{Issuer: idp.Issuer, Audiences: []string{resource}, RequiredClaims: map[string]string{"scope": "admin"}}, http.DefaultClient)
	testutil.NoError(t, err)
	_, err = stricter.Verify(ctx, tok)
	wantRefusal(t, "a missing required claim", err, `required claim "scope"`)
	if strings.Contains(err.Error(), "agent") {
		t.Errorf("the refusal names the claim's value: %v", err)
	}

	elsewhere, err := New(Config{Issuer: "https://issuer.example.com", JWKSURL: idp.Issuer + "/jwks", Audiences: []string{resource}}, http.DefaultClient)
	testutil.NoError(t, err)
	_, err = elsewhere.Verify(ctx, tok)
	wantRefusal(t, "another issuer", err, "another issuer")

	// Rotation: the new key id is fetched (once the refetch period allows) and accepted.
	v.refetch = 50 * time.Millisecond
	rotated, err := New(Config{Issuer: idp.Issuer, Audiences: []string{resource}}, http.DefaultClient)
	testutil.NoError(t, err)
	rotated.refetch = 50 * time.Millisecond
	if _, err := rotated.Verify(ctx, tok); err != nil {
		t.Fatalf("before rotation: %v", err)
	}
	kid := idp.RotateKeys(t)
	fresh := idp.ClientToken(t, "chat", clientSecret, resource)
	if !strings.Contains(string(mustDecode(t, strings.Split(fresh, ".")[0])), kid) {
		t.Fatalf("the provider did not sign with its new key %s", kid)
	}
	testutil.Eventually(t, "the rotated key to verify", 10*time.Second, 20*time.Millisecond, func() error {
		_, err := rotated.Verify(ctx, fresh)
		return err
	})
	if _, err := rotated.Verify(ctx, tok); err != nil {
		t.Errorf("a token of the old key, still published: %v", err)
	}
}

func fmt_(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestExpiredTokens: a token of the provider past its lifetime (and the clock skew) is refused
// as expired.
func TestExpiredTokens(t *testing.T) {
	idp := machineIDP(t, map[string]int{"AccessToken": 1})
	v, err := New(Config{Issuer: idp.Issuer, Audiences: []string{resource}, ClockSkew: time.Millisecond}, http.DefaultClient)
	testutil.NoError(t, err)
	tok := idp.ClientToken(t, "chat", clientSecret, resource)
	testutil.Eventually(t, "the token to expire", 15*time.Second, 50*time.Millisecond, func() error {
		_, err := v.Verify(context.Background(), tok)
		var r *Refusal
		if errors.As(err, &r) && strings.Contains(r.Reason, "expired") {
			return nil
		}
		return errors.New("still accepted or refused otherwise: " + fmt_(err))
	})
}

// TestConfigCheck: settings that cannot work are refused with the field named.
func TestConfigCheck(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Issuer: "http://idp.example.com", Audiences: []string{"a"}}, "must be https"},
		{Config{Issuer: "https://idp.example.com", JWKSURL: "ftp://x", Audiences: []string{"a"}}, "jwksURL"},
		{Config{Issuer: "https://idp.example.com"}, "audiences"},
		{Config{Issuer: "https://idp.example.com", Audiences: []string{"a"}, ClockSkew: time.Hour}, "clockSkew"},
		{Config{Issuer: "not a url", Audiences: []string{"a"}}, "issuer"},
	} {
		if err := c.cfg.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	if err := (Config{Issuer: "http://127.0.0.1:9/realm", Audiences: []string{"a"}}).Check(); err != nil {
		t.Errorf("a loopback issuer over http: %v", err)
	}
}

// TestIssuerUnavailable: an issuer that cannot be discovered is ErrIssuerUnavailable (the caller
// may retry), not a refused token.
func TestIssuerUnavailable(t *testing.T) {
	v, err := New(Config{Issuer: "http://127.0.0.1:1", Audiences: []string{"a"}}, http.DefaultClient)
	testutil.NoError(t, err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	testutil.NoError(t, err)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, nil)
	testutil.NoError(t, err)
	tok, err := jwt.Signed(signer).Claims(jwt.Claims{Issuer: "http://127.0.0.1:1", Subject: "s", Audience: jwt.Audience{"a"}}).Serialize()
	testutil.NoError(t, err)
	if _, err := v.Verify(context.Background(), tok); !errors.Is(err, ErrIssuerUnavailable) {
		t.Errorf("unreachable issuer: %v", err)
	}
}

func mustDecode(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	testutil.NoError(t, err)
	return b
}

// providerKey is the provider's published public key with key id kid.
func providerKey(t *testing.T, idp *testutil.IDP, kid string) *rsa.PublicKey {
	t.Helper()
	res, err := http.Get(idp.Issuer + "/jwks")
	testutil.NoError(t, err)
	defer func() { _ = res.Body.Close() }()
	var set jose.JSONWebKeySet
	testutil.NoError(t, json.NewDecoder(res.Body).Decode(&set))
	for _, k := range set.Key(kid) {
		if pub, ok := k.Key.(*rsa.PublicKey); ok {
			return pub
		}
	}
	t.Fatalf("the provider publishes no RSA key %q", kid)
	return nil
}

// sign makes a JWS of payload with key (an attacker's forgery).
func sign(t *testing.T, alg jose.SignatureAlgorithm, key any, kid string, payload []byte) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid))
	testutil.NoError(t, err)
	jws, err := s.Sign(payload)
	testutil.NoError(t, err)
	out, err := jws.CompactSerialize()
	testutil.NoError(t, err)
	return out
}

// TestNotYetValid: a token whose nbf is beyond the accepted leeway is refused. oidc-provider
// sets no nbf, so the issuer here is a key set this test serves and signs for.
func TestNotYetValid(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	testutil.NoError(t, err)
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _ = json.NewEncoder(w).Encode(set) }))
	t.Cleanup(srv.Close)
	const issuer = "https://issuer.example.com"
	v, err := New(Config{Issuer: issuer, JWKSURL: srv.URL, Audiences: []string{resource}}, http.DefaultClient)
	testutil.NoError(t, err)
	claims := func(nbf time.Time) []byte {
		b, _ := json.Marshal(map[string]any{"iss": issuer, "sub": "svc", "aud": resource, "exp": time.Now().Add(time.Hour).Unix(), "nbf": nbf.Unix()})
		return b
	}
	if _, err := v.Verify(context.Background(), sign(t, jose.RS256, key, "k1", claims(time.Now().Add(-time.Minute)))); err != nil {
		t.Fatalf("a token valid since a minute ago: %v", err)
	}
	_, err = v.Verify(context.Background(), sign(t, jose.RS256, key, "k1", claims(time.Now().Add(time.Hour))))
	wantRefusal(t, "nbf in an hour", err, "not valid yet")
}

// TestVerifiedTokensAreRemembered: a token that passed is remembered (until its expiry, at most a
// minute) so the same token again costs no signature check; a refused one is not.
func TestVerifiedTokensAreRemembered(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	testutil.NoError(t, err)
	var fetched atomic.Int32
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fetched.Add(1)
		_ = json.NewEncoder(w).Encode(set)
	}))
	t.Cleanup(srv.Close)
	const issuer = "https://issuer.example.com"
	v, err := New(Config{Issuer: issuer, JWKSURL: srv.URL, Audiences: []string{resource}}, http.DefaultClient)
	testutil.NoError(t, err)
	claims, _ := json.Marshal(map[string]any{"iss": issuer, "sub": "svc", "aud": resource, "exp": time.Now().Add(time.Hour).Unix()})
	tok := sign(t, jose.RS256, key, "k1", claims)
	for range 3 {
		if c, err := v.Verify(context.Background(), tok); err != nil || c.Subject != "svc" {
			t.Fatalf("verify: %v %v", c, err)
		}
	}
	v.cacheMu.Lock()
	n := len(v.verified)
	v.cacheMu.Unlock()
	if n != 1 {
		t.Errorf("%d tokens remembered, want 1", n)
	}
	other, _ := json.Marshal(map[string]any{"iss": issuer, "sub": "svc", "aud": "https://elsewhere.example.com", "exp": time.Now().Add(time.Hour).Unix()})
	for range 2 {
		_, err = v.Verify(context.Background(), sign(t, jose.RS256, key, "k1", other))
		wantRefusal(t, "another audience", err, "not for this audience")
	}
	v.cacheMu.Lock()
	n = len(v.verified)
	v.cacheMu.Unlock()
	if n != 1 {
		t.Errorf("refused tokens were remembered: %d", n)
	}
}
