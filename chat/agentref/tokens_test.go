package agentref

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/platform/jwtauth"
)

// TestServiceAccountTokens: the chat's tokens come from a real API server for its own
// ServiceAccount and the audience asked for, verify against the cluster's published keys, are
// used again for the same audience and not for another; with the chart's Role (create on its
// own serviceaccounts/token only) it gets its own tokens and no other ServiceAccount's.
func TestServiceAccountTokens(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t, "tokens")
	for _, name := range []string{"agentry-chat", "other"} {
		testutil.Check(t, k8s.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}))
	}
	tokens, err := NewServiceAccountTokens(cfg, ns+"/agentry-chat")
	testutil.Check(t, err)
	chef, waiter := v1alpha1.AgentAudience("default", "chef"), v1alpha1.AgentAudience("default", "waiter")
	tok, err := tokens.Token(ctx, chef)
	testutil.Check(t, err)

	client, err := rest.HTTPClientFor(cfg)
	testutil.Check(t, err)
	issuer, jwks, err := jwtauth.ClusterIssuer(ctx, client, cfg.Host)
	testutil.Check(t, err)
	verify := func(audience, subject string) error {
		v, err := jwtauth.New(jwtauth.Config{Issuer: issuer, JWKSURL: jwks, Audiences: []string{audience}, Subjects: []string{subject}}, client)
		testutil.Check(t, err)
		_, err = v.Verify(ctx, tok)
		return err
	}
	if tokens.Subject() != "system:serviceaccount:"+ns+":agentry-chat" {
		t.Errorf("subject %q", tokens.Subject())
	}
	if err := verify(chef, tokens.Subject()); err != nil {
		t.Errorf("the chat's token for chef: %v", err)
	}
	var refused *jwtauth.Refusal
	if err := verify(waiter, tokens.Subject()); !errors.As(err, &refused) {
		t.Errorf("chef's token verified for waiter: %v", err)
	}
	if again, _ := tokens.Token(ctx, chef); again != tok {
		t.Error("a second token for the same audience was requested while the first is fresh")
	}
	if other, _ := tokens.Token(ctx, waiter); other == "" || other == tok {
		t.Error("the token for another audience is the same token")
	}

	// The chart's Role, bound to a user standing in for the chat's ServiceAccount.
	user := "chat-tokens-" + ns
	testutil.Check(t, k8s.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "agentry-chat-token-requester"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"serviceaccounts/token"}, ResourceNames: []string{"agentry-chat"}, Verbs: []string{"create"}}}}))
	testutil.Check(t, k8s.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "agentry-chat-token-requester"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "agentry-chat-token-requester"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}}))
	u, err := testEnv.AddUser(envtest.User{Name: user}, nil)
	testutil.Check(t, err)
	own, err := NewServiceAccountTokens(u.Config(), ns+"/agentry-chat")
	testutil.Check(t, err)
	eventually(t, "the chat's own token with the chart's Role", func() error {
		_, err := own.Token(ctx, chef)
		return err
	})
	stolen, err := NewServiceAccountTokens(u.Config(), ns+"/other")
	testutil.Check(t, err)
	if _, err := stolen.Token(ctx, chef); err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("another ServiceAccount's token with the chart's Role: %v, want forbidden", err)
	}
}
