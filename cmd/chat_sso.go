//go:build !agentry_runtime

package cmd

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	chatapi "github.com/agentry-dev/agentry/chat/api"
	"github.com/agentry-dev/agentry/chat/oidc"
	"github.com/agentry-dev/agentry/internal/platform/egress"
)

// ssoFlags configure sign-in through an OpenID provider (agentry chat --oidc-issuer …).
type ssoFlags struct {
	issuer, clientID, secretFile, redirectURL, name, groupsClaim string
	scopes, adminGroups, requiredGroups, allowedDomains          []string
	requireVerifiedEmail                                         bool
	sessionTTL, sessionIdle                                      time.Duration
	sessionTTLErr, sessionIdleErr                                error
}

func (s *ssoFlags) register(f *pflag.FlagSet) {
	f.StringVar(&s.issuer, "oidc-issuer", os.Getenv("AGENTRY_CHAT_OIDC_ISSUER"), "issuer URL of the OpenID provider people sign in with (Keycloak, Okta, Entra ID, Google, Dex, …); empty: no sign-in through a provider (env AGENTRY_CHAT_OIDC_ISSUER)")
	f.StringVar(&s.clientID, "oidc-client-id", os.Getenv("AGENTRY_CHAT_OIDC_CLIENT_ID"), "the chat's client id at the provider (env AGENTRY_CHAT_OIDC_CLIENT_ID)")
	f.StringVar(&s.secretFile, "oidc-client-secret-file", os.Getenv("AGENTRY_CHAT_OIDC_CLIENT_SECRET_FILE"), "file holding the client secret (else env AGENTRY_CHAT_OIDC_CLIENT_SECRET)")
	f.StringVar(&s.redirectURL, "oidc-redirect-url", os.Getenv("AGENTRY_CHAT_OIDC_REDIRECT_URL"), "the callback registered at the provider: https://<chat host>/chat/v1/auth/sso/callback (env AGENTRY_CHAT_OIDC_REDIRECT_URL)")
	f.StringVar(&s.name, "oidc-provider-name", envOr("AGENTRY_CHAT_OIDC_PROVIDER_NAME", "your identity provider"), "what the sign-in button says: Sign in with <name> (env AGENTRY_CHAT_OIDC_PROVIDER_NAME)")
	f.StringSliceVar(&s.scopes, "oidc-scopes", splitList(envOr("AGENTRY_CHAT_OIDC_SCOPES", "email,profile")), "scopes asked for beside openid (env AGENTRY_CHAT_OIDC_SCOPES)")
	f.StringVar(&s.groupsClaim, "oidc-groups-claim", os.Getenv("AGENTRY_CHAT_OIDC_GROUPS_CLAIM"), "the claim that lists a user's groups, e.g. groups (env AGENTRY_CHAT_OIDC_GROUPS_CLAIM)")
	f.StringSliceVar(&s.adminGroups, "oidc-admin-groups", splitList(os.Getenv("AGENTRY_CHAT_OIDC_ADMIN_GROUPS")), "provider groups whose members are chat admins; set, the role follows the provider at every sign-in (env AGENTRY_CHAT_OIDC_ADMIN_GROUPS)")
	f.StringSliceVar(&s.requiredGroups, "oidc-required-groups", splitList(os.Getenv("AGENTRY_CHAT_OIDC_REQUIRED_GROUPS")), "refuse anyone in none of these provider groups (env AGENTRY_CHAT_OIDC_REQUIRED_GROUPS)")
	f.StringSliceVar(&s.allowedDomains, "oidc-allowed-domains", splitList(os.Getenv("AGENTRY_CHAT_OIDC_ALLOWED_DOMAINS")), "refuse anyone whose verified e-mail is in none of these domains (env AGENTRY_CHAT_OIDC_ALLOWED_DOMAINS)")
	f.BoolVar(&s.requireVerifiedEmail, "oidc-require-verified-email", envBool("AGENTRY_CHAT_OIDC_REQUIRE_VERIFIED_EMAIL", false), "refuse an e-mail the provider has not verified (env AGENTRY_CHAT_OIDC_REQUIRE_VERIFIED_EMAIL)")
	ttl, err := envDuration("AGENTRY_CHAT_SESSION_TTL", chatapi.DefaultSessionTTL)
	s.sessionTTLErr = err
	f.DurationVar(&s.sessionTTL, "session-ttl", ttl, "lifetime of a session from a provider sign-in (env AGENTRY_CHAT_SESSION_TTL)")
	idle, err := envDuration("AGENTRY_CHAT_SESSION_IDLE_TIMEOUT", 0)
	s.sessionIdleErr = err
	f.DurationVar(&s.sessionIdle, "session-idle-timeout", idle, "end a session nobody has used (no request, no socket frame) for this long; 0: no idle timeout (env AGENTRY_CHAT_SESSION_IDLE_TIMEOUT)")
}

// client discovers the provider; nil without --oidc-issuer. The provider's URLs are the
// operator's, so internal addresses (an in-cluster Keycloak) are allowed; link-local and
// metadata addresses never are.
func (s *ssoFlags) client(ctx context.Context, getenv func(string) string) (*oidc.Client, error) {
	if s.sessionTTLErr != nil {
		return nil, s.sessionTTLErr
	}
	if s.sessionTTL < 0 {
		return nil, fmt.Errorf("--session-ttl must be positive (0: the default, %s)", chatapi.DefaultSessionTTL)
	}
	if s.sessionIdleErr != nil {
		return nil, s.sessionIdleErr
	}
	if s.sessionIdle < 0 || (s.sessionIdle > 0 && s.sessionIdle < 10*time.Second) {
		return nil, fmt.Errorf("--session-idle-timeout must be 0 (none) or at least 10s, not %s", s.sessionIdle)
	}
	if s.issuer == "" {
		return nil, nil
	}
	secret := getenv("AGENTRY_CHAT_OIDC_CLIENT_SECRET")
	if s.secretFile != "" {
		b, err := os.ReadFile(s.secretFile)
		if err != nil {
			return nil, fmt.Errorf("failed to read --oidc-client-secret-file %q: %w", s.secretFile, err)
		}
		secret = strings.TrimSpace(string(b))
	}
	if s.clientID == "" || secret == "" || s.redirectURL == "" {
		return nil, fmt.Errorf("--oidc-issuer needs --oidc-client-id, --oidc-redirect-url and the client secret (--oidc-client-secret-file or AGENTRY_CHAT_OIDC_CLIENT_SECRET)")
	}
	return oidc.New(ctx, oidc.Config{Issuer: s.issuer, ClientID: s.clientID, ClientSecret: secret, RedirectURL: s.redirectURL,
		Scopes: s.scopes, ProviderName: s.name, GroupsClaim: s.groupsClaim, AdminGroups: s.adminGroups,
		RequiredGroups: s.requiredGroups, AllowedDomains: s.allowedDomains, RequireVerifiedEmail: s.requireVerifiedEmail,
		HTTPClient: providerClient()})
}

func providerClient() *http.Client {
	c := egress.Policy{AllowInternal: true}.Client(10 * time.Second)
	c.Timeout = 30 * time.Second
	return c
}
