package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

const (
	jwtAudience = "https://agents.example.com/api/agents/bearer"
	jwtSecret   = "runtime-jwt-client-0123456789abcdef"
)

// TestBearerJWT: an agent with spec.endpoint.auth.jwt accepts a token of its issuer for its
// audience and refuses the rest with 401 and a WWW-Authenticate challenge saying why (never the
// token); with a headers Secret too, either passes; GET /api/agents lists it only to a caller
// that passes.
func TestBearerJWT(t *testing.T) {
	none := []string{}
	idp := testutil.StartIDP(t, testutil.IDPConfig{Clients: []testutil.IDPClient{{ID: "chat", Secret: jwtSecret,
		GrantTypes: []string{"client_credentials"}, ResponseTypes: &none}}})
	manifests := fmt.Sprintf(`
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: bearer}
spec:
  model: {name: m}
  endpoint:
    auth:
      jwt: {issuer: %[1]q, audiences: [%[2]q], requiredClaims: {scope: agent}}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: either}
spec:
  model: {name: m}
  endpoint:
    auth:
      headersSecretRef: {name: platform-auth}
      jwt: {issuer: %[1]q, audiences: [%[2]q]}
`, idp.Issuer, jwtAudience)
	e := startEnv(t, scriptedmodel.Sequence(), envOptions{manifests: manifests, server: func(o *Options) { o.Secrets = guardSecrets }})
	tok := idp.ClientToken(t, "chat", jwtSecret, jwtAudience)
	other := idp.ClientToken(t, "chat", jwtSecret, "https://other.example.com/agent")

	check := func(what, path string, header map[string]string, status int, challenge string) {
		t.Helper()
		res, body := fetch(t, e.base+path, header)
		if res.StatusCode != status || res.Header.Get("WWW-Authenticate") != challenge {
			t.Errorf("%s: %d %q %s, want %d %q", what, res.StatusCode, res.Header.Get("WWW-Authenticate"), body, status, challenge)
		}
		if strings.Contains(string(body), "eyJ") || strings.Contains(res.Header.Get("WWW-Authenticate"), "eyJ") {
			t.Errorf("%s: the answer repeats the token", what)
		}
	}
	bearer := func(t string) map[string]string { return map[string]string{"Authorization": "Bearer " + t} }
	check("no token", "/api/agents/bearer", nil, http.StatusUnauthorized, `Bearer realm="agentry"`)
	check("a valid token", "/api/agents/bearer", bearer(tok), http.StatusOK, "")
	check("another audience", "/api/agents/bearer", bearer(other), http.StatusUnauthorized,
		`Bearer realm="agentry", error="invalid_token", error_description="the token is not for this audience"`)
	check("not a JWT", "/api/agents/bearer", bearer("s3cr3t"), http.StatusUnauthorized,
		`Bearer realm="agentry", error="invalid_token", error_description="the token is malformed"`)
	check("headers only where a token is wanted", "/api/agents/bearer", map[string]string{"X-Api-Key": "s3cr3t"}, http.StatusUnauthorized, `Bearer realm="agentry"`)

	check("either: the header", "/api/agents/either", bearer("s3cr3t"), http.StatusOK, "")
	check("either: the token", "/api/agents/either", bearer(tok), http.StatusOK, "")
	check("either: neither", "/api/agents/either", bearer(other), http.StatusUnauthorized,
		`Bearer realm="agentry", error="invalid_token", error_description="the token is not for this audience"`)

	listed := func(header map[string]string) []string {
		_, body := fetch(t, e.base+"/api/agents", header)
		var out map[string]any
		testutil.NoError(t, json.Unmarshal(body, &out))
		var ids []string
		for _, id := range []string{"bearer", "either"} {
			if _, ok := out[id]; ok {
				ids = append(ids, id)
			}
		}
		return ids
	}
	if got := fmt.Sprint(listed(nil)); got != "[]" {
		t.Errorf("listed without credentials: %s", got)
	}
	if got := fmt.Sprint(listed(bearer(tok))); got != "[bearer either]" {
		t.Errorf("listed with a token: %s", got)
	}

	// A run through the token: the generate endpoint answers.
	status, _ := e.doWith(http.MethodPost, "/api/agents/bearer/generate", userMessage("hi"), bearer(tok))
	if status != http.StatusOK {
		t.Errorf("generate with a token: %d", status)
	}
}

// fetch GETs url with header and reads the whole answer.
func fetch(t *testing.T, url string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	testutil.NoError(t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	testutil.NoError(t, err)
	defer func() { _ = res.Body.Close() }()
	body, err := io.ReadAll(res.Body)
	testutil.NoError(t, err)
	return res, body
}
