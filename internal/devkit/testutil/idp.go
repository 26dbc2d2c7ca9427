package testutil

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
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
	RedirectURIs       []string `json:"redirect_uris,omitempty"`
	PostLogoutRedirect []string `json:"post_logout_redirect_uris,omitempty"`
	// GrantTypes: ["client_credentials"] for a machine caller (ClientToken); default the
	// authorization code flow.
	GrantTypes    []string  `json:"grant_types,omitempty"`
	ResponseTypes *[]string `json:"response_types,omitempty"`
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

// ClientToken is a JWT access token for resource (its aud) that the provider issues to a
// machine client with the client credentials grant (the client's GrantTypes must hold
// "client_credentials" and its ResponseTypes be empty).
func (p *IDP) ClientToken(t *testing.T, clientID, secret, resource string) string {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "resource": {resource}, "scope": {"agent"}}
	req, err := http.NewRequest(http.MethodPost, p.Issuer+"/token", strings.NewReader(form.Encode()))
	NoError(t, err)
	req.SetBasicAuth(url.QueryEscape(clientID), url.QueryEscape(secret))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := http.DefaultClient.Do(req)
	NoError(t, err)
	defer func() { _ = res.Body.Close() }()
	var out struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error_description"`
	}
	NoError(t, json.NewDecoder(res.Body).Decode(&out))
	if res.StatusCode != http.StatusOK || out.AccessToken == "" {
		t.Fatalf("client credentials token for %s: %d %s", clientID, res.StatusCode, out.Error)
	}
	return out.AccessToken
}

// RotateKeys makes the provider sign with a new key (the old one stays published) and returns
// the new key id.
func (p *IDP) RotateKeys(t *testing.T) string {
	t.Helper()
	res, err := http.Post(p.Issuer+"/test/rotate-keys", "application/json", nil)
	NoError(t, err)
	defer func() { _ = res.Body.Close() }()
	var out struct {
		Kid string `json:"kid"`
	}
	NoError(t, json.NewDecoder(res.Body).Decode(&out))
	if res.StatusCode != http.StatusOK || out.Kid == "" {
		t.Fatalf("rotating the provider's keys: %d", res.StatusCode)
	}
	return out.Kid
}
