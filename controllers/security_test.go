package controllers

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers/render"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

func ingressGone(t *testing.T, ns, agent string) func() error {
	return func() error {
		err := k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: render.ChildName(agent)}, &networkingv1.Ingress{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("the Ingress is still there: %v", err)
	}
}

// A public endpoint without auth is refused unless allowUnauthenticated says it is meant; an
// auth Secret the runtime would refuse (no keys, an empty value) is reported by Secret and key.
func TestPublicEndpointNeedsAuth(t *testing.T) {
	ns := "t-auth"
	create(t, ns, agentDoc("open", "  model: {name: m}\n  endpoint: {ingress: {host: chat.example.com, tlsSecretName: chat-tls}}"))
	a := waitCondition(t, ns, "open", v1alpha1.ConditionExposed, metav1.ConditionFalse, v1alpha1.ReasonAuthRequired)
	msg := condition(a, v1alpha1.ConditionExposed).Message
	for _, want := range []string{"spec.endpoint.auth.headersSecretRef", "spec.endpoint.allowUnauthenticated: true"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message must say how to fix it (%s): %s", want, msg)
		}
	}
	if a.Status.DeploymentURL != "" || a.Status.Endpoints.AGUI != "" || a.Status.Endpoints.Internal == "" {
		t.Errorf("no public URL may be reported: %q %+v", a.Status.DeploymentURL, a.Status.Endpoints)
	}
	if c := condition(a, v1alpha1.ConditionReady); c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "AuthRequired") {
		t.Errorf("Ready: %+v", c)
	}
	consistently(t, "no Ingress for an unauthenticated agent", time.Second, ingressGone(t, ns, "open"))
	t.Run("allowUnauthenticated publishes it, and taking it back removes it", func(t *testing.T) { allowUnauthenticated(t, ns) })
	t.Run("an auth Secret the runtime would refuse", func(t *testing.T) { refusedAuthSecret(t, ns) })
	t.Run("bearer JWT settings: checked, reported, and enough auth to publish", func(t *testing.T) { jwtAuth(t, ns) })
	t.Run("publicURL is public too", func(t *testing.T) {
		create(t, ns, agentDoc("elsewhere", "  model: {name: m}\n  endpoint: {publicURL: \"https://edge.example.net\"}"))
		a := waitCondition(t, ns, "elsewhere", v1alpha1.ConditionExposed, metav1.ConditionFalse, v1alpha1.ReasonAuthRequired)
		if a.Status.DeploymentURL != "" {
			t.Errorf("url %q", a.Status.DeploymentURL)
		}
	})
}

// allowUnauthenticated: saying so publishes the Agent "open"; taking the permission back
// removes the Ingress and the URL.
func allowUnauthenticated(t *testing.T, ns string) {
	updateAgent(t, ns, "open", func(a *v1alpha1.Agent) { a.Spec.Endpoint.AllowUnauthenticated = true })
	a := waitCondition(t, ns, "open", v1alpha1.ConditionExposed, metav1.ConditionTrue, v1alpha1.ReasonIngressReady)
	if a.Status.DeploymentURL != "https://chat.example.com/api/agents/open/ag-ui" {
		t.Errorf("url %q", a.Status.DeploymentURL)
	}
	child(t, ns, "open", &networkingv1.Ingress{})
	updateAgent(t, ns, "open", func(a *v1alpha1.Agent) { a.Spec.Endpoint.AllowUnauthenticated = false })
	a = waitCondition(t, ns, "open", v1alpha1.ConditionExposed, metav1.ConditionFalse, v1alpha1.ReasonAuthRequired)
	if a.Status.DeploymentURL != "" {
		t.Errorf("url %q", a.Status.DeploymentURL)
	}
	eventually(t, "the Ingress to be deleted", ingressGone(t, ns, "open"))
}

// refusedAuthSecret: auth from a Secret with an empty value leaves the Agent "open" exposed but
// not Ready, naming Secret and key; a Secret without keys is refused too. No event holds a value.
func refusedAuthSecret(t *testing.T, ns string) {
	const value = "Bearer platform-SECRET-value"
	s := secret(t, ns, "platform-auth", map[string]string{"Authorization": value, "X-Tenant": ""})
	updateAgent(t, ns, "open", func(a *v1alpha1.Agent) {
		a.Spec.Endpoint.Auth = &v1alpha1.EndpointAuth{HeadersSecretRef: &v1alpha1.LocalObjectReference{Name: "platform-auth"}}
	})
	a := waitCondition(t, ns, "open", v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonAuthSecretInvalid)
	if msg := condition(a, v1alpha1.ConditionReady).Message; !strings.Contains(msg, `auth headers Secret "platform-auth" has an empty value for key "X-Tenant"`) {
		t.Errorf("ready: %s", msg)
	}
	if c := condition(a, v1alpha1.ConditionExposed); c.Reason != v1alpha1.ReasonIngressReady {
		t.Errorf("with auth the Ingress is kept: %+v", c)
	}
	// A Secret without keys is refused too.
	modify(t, s, false, func(s *corev1.Secret) { s.Data, s.StringData = map[string][]byte{}, nil })
	eventually(t, "a Secret without keys to be reported", func() error {
		msg := condition(getAgent(t, ns, "open"), v1alpha1.ConditionReady).Message
		if !strings.Contains(msg, `auth headers Secret "platform-auth" has no keys`) {
			return fmt.Errorf("ready: %s", msg)
		}
		return nil
	})
	noEventHolds(t, ns, "open", value)
}

// jwtAuth: spec.endpoint.auth.jwt alone is auth enough to publish the Agent "jwt"; settings the
// runtime could not use (an http issuer off loopback) make Ready False with AuthInvalid naming
// the field; auth with neither headers nor jwt is refused by the API server.
func jwtAuth(t *testing.T, ns string) {
	create(t, ns, agentDoc("jwt", `  model: {name: m}
  endpoint:
    ingress: {host: jwt.example.com, tlsSecretName: chat-tls}
    auth:
      jwt: {issuer: "https://idp.example.com/realms/acme", audiences: ["https://jwt.example.com/api/agents/jwt"], clockSkew: 1m}`))
	a := waitCondition(t, ns, "jwt", v1alpha1.ConditionExposed, metav1.ConditionTrue, v1alpha1.ReasonIngressReady)
	if c := condition(a, v1alpha1.ConditionReady); c.Reason == v1alpha1.ReasonAuthInvalid {
		t.Errorf("valid settings reported: %+v", c)
	}
	updateAgent(t, ns, "jwt", func(a *v1alpha1.Agent) { a.Spec.Endpoint.Auth.JWT.Issuer = "http://idp.example.com/realms/acme" })
	a = waitCondition(t, ns, "jwt", v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonAuthInvalid)
	if msg := condition(a, v1alpha1.ConditionReady).Message; !strings.Contains(msg, "spec.endpoint.auth.jwt: issuer") || !strings.Contains(msg, "must be https") {
		t.Errorf("ready: %s", msg)
	}
	a.Spec.Endpoint.Auth = &v1alpha1.EndpointAuth{}
	if err := k8s.Update(ctx, a); err == nil || !strings.Contains(err.Error(), "needs headersSecretRef, jwt or serviceAccounts") {
		t.Errorf("auth with neither: %v", err)
	}
	a = getAgent(t, ns, "jwt")
	a.Spec.Endpoint.Auth.JWT.Audiences = nil
	if err := k8s.Update(ctx, a); err == nil || !strings.Contains(err.Error(), "audiences") {
		t.Errorf("jwt without audiences: %v", err)
	}

	// ServiceAccounts alone are auth enough too, and their pods mount a token to read the
	// cluster's keys; a name the API server could never hold is refused.
	create(t, ns, agentDoc("in-cluster", `  model: {name: m}
  endpoint:
    ingress: {host: in-cluster.example.com, tlsSecretName: chat-tls}
    auth:
      serviceAccounts: [{namespace: agentry-system, name: agentry-chat}]`))
	waitCondition(t, ns, "in-cluster", v1alpha1.ConditionExposed, metav1.ConditionTrue, v1alpha1.ReasonIngressReady)
	var dep appsv1.Deployment
	eventually(t, "the in-cluster agent's Deployment", func() error {
		return k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: render.ChildName("in-cluster")}, &dep)
	})
	if m := dep.Spec.Template.Spec.AutomountServiceAccountToken; m == nil || !*m {
		t.Errorf("automountServiceAccountToken: %v", m)
	}
	b := getAgent(t, ns, "in-cluster")
	b.Spec.Endpoint.Auth.ServiceAccounts[0].Namespace = "Agentry_System"
	if err := k8s.Update(ctx, b); err == nil || !strings.Contains(err.Error(), "serviceAccounts[0].namespace") {
		t.Errorf("a namespace that cannot exist: %v", err)
	}
}

// An object in the way (same name, controlled by something else) is reported in Ready and
// left alone.
func TestConflictingObjectIsReported(t *testing.T) {
	ns := "t-owner"
	isController := true
	taken := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: render.ChildName("squatted"), Namespace: ns,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "someone-else", UID: "1234", Controller: &isController}},
	}, Data: map[string]string{"mine": "yes"}}
	testutil.NoError(t, k8s.Create(ctx, taken))
	create(t, ns, agentDoc("squatted", "  model: {name: m}"))
	a := waitCondition(t, ns, "squatted", v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonResourceConflict)
	if msg := condition(a, v1alpha1.ConditionReady).Message; !strings.Contains(msg, `ConfigMap "agentry-squatted" already exists and does not belong to this Agent (it is controlled by ConfigMap "someone-else")`) {
		t.Errorf("message: %s", msg)
	}
	var cm corev1.ConfigMap
	if err := k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: taken.Name}, &cm); err != nil || cm.Data["mine"] != "yes" {
		t.Errorf("the other object must be left alone: %v %v", err, cm.Data)
	}
	// The pods would mount that ConfigMap: no Deployment is made.
	if err := k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: taken.Name}, &appsv1.Deployment{}); !apierrors.IsNotFound(err) {
		t.Errorf("a Deployment on someone else's ConfigMap: %v", err)
	}
}

// Objects of an Agent's child names that the Agent did not create are reported, never adopted
// or overwritten, whether or not they carry the operator's labels.
func TestForeignObjectsAreNeverAdopted(t *testing.T) {
	ns := "t-adopt"
	// A ConfigMap without owner or labels: not in the operator's cache, found on create.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: render.ChildName("plain"), Namespace: ns}, Data: map[string]string{"app.yaml": "theirs"}}
	testutil.NoError(t, k8s.Create(ctx, cm))
	create(t, ns, agentDoc("plain", "  model: {name: m}"))
	a := waitCondition(t, ns, "plain", v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonResourceConflict)
	if msg := condition(a, v1alpha1.ConditionReady).Message; !strings.Contains(msg, `ConfigMap "agentry-plain" already exists and does not belong to this Agent (it has no controller)`) {
		t.Errorf("ready: %s", msg)
	}
	var got corev1.ConfigMap
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(cm), &got); err != nil || got.Data["app.yaml"] != "theirs" || len(got.OwnerReferences) != 0 || got.Labels[render.LabelManagedBy] != "" {
		t.Errorf("the ConfigMap was taken over: %v %+v", err, got.ObjectMeta)
	}

	// Once it is gone, the next reconcile creates the Agent's own.
	testutil.NoError(t, k8s.Delete(ctx, cm))
	updateAgent(t, ns, "plain", func(a *v1alpha1.Agent) { a.Spec.Instructions = "poke" })
	waitCondition(t, ns, "plain", v1alpha1.ConditionAvailable, metav1.ConditionFalse, v1alpha1.ReasonDeploymentUnavailable)
	if got := child(t, ns, "plain", &corev1.ConfigMap{}); !metav1.IsControlledBy(&got.ObjectMeta, &a.ObjectMeta) {
		t.Errorf("owner: %+v", got.OwnerReferences)
	}

	// A Deployment with the operator's labels but no owner reference (in the cache).
	dep := render.DeploymentFor(render.Resolved{Agent: &v1alpha1.Agent{ObjectMeta: metav1.ObjectMeta{Name: "labelled", Namespace: ns}}}, renderCfg, "x")
	dep.Spec.Template.Spec.Containers[0].Image = "theirs:1"
	testutil.NoError(t, k8s.Create(ctx, dep))
	create(t, ns, agentDoc("labelled", "  model: {name: m}"))
	a = waitCondition(t, ns, "labelled", v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonResourceConflict)
	if msg := condition(a, v1alpha1.ConditionReady).Message; !strings.Contains(msg, `Deployment "agentry-labelled" already exists and does not belong to this Agent (it carries the operator's labels but no owner reference to this Agent)`) {
		t.Errorf("ready: %s", msg)
	}
	var d appsv1.Deployment
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(dep), &d); err != nil || d.Spec.Template.Spec.Containers[0].Image != "theirs:1" || len(d.OwnerReferences) != 0 {
		t.Errorf("the Deployment was taken over: %v %s %+v", err, d.Spec.Template.Spec.Containers[0].Image, d.OwnerReferences)
	}
	if err := k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: dep.Name}, &corev1.Service{}); !apierrors.IsNotFound(err) {
		t.Errorf("no Service may select someone else's pods: %v", err)
	}
}

// Without spec.runtime.replicas the operator leaves the Deployment's replicas to whoever scales
// it (an HPA), also when it updates the Deployment for another reason.
func TestReplicasAreLeftToAnHPA(t *testing.T) {
	ns := "t-hpa"
	create(t, ns, agentDoc("scaled", "  model: {name: m}\n  instructions: v1"))
	waitCondition(t, ns, "scaled", v1alpha1.ConditionToolsResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	dep := deployment(t, ns, "scaled")
	if dep.Spec.Replicas == nil || *dep.Spec.Replicas != 1 {
		t.Fatalf("the API server defaults replicas to 1: %v", dep.Spec.Replicas)
	}
	hash := dep.Spec.Template.Annotations[render.AnnotationConfigHash]

	// The HPA scales through the scale subresource.
	scale := &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 3}}
	testutil.NoError(t, k8s.SubResource("scale").Update(ctx, dep, client.WithSubResourceBody(scale)))
	// An Agent change re-renders the Deployment.
	updateAgent(t, ns, "scaled", func(a *v1alpha1.Agent) { a.Spec.Instructions = "v2" })
	eventually(t, "the Deployment to roll with the new config", func() error {
		d := deployment(t, ns, "scaled")
		if d.Spec.Template.Annotations[render.AnnotationConfigHash] == hash {
			return fmt.Errorf("hash still %s", hash)
		}
		if *d.Spec.Replicas != 3 {
			t.Fatalf("replicas %d: the operator fought the HPA", *d.Spec.Replicas)
		}
		return nil
	})
	consistently(t, "replicas to stay 3", time.Second, func() error {
		if r := *deployment(t, ns, "scaled").Spec.Replicas; r != 3 {
			return fmt.Errorf("replicas %d", r)
		}
		return nil
	})

	// spec.runtime.replicas, when set, is the operator's again.
	updateAgent(t, ns, "scaled", func(a *v1alpha1.Agent) { a.Spec.Runtime = &v1alpha1.RuntimeSpec{Replicas: ptr.To(int32(2))} })
	eventually(t, "spec.runtime.replicas to apply", func() error {
		if r := *deployment(t, ns, "scaled").Spec.Replicas; r != 2 {
			return fmt.Errorf("replicas %d", r)
		}
		return nil
	})
}

// recorder remembers the Secret requests a manager makes.
type recorder struct {
	mu   sync.Mutex
	reqs []string
}

func (r *recorder) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if strings.Contains(req.URL.Path, "/secrets") {
			r.mu.Lock()
			r.reqs = append(r.reqs, fmt.Sprintf("%s %s?%s accept=%s", req.Method, req.URL.Path, req.URL.RawQuery, req.Header.Get("Accept")))
			r.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The operator lists and watches Secrets as metadata only and reads the referenced ones one
// by one; a Secret rotation still re-renders the pods.
func TestSecretsAreWatchedByMetadataOnly(t *testing.T) {
	ns := "t-secret-meta" // outside the suite's pool: only this test's manager sees it
	testutil.NoError(t, k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	rec := &recorder{}
	wrapped := rest.CopyConfig(cfg)
	wrapped.WrapTransport = rec.wrap
	stop, err := startManagerWith(ctx, wrapped, Options{Render: renderCfg, Namespaces: []string{ns}, SkipNameValidation: true})
	testutil.NoError(t, err)
	defer stop()

	secret(t, ns, "unrelated", map[string]string{"data": "UNRELATED-SECRET"})
	s := secret(t, ns, "llm", map[string]string{"apiKey": apiKey})
	create(t, ns, keyedAgent)
	a := waitCondition(t, ns, "keyed", v1alpha1.ConditionModelSecretResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	modify(t, s, false, func(s *corev1.Secret) { s.StringData = map[string]string{"apiKey": "sk-rotated"} })
	eventually(t, "a Secret rotation to change the config hash", func() error {
		if h := deployment(t, ns, "keyed").Spec.Template.Annotations[render.AnnotationConfigHash]; h == a.Status.ConfigHash {
			return fmt.Errorf("hash still %s", h)
		}
		return nil
	})

	rec.mu.Lock()
	defer rec.mu.Unlock()
	var lists, gets int
	for _, r := range rec.reqs {
		isGet := strings.HasPrefix(r, "GET /api/v1/namespaces/"+ns+"/secrets/")
		switch {
		case isGet && strings.Contains(r, "/secrets/llm?"):
			gets++
		case isGet:
			t.Errorf("only the referenced Secret may be read: %s", r)
		case !strings.Contains(r, "as=PartialObjectMetadata"):
			t.Errorf("Secrets must be listed and watched as metadata only: %s", r)
		default:
			lists++
		}
	}
	if lists == 0 || gets == 0 {
		t.Errorf("expected metadata lists/watches and direct reads, got %q", rec.reqs)
	}
}
