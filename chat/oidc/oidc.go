// Package oidc signs chat users in through an OpenID Connect provider: the authorization code
// flow with PKCE, state and nonce, the chat service as a confidential client. Token checks are
// go-oidc's (issuer, audience, expiry, signature from the provider's JWKS); this package adds
// the nonce, the claims Agentry reads and the sign-in policy (domains, groups, verified e-mail).
package oidc

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// Config is the provider and the sign-in policy.
type Config struct {
	// Issuer is the provider's issuer URL (discovery at Issuer + /.well-known/openid-configuration).
	Issuer       string
	ClientID     string
	ClientSecret string
	// RedirectURL is the chat service's callback as registered with the provider.
	RedirectURL string
	// Scopes beside openid (default: email, profile).
	Scopes []string
	// ProviderName is what the sign-in button says ("Sign in with <ProviderName>").
	ProviderName string
	// GroupsClaim names the claim that lists the user's groups (empty: groups are not read).
	GroupsClaim string
	// AdminGroups make their members chat admins; the role follows the provider at each sign-in.
	AdminGroups []string
	// RequiredGroups, when set, refuse anyone in none of them.
	RequiredGroups []string
	// AllowedDomains, when set, refuse anyone whose e-mail is in none of them.
	AllowedDomains []string
	// RequireVerifiedEmail refuses an e-mail the provider does not say is verified.
	RequireVerifiedEmail bool
	// HTTPClient makes the discovery, JWKS, token and userinfo calls (default http.DefaultClient).
	HTTPClient *http.Client
}

// Identity is who signed in, as the provider says.
type Identity struct {
	// UID is the chat user id: derived from the issuer and the subject, never from the e-mail,
	// which a user may change.
	UID           string
	Issuer        string
	Subject       string
	Name          string
	Email         string
	EmailVerified bool
	Picture       string
	Groups        []string
	// Admin says whether the user is in one of the admin groups.
	Admin bool
}

// Login is what the browser keeps between the redirect to the provider and the callback.
type Login struct {
	State    string
	Nonce    string
	Verifier string
}

// Refusal is a sign-in the policy or the provider refused: Code is what the web app shows a
// sentence for (access_denied, domain, group, email_unverified, invalid), never a token.
type Refusal struct {
	Code string
	err  error
}

func (r *Refusal) Error() string { return fmt.Sprintf("sign-in refused (%s): %v", r.Code, r.err) }
func (r *Refusal) Unwrap() error { return r.err }

func refuse(code string, format string, args ...any) error {
	return &Refusal{Code: code, err: fmt.Errorf(format, args...)}
}

// Client is a configured provider.
type Client struct {
	cfg      Config
	provider *oidc.Provider
	verifier *oidc.IDTokenVerifier
	oauth    oauth2.Config
}

// New discovers the provider.
func New(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.Issuer == "" || cfg.ClientID == "" || cfg.ClientSecret == "" || cfg.RedirectURL == "" {
		return nil, errors.New("an OpenID provider needs an issuer URL, a client id, a client secret and a redirect URL")
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	ctx = oidc.ClientContext(ctx, cfg.HTTPClient)
	provider, err := oidc.NewProvider(ctx, cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("failed to discover the OpenID provider %q: %w", cfg.Issuer, err)
	}
	scopes := []string{oidc.ScopeOpenID}
	for _, s := range cmpScopes(cfg.Scopes) {
		if s != oidc.ScopeOpenID {
			scopes = append(scopes, s)
		}
	}
	return &Client{
		cfg:      cfg,
		provider: provider,
		verifier: provider.Verifier(&oidc.Config{ClientID: cfg.ClientID}),
		oauth: oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, RedirectURL: cfg.RedirectURL,
			Endpoint: provider.Endpoint(), Scopes: scopes},
	}, nil
}

func cmpScopes(s []string) []string {
	if len(s) == 0 {
		return []string{"email", "profile"}
	}
	return s
}

// ProviderName is the name the sign-in button shows.
func (c *Client) ProviderName() string { return c.cfg.ProviderName }

// Secure says whether the callback is https, so the sign-in's cookies are Secure.
func (c *Client) Secure() bool { return strings.HasPrefix(c.cfg.RedirectURL, "https://") }

// ManagesRoles says whether the provider's groups decide who is a chat admin (admin groups are
// configured): then the role follows the provider at every sign-in, both ways.
func (c *Client) ManagesRoles() bool { return len(c.cfg.AdminGroups) > 0 }

// Begin starts a sign-in: the provider's authorization URL (code flow, PKCE S256, state,
// nonce) and what the browser must keep until the callback.
func (c *Client) Begin() (string, Login) {
	l := Login{State: oauth2.GenerateVerifier(), Nonce: oauth2.GenerateVerifier(), Verifier: oauth2.GenerateVerifier()}
	return c.oauth.AuthCodeURL(l.State, oidc.Nonce(l.Nonce), oauth2.S256ChallengeOption(l.Verifier)), l
}

// Finish completes a sign-in from the callback's state and code and the Login that Begin
// made: the code is exchanged (with the PKCE verifier), the ID token verified, the nonce
// compared and the policy applied.
func (c *Client) Finish(ctx context.Context, l Login, state, code string) (Identity, error) {
	if l.State == "" || subtle.ConstantTimeCompare([]byte(l.State), []byte(state)) != 1 {
		return Identity{}, refuse("invalid", "the sign-in's state does not match (start again)")
	}
	if code == "" {
		return Identity{}, refuse("invalid", "the provider sent no code")
	}
	ctx = oidc.ClientContext(ctx, c.cfg.HTTPClient)
	tok, err := c.oauth.Exchange(ctx, code, oauth2.VerifierOption(l.Verifier))
	if err != nil {
		return Identity{}, refuse("invalid", "failed to exchange the code: %w", redactExchange(err))
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		return Identity{}, refuse("invalid", "the provider answered without an ID token")
	}
	idt, err := c.verifier.Verify(ctx, raw)
	if err != nil {
		return Identity{}, refuse("invalid", "the ID token is not valid: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(l.Nonce)) != 1 {
		return Identity{}, refuse("invalid", "the ID token's nonce does not match")
	}
	claims := map[string]any{}
	if err := idt.Claims(&claims); err != nil {
		return Identity{}, refuse("invalid", "failed to read the ID token's claims: %w", err)
	}
	c.addUserInfo(ctx, tok, idt.Subject, claims)
	id := c.identity(idt.Issuer, idt.Subject, claims)
	return id, c.allow(id)
}

// addUserInfo fills in the claims a provider sends only from its userinfo endpoint (an ID
// token issued with an access token may carry only the subject). Best effort: the ID token
// is what proves who signed in, and a userinfo answer for another subject is ignored.
func (c *Client) addUserInfo(ctx context.Context, tok *oauth2.Token, subject string, claims map[string]any) {
	if c.provider.UserInfoEndpoint() == "" {
		return
	}
	info, err := c.provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	if err != nil || info.Subject != subject {
		return
	}
	more := map[string]any{}
	if info.Claims(&more) != nil {
		return
	}
	for k, v := range more {
		if _, ok := claims[k]; !ok {
			claims[k] = v
		}
	}
}

func (c *Client) identity(issuer, subject string, claims map[string]any) Identity {
	str := func(k string) string { s, _ := claims[k].(string); return s }
	id := Identity{UID: UID(issuer, subject), Issuer: issuer, Subject: subject, Name: str("name"),
		Email: str("email"), Picture: str("picture")}
	switch v := claims["email_verified"].(type) {
	case bool:
		id.EmailVerified = v
	case string: // some providers send "true"
		id.EmailVerified = v == "true"
	}
	if c.cfg.GroupsClaim != "" {
		id.Groups = stringList(claims[c.cfg.GroupsClaim])
	}
	id.Admin = intersects(id.Groups, c.cfg.AdminGroups)
	if id.Name == "" {
		id.Name = firstNonEmpty(str("preferred_username"), id.Email, subject)
	}
	return id
}

// allow applies the sign-in policy.
func (c *Client) allow(id Identity) error {
	if len(c.cfg.AllowedDomains) > 0 {
		_, domain, _ := strings.Cut(id.Email, "@")
		if !slices.ContainsFunc(c.cfg.AllowedDomains, func(d string) bool { return strings.EqualFold(d, domain) }) {
			return refuse("domain", "the e-mail %q is not in an allowed domain", id.Email)
		}
	}
	if (c.cfg.RequireVerifiedEmail || len(c.cfg.AllowedDomains) > 0) && !id.EmailVerified {
		return refuse("email_unverified", "the provider has not verified the e-mail %q", id.Email)
	}
	if len(c.cfg.RequiredGroups) > 0 && !intersects(id.Groups, c.cfg.RequiredGroups) {
		return refuse("group", "the user is in none of the required groups")
	}
	return nil
}

// PostLogoutURL is where the provider sends the browser after signing out: the chat's root
// (the redirect URL's origin + "/"); register it at the provider as a post-logout redirect URI.
func (c *Client) PostLogoutURL() string {
	u, err := url.Parse(c.cfg.RedirectURL)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host + "/"
}

// EndSessionURL is the provider's RP-initiated logout URL back to postLogout, or "" when the
// provider offers none.
func (c *Client) EndSessionURL(postLogout string) string {
	var meta struct {
		EndSession string `json:"end_session_endpoint"`
	}
	if c.provider.Claims(&meta) != nil || meta.EndSession == "" {
		return ""
	}
	u := meta.EndSession + "?client_id=" + url.QueryEscape(c.cfg.ClientID)
	if postLogout != "" {
		u += "&post_logout_redirect_uri=" + url.QueryEscape(postLogout)
	}
	return u
}

// UID is the chat uid of a provider's subject: stable for the pair, safe as a uid, and the
// same on every replica.
func UID(issuer, subject string) string {
	sum := sha256.Sum256([]byte(issuer + "\x00" + subject))
	return "sso-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:15]))
}

// LoginTTL is how long a started sign-in may take at the provider.
const LoginTTL = 10 * time.Minute
