package server

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/platform/jwtauth"
	"github.com/agentry-dev/agentry/runtime/registry"
)

// clusterIssuer is the cluster's ServiceAccount token issuer, read from the API server at the
// first ServiceAccount token (spec.endpoint.auth.serviceAccounts) and again after a failure
// at most every clusterRetry. One per process: every agent trusts the same cluster.
type clusterIssuer struct {
	config func() (*rest.Config, error)

	mu      sync.Mutex
	client  *http.Client
	issuer  string
	jwksURL string
	failed  time.Time
	err     error
}

const clusterRetry = 10 * time.Second

func (c *clusterIssuer) get(ctx context.Context) (client *http.Client, issuer, jwksURL string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.issuer != "" {
		return c.client, c.issuer, c.jwksURL, nil
	}
	if c.err != nil && time.Since(c.failed) < clusterRetry {
		return nil, "", "", c.err
	}
	fail := func(err error) (*http.Client, string, string, error) {
		c.failed, c.err = time.Now(), err
		return nil, "", "", err
	}
	if c.config == nil {
		return fail(fmt.Errorf("%w: this runtime has no cluster to read ServiceAccount keys from", jwtauth.ErrIssuerUnavailable))
	}
	cfg, err := c.config()
	if err != nil {
		return fail(fmt.Errorf("%w: failed to find the cluster's API server: %v", jwtauth.ErrIssuerUnavailable, err))
	}
	// The API server's own address and CA, authenticated as this pod's ServiceAccount: not an
	// address an Agent's author aims, so the egress policy of issuer URLs does not apply.
	client, err = rest.HTTPClientFor(cfg)
	if err != nil {
		return fail(fmt.Errorf("%w: failed to build a client for %q: %v", jwtauth.ErrIssuerUnavailable, cfg.Host, err))
	}
	issuer, jwksURL, err = jwtauth.ClusterIssuer(ctx, client, cfg.Host)
	if err != nil {
		return fail(err)
	}
	c.client, c.issuer, c.jwksURL, c.err = client, issuer, jwksURL, nil
	return client, issuer, jwksURL, nil
}

// saVerifier is the agent's verifier of ServiceAccount tokens: the cluster's issuer, the
// agent's own audience, its allowed ServiceAccounts. The same manifest (until the registry
// reloads) keeps it without a comparison; a reload keeps it when the list is the same.
func (a *authChecker) saVerifier(ctx context.Context, e *registry.Entry) (*jwtauth.Verifier, error) {
	a.mu.Lock()
	sv, ok := a.sa[e.Agent.ID]
	a.mu.Unlock()
	if ok && sv.manifest == e.Manifest {
		return sv.v, nil
	}
	refs := e.Manifest.Spec.Endpoint.Auth.ServiceAccounts
	subjects := make([]string, len(refs))
	for i, r := range refs {
		subjects[i] = r.Subject()
	}
	m := e.Manifest
	audience := v1alpha1.AgentAudience(m.Namespace, m.Name)
	v := sv.v
	if !ok || sv.audience != audience || !slices.Equal(sv.subjects, subjects) {
		client, issuer, jwksURL, err := a.cluster.get(ctx)
		if err != nil {
			return nil, err
		}
		v, err = jwtauth.New(jwtauth.Config{Issuer: issuer, JWKSURL: jwksURL, Audiences: []string{audience}, Subjects: subjects}, client)
		if err != nil {
			return nil, fmt.Errorf("failed to trust the cluster's ServiceAccount tokens for agent %q: %w", e.Agent.ID, err)
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sa == nil {
		a.sa = map[string]saVerifier{}
	}
	a.sa[e.Agent.ID] = saVerifier{manifest: m, audience: audience, subjects: subjects, v: v}
	return v, nil
}

type saVerifier struct {
	manifest *v1alpha1.Agent
	audience string
	subjects []string
	v        *jwtauth.Verifier
}
