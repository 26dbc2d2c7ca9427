package controllers

import (
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers/render"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

const apiKey = "sk-test-SECRET-value-1234"

func TestSamplesGetTheFullObjectSet(t *testing.T) {
	ns := "t-samples"
	createSamples(t, ns)
	secret(t, ns, "openai", map[string]string{"apiKey": apiKey})

	for _, name := range []string{"chef", "weather"} {
		a := waitCondition(t, ns, name, v1alpha1.ConditionModelSecretResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
		for _, typ := range []string{v1alpha1.ConditionToolsResolved, v1alpha1.ConditionFrontendActionsResolved} {
			if c := condition(a, typ); c.Status != metav1.ConditionTrue {
				t.Errorf("%s %s: %+v", name, typ, c)
			}
		}
		if c := condition(a, v1alpha1.ConditionExposed); c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.ReasonNotExposed {
			t.Errorf("%s without ingress or publicURL must be NotExposed: %+v", name, c)
		}
		if c := condition(a, v1alpha1.ConditionReady); c.Status != metav1.ConditionFalse {
			t.Errorf("%s cannot be Ready before its Deployment is available: %+v", name, c)
		}
		if a.Status.AgentID != name || a.Status.Endpoints == nil || a.Status.Endpoints.Internal != fmt.Sprintf("http://agentry-%s.%s.svc.cluster.local:4111/api/agents/%s", name, ns, name) {
			t.Errorf("%s status: %+v", name, a.Status)
		}

		dep := deployment(t, ns, name)
		svc := child(t, ns, name, &corev1.Service{})
		cm := child(t, ns, name, &corev1.ConfigMap{})
		for _, obj := range []client.Object{dep, svc, cm} {
			ref := metav1.GetControllerOf(obj)
			if ref == nil || ref.Kind != "Agent" || ref.Name != name || ref.UID != a.UID || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
				t.Errorf("%T of %s: owner %+v", obj, name, ref)
			}
		}
		if strings.Contains(cm.Data[render.ConfigKey], apiKey) {
			t.Errorf("the ConfigMap of %s holds the API key", name)
		}
		pod := dep.Spec.Template.Spec
		c := pod.Containers[0]
		if c.Image != renderCfg.RuntimeImage || strings.Join(c.Args, " ") != "serve --config /etc/agentry/config --addr :4111 --secrets-dir /var/run/agentry/secrets --log-format json" {
			t.Errorf("container: %s %v", c.Image, c.Args)
		}
		if len(c.Env) != 3 || c.Env[0].Name != "OPENAI_API_KEY" || c.Env[0].Value != "" || c.Env[0].ValueFrom.SecretKeyRef.Name != "openai" || c.Env[0].ValueFrom.SecretKeyRef.Key != "apiKey" {
			t.Errorf("the key must come from secretKeyRef only: %+v", c.Env)
		}
		// Besides the key: the config is the operator's rendering of validated objects, and the
		// Go runtime's soft memory limit follows the container's limit.
		if len(c.Env) == 3 && (c.Env[1] != corev1.EnvVar{Name: render.PrevalidatedEnv, Value: "true"} ||
			c.Env[2].Name != "AGENTRY_MEMORY_LIMIT" || c.Env[2].ValueFrom.ResourceFieldRef.Resource != "limits.memory") {
			t.Errorf("runtime env: %+v", c.Env)
		}
		sc := c.SecurityContext
		if !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation || !*pod.SecurityContext.RunAsNonRoot || sc.Capabilities.Drop[0] != "ALL" {
			t.Errorf("security context: %+v", sc)
		}
		if c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/healthz" {
			t.Error("probes")
		}
		if got := dep.Spec.Template.Annotations[render.AnnotationConfigHash]; got == "" || got != a.Status.ConfigHash {
			t.Errorf("config hash annotation %q, status %q", got, a.Status.ConfigHash)
		}
		if svc.Spec.Type != corev1.ServiceTypeClusterIP || svc.Spec.Ports[0].Port != 4111 {
			t.Errorf("service: %+v", svc.Spec)
		}
	}

	reg, warnings, _ := renderedRegistry(t, ns, "chef")
	chef, ok := reg.Get("chef")
	if !ok || len(warnings) != 0 {
		t.Fatalf("chef in rendered config: %v %v", ok, warnings)
	}
	if len(chef.Agent.Tools) != 2 || len(chef.Agent.FrontendActions) != 1 || chef.Agent.MaxSteps != 10 {
		t.Errorf("rendered chef: tools %v, actions %v", chef.Agent.ToolKeys, chef.Agent.FrontendActions)
	}
}

func TestToolIDMismatchIsReportedAndNotCallable(t *testing.T) {
	ns := "t-mismatch"
	create(t, ns, `apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: weather}
spec:
  id: weather
  description: Weather.
  inputSchema: {type: object, properties: {location: {type: string}}}
  execute: {cel: '{"t": 1}'}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: mixup}
spec:
  model: {name: gpt-4o-mini}
  tools:
  - {key: getWeather, toolRef: {name: weather}}`)
	a := waitCondition(t, ns, "mixup", v1alpha1.ConditionToolsResolved, metav1.ConditionFalse, v1alpha1.ReasonToolIDMismatch)
	msg := condition(a, v1alpha1.ConditionToolsResolved).Message
	for _, want := range []string{`"getWeather"`, `"weather"`, "will not fire"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %s", msg, want)
		}
	}
	if c := condition(a, v1alpha1.ConditionModelSecretResolved); c.Reason != v1alpha1.ReasonNotRequired {
		t.Errorf("no apiKeySecretRef: %+v", c)
	}
	reg, _, data := renderedRegistry(t, ns, "mixup")
	e, _ := reg.Get("mixup")
	if len(e.Agent.Tools) != 0 || strings.Contains(data, "getWeather") {
		t.Errorf("the mismatched tool must not be callable in the rendered config:\n%s", data)
	}

	// Fixing the key makes it fire.
	updateAgent(t, ns, "mixup", func(a *v1alpha1.Agent) { a.Spec.Tools[0].Key = "weather" })
	waitCondition(t, ns, "mixup", v1alpha1.ConditionToolsResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	eventually(t, "the tool in the rendered config", func() error {
		reg, _, _ := renderedRegistry(t, ns, "mixup")
		if e, _ := reg.Get("mixup"); len(e.Agent.Tools) != 1 {
			return fmt.Errorf("tools %v", e.Agent.ToolKeys)
		}
		return nil
	})
}

const keyedAgent = `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: keyed}
spec:
  model:
    name: gpt-4o-mini
    apiKeySecretRef: {name: llm, key: apiKey}`

func TestMissingSecretFlipsWhenCreated(t *testing.T) {
	ns := "t-secret"
	create(t, ns, keyedAgent)
	a := waitCondition(t, ns, "keyed", v1alpha1.ConditionModelSecretResolved, metav1.ConditionFalse, v1alpha1.ReasonSecretNotFound)
	if msg := condition(a, v1alpha1.ConditionModelSecretResolved).Message; !strings.Contains(msg, `Secret "llm" not found`) || !strings.Contains(msg, "kubectl create secret generic llm --from-literal=apiKey=") {
		t.Errorf("message: %s", msg)
	}
	gen := a.Generation
	secret(t, ns, "llm", map[string]string{"apiKey": apiKey})
	a = waitCondition(t, ns, "keyed", v1alpha1.ConditionModelSecretResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	if a.Generation != gen {
		t.Errorf("the Agent was modified: generation %d → %d", gen, a.Generation)
	}
	for _, ev := range agentEvents(t, ns, "keyed") {
		if strings.Contains(ev, apiKey) {
			t.Errorf("an event holds the key: %s", ev)
		}
	}
	if evs := strings.Join(agentEvents(t, ns, "keyed"), "\n"); !strings.Contains(evs, v1alpha1.ReasonSecretNotFound) {
		t.Errorf("the transition must be recorded as an event:\n%s", evs)
	}
}

func agentEvents(t *testing.T, ns, name string) []string {
	t.Helper()
	var list corev1.EventList
	if err := k8s.List(ctx, &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.InvolvedObject.Name == name {
			out = append(out, e.Reason+": "+e.Message)
		}
	}
	return out
}

func TestMissingSecretKey(t *testing.T) {
	ns := "t-key"
	secret(t, ns, "llm", map[string]string{"token": "x"})
	create(t, ns, keyedAgent)
	a := waitCondition(t, ns, "keyed", v1alpha1.ConditionModelSecretResolved, metav1.ConditionFalse, v1alpha1.ReasonSecretKeyMissing)
	want := `Secret "llm" has no key "apiKey"; add it or change spec.model.apiKeySecretRef.key`
	if msg := condition(a, v1alpha1.ConditionModelSecretResolved).Message; msg != want {
		t.Errorf("message %q, want %q", msg, want)
	}
	if c := condition(a, v1alpha1.ConditionReady); c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "ModelSecretResolved") {
		t.Errorf("Ready: %+v", c)
	}
}

func TestToolAndSecretChangesRollThePods(t *testing.T) {
	ns := "t-roll"
	createSamples(t, ns)
	s := secret(t, ns, "openai", map[string]string{"apiKey": apiKey})
	waitCondition(t, ns, "weather", v1alpha1.ConditionModelSecretResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	// The first hash must already include the Tool: otherwise the Tool's arrival, not its edit,
	// changes the hash below.
	a := waitCondition(t, ns, "weather", v1alpha1.ConditionToolsResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	eventually(t, "the Deployment to carry the status's hash", func() error {
		a = getAgent(t, ns, "weather")
		if h := deployment(t, ns, "weather").Spec.Template.Annotations[render.AnnotationConfigHash]; h != a.Status.ConfigHash {
			return fmt.Errorf("deployment hash %q, status %q", h, a.Status.ConfigHash)
		}
		return nil
	})
	hashOf := func() string {
		return deployment(t, ns, "weather").Spec.Template.Annotations[render.AnnotationConfigHash]
	}
	first := hashOf()
	if first != a.Status.ConfigHash {
		t.Fatalf("hash %q vs status %q", first, a.Status.ConfigHash)
	}

	chefBefore := waitCondition(t, ns, "chef", v1alpha1.ConditionModelSecretResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	chefDep := deployment(t, ns, "chef")
	modify(t, &v1alpha1.Tool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "weather"}}, false, func(tool *v1alpha1.Tool) {
		tool.Spec.Description = "Estimates the temperature, now with a better description."
	})
	var second string
	eventually(t, "a Tool edit to change the pod template", func() error {
		if second = hashOf(); second == first {
			return fmt.Errorf("hash still %s", second)
		}
		return nil
	})
	_, _, data := renderedRegistry(t, ns, "weather")
	if !strings.Contains(data, "now with a better description") {
		t.Error("the ConfigMap must carry the new Tool")
	}
	// chef does not use the weather Tool: its pods and status are untouched.
	if d := deployment(t, ns, "chef"); d.Generation != chefDep.Generation {
		t.Errorf("chef's Deployment changed: generation %d → %d", chefDep.Generation, d.Generation)
	}
	if c := getAgent(t, ns, "chef"); c.Status.ConfigHash != chefBefore.Status.ConfigHash {
		t.Error("chef's config hash changed")
	}

	s.StringData = map[string]string{"apiKey": "sk-rotated"}
	if err := k8s.Update(ctx, s); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a Secret rotation to change the pod template", func() error {
		if h := hashOf(); h == second {
			return fmt.Errorf("hash still %s", h)
		}
		return nil
	})
	if got := getAgent(t, ns, "chef").Status.ConfigHash; got == "" {
		t.Error("chef has no hash")
	}
}

func TestIngressWithAndWithoutTLS(t *testing.T) {
	ns := "t-ingress"
	create(t, ns, `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: public}
spec:
  agentId: public-agent
  model: {name: m}
  platform: {provider: mastra}
  endpoint:
    allowUnauthenticated: true
    ingress:
      host: chat.example.com
      className: traefik
      tlsSecretName: chat-tls
      annotations: {cert-manager.io/cluster-issuer: letsencrypt}`)
	a := waitCondition(t, ns, "public", v1alpha1.ConditionExposed, metav1.ConditionTrue, v1alpha1.ReasonIngressReady)
	if a.Status.DeploymentURL != "https://chat.example.com/api/agents/public-agent/generate" ||
		a.Status.Endpoints.AGUI != "https://chat.example.com/api/agents/public-agent/ag-ui" {
		t.Errorf("urls: %s %+v", a.Status.DeploymentURL, a.Status.Endpoints)
	}
	ing := child(t, ns, "public", &networkingv1.Ingress{})
	rule := ing.Spec.Rules[0]
	path := rule.HTTP.Paths[0]
	if rule.Host != "chat.example.com" || len(rule.HTTP.Paths) != len(render.PlatformPaths) || path.Path != "/api/agents/public-agent/ag-ui" || *path.PathType != networkingv1.PathTypeExact ||
		path.Backend.Service.Name != render.ChildName("public") || *ing.Spec.IngressClassName != "traefik" ||
		ing.Spec.TLS[0].SecretName != "chat-tls" || ing.Annotations["cert-manager.io/cluster-issuer"] != "letsencrypt" {
		t.Errorf("ingress: %s", toYAML(t, ing.Spec))
	}

	updateAgent(t, ns, "public", func(a *v1alpha1.Agent) { a.Spec.Endpoint.Ingress.TLSSecretName = "" })
	a = waitCondition(t, ns, "public", v1alpha1.ConditionExposed, metav1.ConditionFalse, v1alpha1.ReasonHTTPSRequired)
	if a.Status.DeploymentURL != "http://chat.example.com/api/agents/public-agent/generate" {
		t.Errorf("the URL is still shown: %q", a.Status.DeploymentURL)
	}
	eventually(t, "TLS to leave the Ingress", func() error {
		ing := child(t, ns, "public", &networkingv1.Ingress{})
		if len(ing.Spec.TLS) != 0 {
			return fmt.Errorf("tls %v", ing.Spec.TLS)
		}
		return nil
	})

	updateAgent(t, ns, "public", func(a *v1alpha1.Agent) {
		a.Spec.Endpoint.Ingress = nil
		a.Spec.Endpoint.PublicURL = "https://edge.example.net/agents"
	})
	a = waitCondition(t, ns, "public", v1alpha1.ConditionExposed, metav1.ConditionTrue, v1alpha1.ReasonPublicURLSet)
	if a.Status.DeploymentURL != "https://edge.example.net/agents/api/agents/public-agent/generate" {
		t.Errorf("publicURL: %q", a.Status.DeploymentURL)
	}
	eventually(t, "the Ingress to be deleted", func() error {
		err := k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: render.ChildName("public")}, &networkingv1.Ingress{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there: %v", err)
	})
}

func TestDefaultIngressFromTheOperator(t *testing.T) {
	ns := "t-default-ingress"
	create(t, ns, `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: defaulted}
spec:
  model: {name: m}
  endpoint: {ingress: {}, allowUnauthenticated: true}`)
	a := waitCondition(t, ns, "defaulted", v1alpha1.ConditionExposed, metav1.ConditionTrue, v1alpha1.ReasonIngressReady)
	if a.Status.DeploymentURL != "https://agents.example.com/api/agents/defaulted/ag-ui" {
		t.Errorf("url %q", a.Status.DeploymentURL)
	}
	ing := child(t, ns, "defaulted", &networkingv1.Ingress{})
	if *ing.Spec.IngressClassName != "nginx" || ing.Spec.TLS[0].SecretName != "agents-tls" {
		t.Errorf("defaults: %s", toYAML(t, ing.Spec))
	}
}

func TestAvailabilityMakesTheAgentReady(t *testing.T) {
	ns := "t-avail"
	create(t, ns, `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: live}
spec:
  model: {name: m}
  runtime: {replicas: 2}
  endpoint:
    publicURL: "https://agents.example.org"
    auth: {headersSecretRef: {name: platform-auth}}`)
	secret(t, ns, "platform-auth", map[string]string{"Authorization": "Bearer platform-SECRET"})
	a := waitCondition(t, ns, "live", v1alpha1.ConditionAvailable, metav1.ConditionFalse, v1alpha1.ReasonDeploymentUnavailable)
	if c := condition(a, v1alpha1.ConditionReady); c.Status != metav1.ConditionFalse {
		t.Errorf("Ready before availability: %+v", c)
	}
	// No kubelet runs in envtest: play the Deployment controller and report one replica.
	modify(t, deployment(t, ns, "live"), true, func(dep *appsv1.Deployment) {
		dep.Status = appsv1.DeploymentStatus{ObservedGeneration: dep.Generation, Replicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, UpdatedReplicas: 2}
	})
	a = waitCondition(t, ns, "live", v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady)
	if c := condition(a, v1alpha1.ConditionAvailable); c.Message != "1/2 replicas available" || a.Status.ReadyReplicas != 1 {
		t.Errorf("available: %+v ready %d", c, a.Status.ReadyReplicas)
	}
	if a.Status.DeploymentURL != "https://agents.example.org/api/agents/live/ag-ui" {
		t.Errorf("url %q", a.Status.DeploymentURL)
	}
}

func TestOwnedObjectsAreRestoredAndCollected(t *testing.T) {
	ns := "t-owner"
	create(t, ns, `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: owned}
spec:
  model: {name: m}`)
	waitCondition(t, ns, "owned", v1alpha1.ConditionToolsResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	// Someone edits the Deployment; the operator puts its spec back.
	modify(t, deployment(t, ns, "owned"), false, func(dep *appsv1.Deployment) {
		dep.Spec.Template.Spec.Containers[0].Image = "evil:latest"
	})
	eventually(t, "the Deployment to be restored", func() error {
		d := deployment(t, ns, "owned")
		if img := d.Spec.Template.Spec.Containers[0].Image; img != renderCfg.RuntimeImage {
			return fmt.Errorf("image %s", img)
		}
		return nil
	})
	// A deleted child is recreated.
	svc := child(t, ns, "owned", &corev1.Service{})
	if err := k8s.Delete(ctx, svc); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Service to be recreated", func() error {
		var s corev1.Service
		if err := k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: svc.Name}, &s); err != nil {
			return err
		}
		if s.UID == svc.UID {
			return fmt.Errorf("not deleted yet")
		}
		return nil
	})
}

// A reconcile that finds nothing changed writes nothing: not the children, not the status.
func TestNoWritesWhenNothingChanged(t *testing.T) {
	ns := "t-owner"
	create(t, ns, `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: quiet}
spec:
  model: {name: m}`)
	waitCondition(t, ns, "quiet", v1alpha1.ConditionToolsResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	time.Sleep(500 * time.Millisecond) // let the creation events settle
	dep := deployment(t, ns, "quiet")
	cm := child(t, ns, "quiet", &corev1.ConfigMap{})
	a := getAgent(t, ns, "quiet")
	before := reconcileCount(t)

	// A Deployment status change the Agent does not report triggers a reconcile.
	dep.Status.Conditions = append(dep.Status.Conditions, appsv1.DeploymentCondition{Type: "Test", Status: corev1.ConditionTrue, Reason: "Poke", LastUpdateTime: metav1.Now()})
	if err := k8s.Status().Update(ctx, dep); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a reconcile", func() error {
		if n := reconcileCount(t); n <= before {
			return fmt.Errorf("reconciles %v", n)
		}
		return nil
	})
	time.Sleep(300 * time.Millisecond)
	d := deployment(t, ns, "quiet")
	c := child(t, ns, "quiet", &corev1.ConfigMap{})
	now := getAgent(t, ns, "quiet")
	if d.Generation != dep.Generation || c.ResourceVersion != cm.ResourceVersion || now.ResourceVersion != a.ResourceVersion {
		t.Errorf("written: deployment gen %d→%d, configmap %s→%s, agent %s→%s", dep.Generation, d.Generation, cm.ResourceVersion, c.ResourceVersion, a.ResourceVersion, now.ResourceVersion)
	}
}

func reconcileCount(t *testing.T) float64 {
	t.Helper()
	n, err := testutil.ReconcileCount("agent")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestMemoryFromASecret(t *testing.T) {
	ns := "t-memory"
	create(t, ns, `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: remembers}
spec:
  model: {name: m}
  memory: {urlSecretRef: {name: db, key: url}}
  runtime: {replicas: 3}`)
	a := waitCondition(t, ns, "remembers", v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonSecretNotFound)
	if msg := condition(a, v1alpha1.ConditionReady).Message; !strings.Contains(msg, `memory Secret "db" not found`) {
		t.Errorf("ready: %s", msg)
	}
	secret(t, ns, "db", map[string]string{"url": "postgres://agentry:pw-SECRET@db:5432/agentry"})
	eventually(t, "the storage kind from the Secret", func() error {
		a = getAgent(t, ns, "remembers")
		if a.Status.Storage != "postgres" || strings.Contains(condition(a, v1alpha1.ConditionReady).Message, "memory Secret") {
			return fmt.Errorf("storage %q, ready %s", a.Status.Storage, condition(a, v1alpha1.ConditionReady).Message)
		}
		return nil
	})
	c := deployment(t, ns, "remembers").Spec.Template.Spec.Containers[0]
	var env *corev1.EnvVar
	for i := range c.Env {
		if c.Env[i].Name == "AGENTRY_MEMORY_URL" {
			env = &c.Env[i]
		}
	}
	if env == nil || env.Value != "" || env.ValueFrom.SecretKeyRef.Name != "db" || env.ValueFrom.SecretKeyRef.Key != "url" {
		t.Errorf("the URL must come from secretKeyRef: %+v", c.Env)
	}
	if strings.Contains(child(t, ns, "remembers", &corev1.ConfigMap{}).Data[render.ConfigKey], "pw-SECRET") {
		t.Error("the storage URL reached the ConfigMap")
	}
	var s corev1.Secret
	if err := k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: "db"}, &s); err != nil {
		t.Fatal(err)
	}
	s.StringData = map[string]string{"url": "file:/data/memory.db"}
	if err := k8s.Update(ctx, &s); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a file: store with 3 replicas to be refused", func() error {
		a = getAgent(t, ns, "remembers")
		ready := condition(a, v1alpha1.ConditionReady)
		if a.Status.Storage != "sqlite" || ready.Reason != v1alpha1.ReasonMemoryNotShared || !strings.Contains(ready.Message, "use a postgres:// store") {
			return fmt.Errorf("storage %q, ready %s %s", a.Status.Storage, ready.Reason, ready.Message)
		}
		return nil
	})
}
