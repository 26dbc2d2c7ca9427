// Package jwtauth verifies bearer JWTs from a trusted issuer: go-oidc checks the claims
// (issuer, expiry, not-before, the signing algorithm), go-jose the signature against the
// issuer's published keys; this package adds several audiences, required claims, clock skew,
// a bounded key cache, and refusals that say what was wrong without repeating the token.
package jwtauth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Config is what a verifier accepts.
type Config struct {
	// Issuer is the iss every token must carry; without JWKSURL its discovery document names
	// the keys.
	Issuer  string
	JWKSURL string
	// Audiences: a token's aud must name at least one.
	Audiences []string
	// RequiredClaims: a string claim equal to the value, or a list claim containing it.
	RequiredClaims map[string]string
	// ClockSkew is how long past exp a token is still accepted (default DefaultClockSkew).
	ClockSkew time.Duration
	// Subjects, when set, are the only subjects accepted (a cluster's ServiceAccounts).
	Subjects []string
}

// DefaultClockSkew and MaxClockSkew bound Config.ClockSkew.
const (
	DefaultClockSkew = 30 * time.Second
	MaxClockSkew     = 5 * time.Minute
)

// Algorithms are the signing algorithms accepted: asymmetric ones only, so neither `none` nor
// an HMAC keyed with a public key can pass.
var Algorithms = []string{oidc.RS256, oidc.RS384, oidc.RS512, oidc.ES256, oidc.ES384, oidc.ES512, oidc.PS256, oidc.PS384, oidc.PS512, oidc.EdDSA}

// signingAlgorithms are Algorithms as go-jose names them.
var signingAlgorithms = func() []jose.SignatureAlgorithm {
	algs := make([]jose.SignatureAlgorithm, len(Algorithms))
	for i, a := range Algorithms {
		algs[i] = jose.SignatureAlgorithm(a)
	}
	return algs
}()

// Check says what is wrong with c, naming the field; nil when it is usable. http is allowed
// only for loopback issuers (a development or test provider).
func (c Config) Check() error {
	if err := CheckURL("issuer", c.Issuer); err != nil {
		return err
	}
	if c.JWKSURL != "" {
		if err := CheckURL("jwksURL", c.JWKSURL); err != nil {
			return err
		}
	}
	if len(c.Audiences) == 0 {
		return errors.New("audiences must name at least one audience")
	}
	if c.ClockSkew < 0 || c.ClockSkew > MaxClockSkew {
		return fmt.Errorf("clockSkew must be between 0 and %s", MaxClockSkew)
	}
	return nil
}

// CheckURL says what is wrong with an issuer's or key set's URL named field: absolute, https,
// http only on loopback (a development or test issuer).
func CheckURL(field, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.Fragment != "" {
		return fmt.Errorf("%s %q is not an absolute URL", field, raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if h := u.Hostname(); h == "localhost" || strings.HasPrefix(h, "127.") || h == "::1" {
			return nil
		}
	}
	return fmt.Errorf("%s %q must be https (http only on loopback)", field, raw)
}

// Caller is who a verified token says is calling. The token itself is kept for TokenFor only:
// it is never printed (String and the JSON form leave it out).
type Caller struct {
	Issuer  string
	Subject string
	// audiences and raw are the verified token's aud and the token.
	audiences []string
	raw       string
}

// TokenFor is the caller's token when it names audience (a tool that is one of its
// audiences may receive it); false otherwise.
func (c Caller) TokenFor(audience string) (string, bool) {
	if audience == "" || c.raw == "" || !slices.Contains(c.audiences, audience) {
		return "", false
	}
	return c.raw, true
}

func (c Caller) String() string   { return c.Issuer + " " + c.Subject }
func (c Caller) GoString() string { return "jwtauth.Caller{" + c.String() + "}" }

type callerKey struct{}

// WithCaller is ctx carrying the verified caller (tools read it to learn who is asking).
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom is the verified caller ctx carries; false when the request was not made with a
// verified token.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok && c.Subject != ""
}

// Refusal is a token the verifier refused. Reason is safe to show the caller (the
// WWW-Authenticate error_description): it never holds the token or a claim's value.
type Refusal struct {
	Reason string
	// OtherIssuer: the token names another issuer (a caller with several verifiers tries the
	// next one and reports this refusal only when every one says so).
	OtherIssuer bool
	err         error
}

func (r *Refusal) Error() string { return "invalid token: " + r.Reason }
func (r *Refusal) Unwrap() error { return r.err }

// ErrIssuerUnavailable: the issuer's discovery document or keys could not be read; the
// caller may try again.
var ErrIssuerUnavailable = errors.New("the token issuer cannot be reached")

// Verifier verifies tokens for one Config. Discovery happens at the first token, and again
// after a failure at most every retryEvery.
type Verifier struct {
	cfg    Config
	client *http.Client

	mu       sync.Mutex
	verifier *oidc.IDTokenVerifier
	failed   time.Time
	err      error
	// refetch is how often an unknown key id may fetch the keys again (refetchEvery; tests
	// shorten it).
	refetch time.Duration
	// verified remembers tokens that passed, by their SHA-256, for at most cacheFor and never
	// past their expiry: a caller that sends the same token again costs a map lookup, not a
	// signature check (Envoy's jwt_authn caches verified tokens the same way).
	cacheMu  sync.Mutex
	verified map[[32]byte]cached
}

type cached struct {
	caller Caller
	until  time.Time
}

const (
	cacheFor      = time.Minute
	maxCacheItems = 10000
)

func (v *Verifier) fromCache(key [32]byte) (Caller, bool) {
	v.cacheMu.Lock()
	defer v.cacheMu.Unlock()
	c, ok := v.verified[key]
	if !ok || !time.Now().Before(c.until) {
		return Caller{}, false
	}
	return c.caller, true
}

func (v *Verifier) remember(key [32]byte, c Caller, expiry time.Time) {
	until := time.Now().Add(cacheFor)
	if expiry.Before(until) {
		until = expiry
	}
	v.cacheMu.Lock()
	defer v.cacheMu.Unlock()
	if v.verified == nil {
		v.verified = map[[32]byte]cached{}
	}
	if len(v.verified) >= maxCacheItems {
		now := time.Now()
		for k, e := range v.verified {
			if !now.Before(e.until) {
				delete(v.verified, k)
			}
		}
		if len(v.verified) >= maxCacheItems {
			clear(v.verified) // a flood of distinct valid tokens: start over rather than grow
		}
	}
	v.verified[key] = cached{caller: c, until: until}
}

const retryEvery = 10 * time.Second

// New returns a verifier for cfg (checked with Check) that reads the issuer with client (which
// should refuse metadata and link-local addresses).
func New(cfg Config, client *http.Client) (*Verifier, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if cfg.ClockSkew == 0 {
		cfg.ClockSkew = DefaultClockSkew
	}
	return &Verifier{cfg: cfg, client: client, refetch: refetchEvery}, nil
}

// Verify checks a raw token: a *Refusal for a bad token, ErrIssuerUnavailable (wrapped) when the
// issuer cannot be read.
func (v *Verifier) Verify(ctx context.Context, raw string) (Caller, error) {
	key := sha256.Sum256([]byte(raw))
	if c, ok := v.fromCache(key); ok {
		return c, nil
	}
	// go-oidc checks the signature before the issuer: a token of another issuer would cost a
	// fetch of keys for a key id that is not there. Its claimed issuer is read first (not
	// trusted: the signature and every claim are verified below).
	if iss, err := claimedIssuer(raw); err != nil {
		if strings.Contains(err.Error(), "algorithm") {
			return Caller{}, &Refusal{Reason: "the token's signing algorithm is not accepted", err: err}
		}
		return Caller{}, &Refusal{Reason: "the token is malformed", err: err}
	} else if iss != v.cfg.Issuer {
		return Caller{}, &Refusal{Reason: "the token is from another issuer", OtherIssuer: true}
	}
	verifier, err := v.get(ctx)
	if err != nil {
		return Caller{}, err
	}
	tok, err := verifier.Verify(ctx, raw)
	if err != nil {
		return Caller{}, refusal(err)
	}
	if !slices.ContainsFunc(tok.Audience, func(a string) bool { return slices.Contains(v.cfg.Audiences, a) }) {
		return Caller{}, &Refusal{Reason: "the token is not for this audience"}
	}
	if len(v.cfg.RequiredClaims) > 0 {
		var claims map[string]json.RawMessage
		if err := tok.Claims(&claims); err != nil {
			return Caller{}, &Refusal{Reason: "malformed claims", err: err}
		}
		for name, want := range v.cfg.RequiredClaims {
			if !claimHolds(claims[name], want) {
				return Caller{}, &Refusal{Reason: fmt.Sprintf("the token lacks the required claim %q", name)}
			}
		}
	}
	if tok.Subject == "" {
		return Caller{}, &Refusal{Reason: "the token has no subject"}
	}
	if len(v.cfg.Subjects) > 0 && !slices.Contains(v.cfg.Subjects, tok.Subject) {
		return Caller{}, &Refusal{Reason: "the token's subject may not call this agent"}
	}
	caller := Caller{Issuer: tok.Issuer, Subject: tok.Subject, audiences: tok.Audience, raw: raw}
	v.remember(key, caller, tok.Expiry)
	return caller, nil
}

// claimedIssuer is the iss a token claims, unverified.
func claimedIssuer(raw string) (string, error) {
	tok, err := jwt.ParseSigned(raw, signingAlgorithms)
	if err != nil {
		return "", err
	}
	var claims jwt.Claims
	if err := tok.UnsafeClaimsWithoutVerification(&claims); err != nil {
		return "", err
	}
	return claims.Issuer, nil
}

// claimHolds: a string claim equal to want, or a list claim containing it.
func claimHolds(raw json.RawMessage, want string) bool {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s == want
	}
	var list []string
	return json.Unmarshal(raw, &list) == nil && slices.Contains(list, want)
}

// refusal names what go-oidc refused. Its errors are matched by type where it has one and by
// its stable messages otherwise.
func refusal(err error) error {
	var expired *oidc.TokenExpiredError
	msg := err.Error()
	switch {
	case errors.As(err, &expired):
		return &Refusal{Reason: "the token has expired", err: err}
	// go-oidc wraps a key set's errors with %v: matched by message.
	case strings.Contains(msg, ErrIssuerUnavailable.Error()):
		return fmt.Errorf("%w (its keys)", ErrIssuerUnavailable)
	case strings.Contains(msg, errUnknownKey.Error()):
		return &Refusal{Reason: "the token is signed with an unknown key", err: err}
	case strings.Contains(msg, "issued by a different provider"):
		return &Refusal{Reason: "the token is from another issuer", OtherIssuer: true, err: err}
	case strings.Contains(msg, "unsupported algorithm") || strings.Contains(msg, "unexpected signature algorithm"):
		return &Refusal{Reason: "the token's signing algorithm is not accepted", err: err}
	case strings.Contains(msg, "before the nbf"):
		return &Refusal{Reason: "the token is not valid yet", err: err}
	case strings.Contains(msg, "malformed") || strings.Contains(msg, "failed to decode") || strings.Contains(msg, "failed to unmarshal"):
		return &Refusal{Reason: "the token is malformed", err: err}
	case strings.Contains(msg, "signature"):
		return &Refusal{Reason: "the token's signature does not verify", err: err}
	}
	return &Refusal{Reason: "the token is not valid", err: err}
}

// get is the go-oidc verifier, discovering the issuer's keys first when it must.
func (v *Verifier) get(ctx context.Context) (*oidc.IDTokenVerifier, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.verifier != nil {
		return v.verifier, nil
	}
	if v.err != nil && time.Since(v.failed) < retryEvery {
		return nil, v.err
	}
	jwksURL := v.cfg.JWKSURL
	if jwksURL == "" {
		dctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, v.client), 10*time.Second)
		defer cancel()
		p, err := oidc.NewProvider(dctx, v.cfg.Issuer)
		if err != nil {
			v.failed, v.err = time.Now(), fmt.Errorf("%w: failed to discover %q: %v", ErrIssuerUnavailable, v.cfg.Issuer, err)
			return nil, v.err
		}
		var meta struct {
			JWKSURL string `json:"jwks_uri"`
		}
		if err := p.Claims(&meta); err != nil || meta.JWKSURL == "" {
			v.failed, v.err = time.Now(), fmt.Errorf("%w: the discovery document of %q names no jwks_uri", ErrIssuerUnavailable, v.cfg.Issuer)
			return nil, v.err
		}
		jwksURL = meta.JWKSURL
	}
	skew := v.cfg.ClockSkew
	v.verifier = oidc.NewVerifier(v.cfg.Issuer, &keySet{url: jwksURL, client: v.client, algs: signingAlgorithms, refetch: v.refetch}, &oidc.Config{
		SkipClientIDCheck:    true, // several audiences: checked in Verify
		SupportedSigningAlgs: Algorithms,
		Now:                  func() time.Time { return time.Now().Add(-skew) },
	})
	return v.verifier, nil
}
