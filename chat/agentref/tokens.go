package agentref

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

// TokenLifetime is how long the ServiceAccount tokens the chat asks for live: the shortest the
// API server issues. A token is used again until a fifth of its life is left.
const TokenLifetime = 10 * time.Minute

// maxAudiences bounds the tokens kept: one per agent, so a chat with more agents than this
// only asks more often.
const maxAudiences = 1000

// ServiceAccountTokens are this chat's own ServiceAccount tokens, one audience per agent
// (TokenRequest: the bound, expiring tokens a projected volume holds, for any audience, so a
// token one agent receives cannot be replayed to another). It needs `create` on its own
// serviceaccounts/token, which the chart grants.
type ServiceAccountTokens struct {
	kube            kubernetes.Interface
	namespace, name string
	now             func() time.Time

	group  singleflight.Group
	mu     sync.Mutex
	issued map[string]issuedToken
}

type issuedToken struct {
	token      string
	renewAfter time.Time
	expiresAt  time.Time
}

// NewServiceAccountTokens issues tokens of the ServiceAccount ref ("namespace/name") through the
// API server of cfg.
func NewServiceAccountTokens(cfg *rest.Config, ref string) (*ServiceAccountTokens, error) {
	namespace, name, err := ParseRef(ref)
	if err != nil {
		return nil, fmt.Errorf("failed to parse ServiceAccount %q: %w", ref, err)
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("failed to build a client for %q: %w", cfg.Host, err)
	}
	return &ServiceAccountTokens{kube: kube, namespace: namespace, name: name, now: time.Now, issued: map[string]issuedToken{}}, nil
}

// Subject is the ServiceAccount's name in its tokens (what an Agent's serviceAccounts allows).
func (s *ServiceAccountTokens) Subject() string {
	return "system:serviceaccount:" + s.namespace + ":" + s.name
}

// Token is a token for audience: a kept one while most of its life is left, else a new one
// (concurrent callers for one audience share one request).
func (s *ServiceAccountTokens) Token(ctx context.Context, audience string) (string, error) {
	if tok, ok := s.kept(audience); ok {
		return tok, nil
	}
	v, err, _ := s.group.Do(audience, func() (any, error) {
		if tok, ok := s.kept(audience); ok {
			return tok, nil
		}
		return s.request(ctx, audience)
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

func (s *ServiceAccountTokens) kept(audience string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.issued[audience]
	return t.token, ok && s.now().Before(t.renewAfter)
}

func (s *ServiceAccountTokens) request(ctx context.Context, audience string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	tr, err := s.kube.CoreV1().ServiceAccounts(s.namespace).CreateToken(ctx, s.name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{Audiences: []string{audience}, ExpirationSeconds: ptr.To(int64(TokenLifetime / time.Second))},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("failed to request a token of ServiceAccount %q for %q: %w", s.namespace+"/"+s.name, audience, err)
	}
	now := s.now()
	expires := tr.Status.ExpirationTimestamp.Time
	if !expires.After(now) {
		expires = now.Add(TokenLifetime)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.issued) >= maxAudiences {
		for aud, t := range s.issued {
			if !now.Before(t.expiresAt) {
				delete(s.issued, aud)
			}
		}
		if len(s.issued) >= maxAudiences {
			clear(s.issued)
		}
	}
	s.issued[audience] = issuedToken{token: tr.Status.Token, renewAfter: expires.Add(-expires.Sub(now) / 5), expiresAt: expires}
	return tr.Status.Token, nil
}
