package testutil

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// IDPUser is a user of the test identity provider: signs in with Sub and Password on the
// provider's login form; the rest are the claims it releases.
type IDPUser struct {
	Sub           string   `json:"sub"`
	Password      string   `json:"password"`
	Email         string   `json:"email,omitempty"`
	EmailVerified bool     `json:"email_verified"`
	Name          string   `json:"name,omitempty"`
	Picture       string   `json:"picture,omitempty"`
	Groups        []string `json:"groups,omitempty"`
}

// IDPClient is a relying party registered with the test provider.
type IDPClient struct {
	ID                 string   `json:"client_id"`
	Secret             string   `json:"client_secret"`
	RedirectURIs       []string `json:"redirect_uris"`
	PostLogoutRedirect []string `json:"post_logout_redirect_uris,omitempty"`
}

// IDPConfig is the provider's configuration (test/idp/provider.mjs reads it).
type IDPConfig struct {
	Clients []IDPClient `json:"clients"`
	Users   []IDPUser   `json:"users"`
	// TTL sets token lifetimes in seconds by oidc-provider's names ("IdToken", "AccessToken").
	TTL map[string]int `json:"ttl,omitempty"`
}

// IDP is a running test provider.
type IDP struct {
	Issuer string
	path   string
	cfg    IDPConfig
}

// SetUser changes (or adds) a user; the provider reads it at the user's next sign-in.
func (p *IDP) SetUser(t *testing.T, u IDPUser) {
	t.Helper()
	users := []IDPUser{u}
	for _, old := range p.cfg.Users {
		if old.Sub != u.Sub {
			users = append(users, old)
		}
	}
	p.cfg.Users = users
	b, err := json.Marshal(p.cfg)
	NoError(t, err)
	NoError(t, os.WriteFile(p.path, b, 0o600))
}

// StartIDP starts a real OpenID provider (the OpenID Certified oidc-provider package from
// npm, pinned by test/idp/package-lock.json) on a loopback port. It stops with the test.
func StartIDP(t *testing.T, cfg IDPConfig) *IDP {
	t.Helper()
	script, err := nodeScript("test/idp", "provider.mjs")
	if err == nil {
		_, err = nodeScript("test/idp", "node_modules/oidc-provider/package.json")
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(cfg)
	NoError(t, err)
	path := filepath.Join(t.TempDir(), "idp.json")
	NoError(t, os.WriteFile(path, b, 0o600))
	_, issuer := Start(t, "node", filepath.Dir(script), nil, `issuer (\S+)`, script, path)
	return &IDP{Issuer: issuer, path: path, cfg: cfg}
}
