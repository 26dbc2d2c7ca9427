// Package jwtsign signs the short-lived tokens the chat service sends an agent for each run of
// a person's message: subject the chat user, audience the agent, with the conversation id, so
// the agent (and its tools) know who is asking. Keys are ES256, shared by every replica through
// the store, rotated without downtime: a new key is published first and signs only once it is
// signAfter old (agents have fetched it by then, or fetch it for its unknown key id), while the
// older ones stay published until their tokens have long expired.
package jwtsign

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/platform/ids"
)

const (
	// TokenTTL is a token's lifetime: one call of an agent, with room for a slow start.
	TokenTTL = 5 * time.Minute
	// DefaultRotateEvery is how old the newest key may get before a new one signs.
	DefaultRotateEvery = 30 * 24 * time.Hour
	// published is how many of the newest keys the key set holds: the signing one and those
	// before it, whose tokens (TokenTTL) are long expired by the time they drop out.
	published = 3
	// reloadEvery is how often a replica reads the keys again, to sign with (and publish) a
	// key another replica made.
	reloadEvery = time.Minute
	// signAfter is how long a new key is published before it signs.
	signAfter = 15 * time.Minute
)

// Claims beside the registered ones: the conversation the run belongs to and, for a person who
// signed in through an identity provider, that provider's issuer and subject.
const (
	ConversationClaim    = "conversation_id"
	ProviderIssuerClaim  = "idp_iss"
	ProviderSubjectClaim = "idp_sub"
)

// Person is who a token is for: the chat uid (sub) and, when they signed in through an identity
// provider, that provider's account.
type Person struct {
	UID, ProviderIssuer, ProviderSubject string
}

// Signer signs tokens with the newest key.
type Signer struct {
	keys        store.SigningKeys
	issuer      string
	rotateEvery time.Duration
	// reload is reloadEvery, publish signAfter (tests shorten them).
	reload, publish time.Duration

	mu       sync.Mutex
	loaded   []loadedKey // newest first
	loadedAt time.Time

	// issued reuses a token for the same person, agent and conversation for half its life: an
	// agent that remembers verified tokens then checks a signature once per person and
	// conversation, not on every call.
	issuedMu sync.Mutex
	issued   map[issuedKey]issuedToken
}

type issuedKey struct {
	person                 Person
	audience, conversation string
}

type issuedToken struct {
	token string
	until time.Time
}

// maxIssued bounds the reused tokens; past it they are forgotten and signed afresh.
const maxIssued = 10000

type loadedKey struct {
	id      string
	key     *ecdsa.PrivateKey
	created time.Time
}

// New is a signer for issuer (the URL agents configure, e.g.
// https://chat.example.com/chat/v1) on the store's keys; it makes the first key when there is
// none. rotateEvery zero is DefaultRotateEvery.
func New(ctx context.Context, keys store.SigningKeys, issuer string, rotateEvery time.Duration) (*Signer, error) {
	if issuer == "" {
		return nil, errors.New("the issuer URL is required")
	}
	if rotateEvery <= 0 {
		rotateEvery = DefaultRotateEvery
	}
	s := &Signer{keys: keys, issuer: issuer, rotateEvery: rotateEvery, reload: reloadEvery, publish: signAfter}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Issuer is the iss of the tokens.
func (s *Signer) Issuer() string { return s.issuer }

// refresh reads the keys and, when the newest is missing or too old, adds one. Two replicas
// rotating at once both add a key: both are published, the newer signs.
func (s *Signer) refresh(ctx context.Context) error {
	keys, err := s.keys.SigningKeys(ctx, published)
	if err != nil {
		return fmt.Errorf("failed to read the signing keys: %w", err)
	}
	if len(keys) == 0 || time.Since(keys[0].CreatedAt) > s.rotateEvery {
		priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return fmt.Errorf("failed to generate a signing key: %w", err)
		}
		der, err := x509.MarshalPKCS8PrivateKey(priv)
		if err != nil {
			return fmt.Errorf("failed to encode a signing key: %w", err)
		}
		if err := s.keys.AddSigningKey(ctx, store.SigningKey{ID: ids.Hex(8), Private: der}); err != nil {
			return fmt.Errorf("failed to store a signing key: %w", err)
		}
		if keys, err = s.keys.SigningKeys(ctx, published); err != nil {
			return fmt.Errorf("failed to read the signing keys: %w", err)
		}
	}
	loaded := make([]loadedKey, 0, len(keys))
	for _, k := range keys {
		parsed, err := x509.ParsePKCS8PrivateKey(k.Private)
		priv, ok := parsed.(*ecdsa.PrivateKey)
		if err != nil || !ok {
			return fmt.Errorf("failed to parse signing key %q", k.ID)
		}
		loaded = append(loaded, loadedKey{id: k.ID, key: priv, created: k.CreatedAt})
	}
	s.loaded, s.loadedAt = loaded, time.Now()
	return nil
}

// current is the keys, read again when reloadEvery has passed. A failed reload keeps the
// keys it has (logged by the caller through the error only when there are none).
func (s *Signer) current(ctx context.Context) ([]loadedKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if time.Since(s.loadedAt) >= s.reload || len(s.loaded) == 0 {
		if err := s.refresh(ctx); err != nil && len(s.loaded) == 0 {
			return nil, err
		}
	}
	return s.loaded, nil
}

// Sign is a token for the person to call the agent audience in conversation.
func (s *Signer) Sign(ctx context.Context, person Person, audience, conversation string) (string, error) {
	k := issuedKey{person, audience, conversation}
	s.issuedMu.Lock()
	if t, ok := s.issued[k]; ok && time.Now().Before(t.until) {
		s.issuedMu.Unlock()
		return t.token, nil
	}
	s.issuedMu.Unlock()
	tok, err := s.sign(ctx, person, audience, conversation)
	if err != nil {
		return "", err
	}
	s.issuedMu.Lock()
	if s.issued == nil || len(s.issued) >= maxIssued {
		s.issued = map[issuedKey]issuedToken{}
	}
	s.issued[k] = issuedToken{token: tok, until: time.Now().Add(TokenTTL / 2)}
	s.issuedMu.Unlock()
	return tok, nil
}

func (s *Signer) sign(ctx context.Context, person Person, audience, conversation string) (string, error) {
	keys, err := s.current(ctx)
	if err != nil {
		return "", err
	}
	// The newest key published long enough; the very first key signs at once.
	k := keys[len(keys)-1]
	for _, c := range keys {
		if time.Since(c.created) >= s.publish {
			k = c
			break
		}
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: k.key, KeyID: k.id, Algorithm: string(jose.ES256)}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", fmt.Errorf("failed to make a signer: %w", err)
	}
	now := time.Now()
	claims := jwt.Claims{Issuer: s.issuer, Subject: person.UID, Audience: jwt.Audience{audience}, ID: ids.Hex(12),
		IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now.Add(-30 * time.Second)), Expiry: jwt.NewNumericDate(now.Add(TokenTTL))}
	extra := map[string]any{}
	if conversation != "" {
		extra[ConversationClaim] = conversation
	}
	if person.ProviderIssuer != "" && person.ProviderSubject != "" {
		extra[ProviderIssuerClaim], extra[ProviderSubjectClaim] = person.ProviderIssuer, person.ProviderSubject
	}
	tok, err := jwt.Signed(signer).Claims(claims).Claims(extra).Serialize()
	if err != nil {
		return "", fmt.Errorf("failed to sign a token: %w", err)
	}
	return tok, nil
}

// KeySet is the public keys agents verify the tokens with (the JWKS document).
func (s *Signer) KeySet(ctx context.Context) (jose.JSONWebKeySet, error) {
	keys, err := s.current(ctx)
	if err != nil {
		return jose.JSONWebKeySet{}, err
	}
	set := jose.JSONWebKeySet{Keys: make([]jose.JSONWebKey, 0, len(keys))}
	for _, k := range keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: &k.key.PublicKey, KeyID: k.id, Algorithm: string(jose.ES256), Use: "sig"})
	}
	return set, nil
}
