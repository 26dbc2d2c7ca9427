package controllers

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers/render"
)

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
	// The recorder sends events in the background.
	eventually(t, "the transition to be recorded as an event", func() error {
		if evs := strings.Join(agentEvents(t, ns, "keyed"), "\n"); !strings.Contains(evs, v1alpha1.ReasonSecretNotFound) {
			return fmt.Errorf("events:\n%s", evs)
		}
		return nil
	})
	noEventHolds(t, ns, "keyed", apiKey)
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
	if !fromSecret(c, "AGENTRY_MEMORY_URL", "db", "url") {
		t.Errorf("the URL must come from secretKeyRef: %+v", c.Env)
	}
	if strings.Contains(child(t, ns, "remembers", &corev1.ConfigMap{}).Data[render.ConfigKey], "pw-SECRET") {
		t.Error("the storage URL reached the ConfigMap")
	}
	modify(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"}}, false, func(s *corev1.Secret) {
		s.StringData = map[string]string{"url": "file:/data/memory.db"}
	})
	eventually(t, "a file: store with 3 replicas to be refused", func() error {
		a = getAgent(t, ns, "remembers")
		ready := condition(a, v1alpha1.ConditionReady)
		if a.Status.Storage != "sqlite" || ready.Reason != v1alpha1.ReasonMemoryNotShared || !strings.Contains(ready.Message, "use a postgres:// store") {
			return fmt.Errorf("storage %q, ready %s %s", a.Status.Storage, ready.Reason, ready.Message)
		}
		return nil
	})
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
		a.Status.Endpoints.AGUI != "https://chat.example.com/api/agents/public-agent/ag-ui" ||
		a.Status.Endpoints.A2A != "https://chat.example.com/a2a/public-agent" ||
		a.Status.Endpoints.A2AInternal != "http://agentry-public."+ns+".svc.cluster.local:4111/a2a/public-agent" {
		t.Errorf("urls: %s %+v", a.Status.DeploymentURL, a.Status.Endpoints)
	}
	ing := child(t, ns, "public", &networkingv1.Ingress{})
	rule := ing.Spec.Rules[0]
	path := rule.HTTP.Paths[0]
	if rule.Host != "chat.example.com" || len(rule.HTTP.Paths) != len(render.PlatformPaths)+len(render.A2APaths) || path.Path != "/api/agents/public-agent/ag-ui" || *path.PathType != networkingv1.PathTypeExact ||
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
	eventually(t, "the Ingress to be deleted", ingressGone(t, ns, "public"))
}

func TestDefaultIngressFromTheOperator(t *testing.T) {
	ns := "t-default-ingress"
	create(t, ns, agentDoc("defaulted", "  model: {name: m}\n  endpoint: {ingress: {}, allowUnauthenticated: true}"))
	a := waitCondition(t, ns, "defaulted", v1alpha1.ConditionExposed, metav1.ConditionTrue, v1alpha1.ReasonIngressReady)
	if a.Status.DeploymentURL != "https://agents.example.com/api/agents/defaulted/ag-ui" {
		t.Errorf("url %q", a.Status.DeploymentURL)
	}
	ing := child(t, ns, "defaulted", &networkingv1.Ingress{})
	if *ing.Spec.IngressClassName != "nginx" || ing.Spec.TLS[0].SecretName != "agents-tls" {
		t.Errorf("defaults: %s", toYAML(t, ing.Spec))
	}
}
