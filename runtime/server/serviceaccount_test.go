package server

import (
	"net/http"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestServiceAccountTokens: an agent with spec.endpoint.auth.serviceAccounts accepts a token a
// real kube-apiserver issued to an allowed ServiceAccount for the agent's own audience, and
// refuses another ServiceAccount's, a token for another agent, and no token, with a challenge
// that says why; beside a JWT issuer, each kind of token passes and a refusal names what was
// wrong with the token rather than "another issuer".
func TestServiceAccountTokens(t *testing.T) {
	env, err := testutil.NewEnvtest("../..")
	testutil.NoError(t, err)
	cfg, err := env.Start()
	testutil.NoError(t, err)
	t.Cleanup(func() { _ = env.Stop() })
	kube := kubernetes.NewForConfigOrDie(cfg)
	for _, name := range []string{"chat", "stranger"} {
		_, err := kube.CoreV1().ServiceAccounts("default").Create(t.Context(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		testutil.NoError(t, err)
	}
	token := func(sa, audience string) string {
		t.Helper()
		tr, err := kube.CoreV1().ServiceAccounts("default").CreateToken(t.Context(), sa, &authenticationv1.TokenRequest{
			Spec: authenticationv1.TokenRequestSpec{Audiences: []string{audience}, ExpirationSeconds: ptr.To(int64(600))}}, metav1.CreateOptions{})
		testutil.NoError(t, err)
		return tr.Status.Token
	}

	none := []string{}
	idp := testutil.StartIDP(t, testutil.IDPConfig{Clients: []testutil.IDPClient{{ID: "chat", Secret: jwtSecret,
		GrantTypes: []string{"client_credentials"}, ResponseTypes: &none}}})
	manifests := `
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: private}
spec:
  model: {name: m}
  endpoint:
    auth:
      serviceAccounts: [{namespace: default, name: chat}]
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: mixed}
spec:
  model: {name: m}
  endpoint:
    auth:
      jwt: {issuer: ` + idp.Issuer + `, audiences: [` + jwtAudience + `]}
      serviceAccounts: [{namespace: default, name: chat}]
`
	// The envtest administrator stands in for the runtime pod's own ServiceAccount: it reads
	// the cluster's discovery document and keys as any ServiceAccount may.
	e := startEnv(t, scriptedmodel.Sequence(), envOptions{manifests: manifests, server: func(o *Options) {
		o.ClusterConfig = func() (*rest.Config, error) { return rest.CopyConfig(cfg), nil }
	}})
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	check := func(what, agent string, header map[string]string, status int, reason string) {
		t.Helper()
		res, body := fetch(t, e.base+"/api/agents/"+agent, header)
		challenge := `Bearer realm="agentry"`
		if reason != "" {
			challenge += `, error="invalid_token", error_description="` + reason + `"`
		}
		if status == http.StatusOK {
			challenge = ""
		}
		if res.StatusCode != status || res.Header.Get("WWW-Authenticate") != challenge {
			t.Errorf("%s: %d %q %s, want %d %q", what, res.StatusCode, res.Header.Get("WWW-Authenticate"), body, status, challenge)
		}
		if strings.Contains(string(body), "eyJ") {
			t.Errorf("%s: the answer repeats the token", what)
		}
	}
	private := v1alpha1.AgentAudience("default", "private")
	chat := token("chat", private)
	check("the allowed ServiceAccount", "private", bearer(chat), http.StatusOK, "")
	check("again (remembered)", "private", bearer(chat), http.StatusOK, "")
	check("another ServiceAccount", "private", bearer(token("stranger", private)), http.StatusUnauthorized, "the token's subject may not call this agent")
	check("a token for another agent", "private", bearer(token("chat", v1alpha1.AgentAudience("default", "mixed"))), http.StatusUnauthorized, "the token is not for this audience")
	check("a token for the API server", "private", bearer(token("chat", "https://kubernetes.default.svc")), http.StatusUnauthorized, "the token is not for this audience")
	check("no token", "private", nil, http.StatusUnauthorized, "")
	check("a token of another issuer", "private", bearer(idp.ClientToken(t, "chat", jwtSecret, jwtAudience)), http.StatusUnauthorized, "the token is from another issuer")

	mixed := v1alpha1.AgentAudience("default", "mixed")
	check("mixed: the issuer's token", "mixed", bearer(idp.ClientToken(t, "chat", jwtSecret, jwtAudience)), http.StatusOK, "")
	check("mixed: the ServiceAccount's token", "mixed", bearer(token("chat", mixed)), http.StatusOK, "")
	check("mixed: another ServiceAccount", "mixed", bearer(token("stranger", mixed)), http.StatusUnauthorized, "the token's subject may not call this agent")

	// A runtime outside any cluster cannot check such a token: 503, try again, not 401.
	lone := startEnv(t, scriptedmodel.Sequence(), envOptions{manifests: manifests})
	res, _ := fetch(t, lone.base+"/api/agents/private", bearer(chat))
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Errorf("no cluster: %d %v, want 503 with Retry-After", res.StatusCode, res.Header)
	}
}
