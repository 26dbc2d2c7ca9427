package agentref

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// wantURL is a check for eventually: ref resolves to want.
func wantURL(r Resolver, ref string, route Route, want string) func() error {
	return func() error {
		got, err := r.Resolve(context.Background(), ref, route)
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("resolved %q, want %q", got, want)
		}
		return nil
	}
}

// wantErr is a check for eventually: ref fails with kind and a message containing msg.
func wantErr(r Resolver, ref string, kind error, msg string) func() error {
	return func() error {
		got, err := r.Resolve(context.Background(), ref, RouteAGUI)
		if !errors.Is(err, kind) || !strings.Contains(fmt.Sprint(err), msg) {
			return fmt.Errorf("resolved %q, %v; want %v containing %q", got, err, kind, msg)
		}
		return nil
	}
}

func TestKubeResolverFollowsStatus(t *testing.T) {
	ns := namespace(t, "ref-follow")
	r := newResolver(t, cfg, Options{})
	a := createAgent(t, ns, "chef")
	ref := ns + "/chef"

	eventually(t, "a new Agent to be not ready", wantErr(r, ref, ErrAgentNotReady, "agent "+ref+" is not ready (EndpointPending)"))

	base := "http://agentry-chef." + ns + ".svc.cluster.local:4111/api/agents/chef"
	setStatus(t, a, base, "Ready=True:Ready")
	eventually(t, "the AG-UI URL", wantURL(r, ref, RouteAGUI, base+"/ag-ui"))
	testutil.Check(t, wantURL(r, ref, RouteGenerate, base+"/generate")())
	testutil.Check(t, wantURL(r, ref, RouteA2A, "http://agentry-chef."+ns+".svc.cluster.local:4111/a2a/chef")())

	moved := "http://agentry-chef." + ns + ".svc.cluster.local:4112/api/agents/chef/"
	setStatus(t, a, moved, "Ready=True:Ready")
	eventually(t, "the moved endpoint", wantURL(r, ref, RouteAGUI, strings.TrimSuffix(moved, "/")+"/ag-ui"))

	var cached v1alpha1.Agent
	testutil.Check(t, r.cache.Get(context.Background(), client.ObjectKeyFromObject(a), &cached))
	if cached.Spec.Instructions != "" || cached.Annotations != nil {
		t.Errorf("the cache keeps spec or annotations it never reads: %+v", cached.ObjectMeta)
	}
}

func TestKubeResolverReadiness(t *testing.T) {
	ns := namespace(t, "ref-ready")
	r := newResolver(t, cfg, Options{})
	base := "http://agentry-x." + ns + ".svc.cluster.local:4111/api/agents/x"
	for _, tc := range []struct {
		name, internal string
		conds          []string
		// wantReason "" means the Agent resolves.
		wantReason, wantMsg string
	}{
		{name: "no-endpoint", conds: []string{"Ready=True:Ready"}, wantReason: ReasonEndpointPending, wantMsg: "status.endpoints.internal"},
		{name: "conflict", internal: base, conds: []string{"Ready=False:ResourceConflict", "Available=True:DeploymentAvailable"},
			wantReason: v1alpha1.ReasonResourceConflict, wantMsg: "message of Ready"},
		{name: "down", internal: base, conds: []string{"Ready=False:NotReady", "ToolsResolved=True:Resolved", "Exposed=False:NotExposed", "Available=False:DeploymentUnavailable"},
			wantReason: v1alpha1.ReasonDeploymentUnavailable, wantMsg: "Available is False: message of Available"},
		{name: "tool-missing", internal: base, conds: []string{"Ready=False:NotReady", "ToolsResolved=False:ToolNotFound", "Available=True:DeploymentAvailable"},
			wantReason: v1alpha1.ReasonToolNotFound, wantMsg: "ToolsResolved is False"},
		// In-cluster callers need no public URL: Ready=False only for want of one does not block.
		{name: "internal-only", internal: base, conds: []string{"Ready=False:NotReady", "Exposed=False:NotExposed", "Available=True:DeploymentAvailable"}},
		{name: "public-http", internal: base, conds: []string{"Ready=False:NotReady", "Exposed=False:HTTPSRequired", "Available=True:DeploymentAvailable"}},
		{name: "no-conditions", internal: base},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setStatus(t, createAgent(t, ns, tc.name), tc.internal, tc.conds...)
			ref := ns + "/" + tc.name
			if tc.wantReason == "" {
				eventually(t, "the URL", wantURL(r, ref, RouteAGUI, base+"/ag-ui"))
				return
			}
			eventually(t, "the reason", wantErr(r, ref, ErrAgentNotReady, fmt.Sprintf("agent %s is not ready (%s)", ref, tc.wantReason)))
			_, err := r.Resolve(context.Background(), ref, RouteGenerate)
			var nr *NotReadyError
			if !errors.As(err, &nr) || nr.Reason != tc.wantReason || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("got %v, want reason %s and %q", err, tc.wantReason, tc.wantMsg)
			}
		})
	}
}

func TestKubeResolverNotFound(t *testing.T) {
	ns := namespace(t, "ref-gone")
	r := newResolver(t, cfg, Options{})
	testutil.Check(t, wantErr(r, ns+"/never", ErrAgentNotFound, "agent "+ns+"/never not found")())
	a := createAgent(t, ns, "chef")
	base := "http://agentry-chef." + ns + ".svc.cluster.local:4111/api/agents/chef"
	setStatus(t, a, base, "Ready=True:Ready")
	eventually(t, "the URL", wantURL(r, ns+"/chef", RouteAGUI, base+"/ag-ui"))
	testutil.Check(t, k8s.Delete(context.Background(), a))
	eventually(t, "the deletion", wantErr(r, ns+"/chef", ErrAgentNotFound, "agent "+ns+"/chef not found"))
	if err := wantErr(r, "chef", ErrInvalidRef, `failed to parse agent reference "chef"`)(); err != nil {
		t.Error(err)
	}
}

func TestKubeResolverNamespaces(t *testing.T) {
	in, out := namespace(t, "ref-in"), namespace(t, "ref-out")
	r := newResolver(t, cfg, Options{Namespaces: []string{in}})
	for _, ns := range []string{in, out} {
		setStatus(t, createAgent(t, ns, "chef"), "http://chef."+ns+":4111/api/agents/chef", "Ready=True:Ready")
	}
	eventually(t, "the watched namespace", wantURL(r, in+"/chef", RouteAGUI, "http://chef."+in+":4111/api/agents/chef/ag-ui"))
	if err := wantErr(r, out+"/chef", ErrAgentNotFound, "watches only the namespaces "+in)(); err != nil {
		t.Error(err)
	}
}

// TestKubeResolverRBAC checks that the shipped reader role is all the resolver needs, bound
// cluster-wide or per namespace, and that a missing binding fails at start with the role named.
func TestKubeResolverRBAC(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t, "ref-rbac")
	role := readerRole(t)
	if err := k8s.Create(ctx, role); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	// Users and bindings are per namespace, so -count=N starts from scratch each time.
	clusterUser, nsUser := "chat-cluster-"+ns, "chat-ns-"+ns
	subject := func(user string) []rbacv1.Subject {
		return []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}
	}
	roleRef := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name}
	testutil.Check(t, k8s.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterUser}, RoleRef: roleRef, Subjects: subject(clusterUser)}))
	testutil.Check(t, k8s.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: nsUser}, RoleRef: roleRef, Subjects: subject(nsUser)}))
	base := "http://agentry-chef." + ns + ".svc.cluster.local:4111/api/agents/chef"
	setStatus(t, createAgent(t, ns, "chef"), base, "Ready=True:Ready")

	userCfg := func(name string) *envtest.AuthenticatedUser {
		u, err := testEnv.AddUser(envtest.User{Name: name}, nil)
		testutil.Check(t, err)
		return u
	}
	// RBAC bindings take effect asynchronously in the authorizer's cache.
	eventually(t, "the cluster-wide reader", func() error {
		r, err := NewKubeResolver(ctx, userCfg(clusterUser).Config(), Options{})
		if err != nil {
			return err
		}
		defer r.Close()
		return wantURL(r, ns+"/chef", RouteAGUI, base+"/ag-ui")()
	})
	eventually(t, "the namespaced reader", func() error {
		r, err := NewKubeResolver(ctx, userCfg(nsUser).Config(), Options{Namespaces: []string{ns}})
		if err != nil {
			return err
		}
		defer r.Close()
		return wantURL(r, ns+"/chef", RouteGenerate, base+"/generate")()
	})
	for _, tc := range []struct {
		user       string
		namespaces []string
		want       string
	}{
		{nsUser, nil, "failed to list agents in all namespaces: bind the ClusterRole agentry-chat-agent-reader"},
		{"nobody", []string{ns}, "failed to list agents in namespace \"" + ns + "\": bind the ClusterRole agentry-chat-agent-reader"},
	} {
		_, err := NewKubeResolver(ctx, userCfg(tc.user).Config(), Options{Namespaces: tc.namespaces})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "forbidden") {
			t.Errorf("%s: got %v, want %q", tc.user, err, tc.want)
		}
	}
}

// TestKubeResolverAudience: the audience an Agent's manifest sets follows the manifest; an Agent
// without one, or no such Agent, has none.
func TestKubeResolverAudience(t *testing.T) {
	ns := namespace(t, "ref-audience")
	r := newResolver(t, cfg, Options{})
	a := createAgent(t, ns, "chef")
	ref := ns + "/chef"
	audience := func(want string) func() error {
		return func() error {
			got, err := r.Audience(context.Background(), ref)
			if err != nil {
				return err
			}
			if strings.Join(got, ",") != want {
				return fmt.Errorf("audience %q, want %q", got, want)
			}
			return nil
		}
	}
	testutil.Check(t, audience("")())
	ctx := context.Background()
	testutil.Check(t, k8s.Get(ctx, client.ObjectKeyFromObject(a), a))
	a.Spec.Platform = &v1alpha1.PlatformSpec{Audience: []string{"idp:cooks", "dave"}}
	testutil.Check(t, k8s.Update(ctx, a))
	eventually(t, "the manifest's audience", audience("idp:cooks,dave"))

	a.Spec.Platform.Audience = []string{"has space"}
	if err := k8s.Update(ctx, a); !apierrors.IsInvalid(err) {
		t.Fatalf("an audience entry with a space: %v", err)
	}
	if got, err := r.Audience(ctx, ns+"/ghost"); err != nil || got != nil {
		t.Errorf("no such Agent: %q %v", got, err)
	}
}
