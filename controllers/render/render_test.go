package render

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/protocol/manifest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name string, obj any) {
	t.Helper()
	got, err := yaml.Marshal(obj)
	testutil.NoError(t, err)
	path := filepath.Join("testdata", name+".golden.yaml")
	if *update {
		testutil.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./controllers/render -update)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from %s (run with -update if intended):\n%s", name, path, got)
	}
}

// load reads manifests the way the runtime does and resolves the named Agent's references.
func load(t *testing.T, path, agent string) Resolved {
	t.Helper()
	l, err := manifest.NewLoader()
	testutil.NoError(t, err)
	set, err := l.LoadPath(context.Background(), path)
	testutil.NoError(t, err)
	for _, a := range set.Agents {
		if a.Name == agent {
			return FromSet(set, a)
		}
	}
	t.Fatalf("no Agent %q in %s", agent, path)
	return Resolved{}
}

var cfg = Config{RuntimeImage: "ghcr.io/agentry-dev/agentry:v0.1.0", ImagePullPolicy: "IfNotPresent",
	DefaultIngress: IngressDefaults{ClassName: "nginx", Host: "agents.example.com", TLSSecretName: "agents-tls"}}

func TestChefSample(t *testing.T) {
	r := load(t, "../../config/samples", "chef")
	r.SecretData["openai"] = map[string][]byte{"apiKey": []byte("sk-should-never-appear")}
	config, err := ConfigYAML(r)
	testutil.NoError(t, err)
	hash := ConfigHash(config, r.SecretData)
	golden(t, "chef-configmap", ConfigMapFor(r.Agent, config))
	dep := DeploymentFor(r, cfg, hash)
	golden(t, "chef-deployment", dep)
	// No spec.runtime.replicas: the field is left to the API server's default and to whoever
	// scales the Deployment (an HPA).
	if dep.Spec.Replicas != nil {
		t.Errorf("replicas must stay unset, got %d", *dep.Spec.Replicas)
	}
	// Room for the runtime to drain its streams (25 s) after SIGTERM.
	if g := dep.Spec.Template.Spec.TerminationGracePeriodSeconds; g == nil || *g != 35 {
		t.Errorf("terminationGracePeriodSeconds: %v", g)
	}
	// No operator-wide proxy or CORS settings: the runtime's defaults, no flags.
	if args := strings.Join(dep.Spec.Template.Spec.Containers[0].Args, " "); strings.Contains(args, "--trusted-proxies") || strings.Contains(args, "--cors-origins") {
		t.Errorf("args: %s", args)
	}
	golden(t, "chef-service", ServiceFor(r.Agent))
	// No ServiceAccount token in a pod that does not need one; one to read the cluster's keys
	// in the pod of an agent that accepts ServiceAccount tokens.
	if m := dep.Spec.Template.Spec.AutomountServiceAccountToken; m == nil || *m {
		t.Errorf("automountServiceAccountToken of chef: %v", m)
	}
	trusting := r.Agent.DeepCopy()
	trusting.Spec.Endpoint = &v1alpha1.EndpointSpec{Auth: &v1alpha1.EndpointAuth{ServiceAccounts: []v1alpha1.ServiceAccountRef{{Namespace: "agentry-system", Name: "agentry-chat"}}}}
	r2 := r
	r2.Agent = trusting
	if m := DeploymentFor(r2, cfg, hash).Spec.Template.Spec.AutomountServiceAccountToken; m == nil || !*m {
		t.Errorf("automountServiceAccountToken of an agent accepting ServiceAccount tokens: %v", m)
	}
	if IngressFor(r.Agent, cfg) != nil {
		t.Error("chef asks for no Ingress")
	}
	if strings.Contains(string(config), "sk-should-never-appear") {
		t.Error("a Secret value reached the config")
	}

	// The rendered config is what `agentry serve` reads: it must load and validate.
	dir := t.TempDir()
	testutil.NoError(t, os.WriteFile(filepath.Join(dir, ConfigKey), config, 0o600))
	again := load(t, dir, "chef")
	if len(again.Tools) != 2 || len(again.FrontendActions) != 1 || again.Agent.Spec.Model.APIKeySecretRef.Name != "openai" {
		t.Errorf("round trip: %+v", again.Agent.Spec)
	}
}

const exposed = `apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: forecast, namespace: prod}
spec:
  id: forecast
  description: Forecast.
  inputSchema: {type: object}
  execute:
    http:
      service: {name: weather-svc, port: 8080, path: /forecast}
      headersSecretRef: {name: weather-headers}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: concierge, namespace: prod}
spec:
  agentId: concierge-v1
  model: {name: gpt-4o, baseURL: "https://llm.internal/v1", apiKeySecretRef: {name: llm, key: token}}
  tools: [{key: forecast, toolRef: {name: forecast}}]
  memory: {urlSecretRef: {name: db, key: url}}
  endpoint:
    auth: {headersSecretRef: {name: platform-auth}}
    ingress: {host: chat.example.com, tlsSecretName: chat-tls, annotations: {cert-manager.io/cluster-issuer: le}}
    corsOrigins: ["https://chat.example.com"]
  runtime:
    replicas: 3
    env: [{name: OPENAI_API_KEY, value: overridden-by-user}, {name: EXTRA, value: "1"}]
    podLabels: {team: support, app.kubernetes.io/name: hijack}
    podAnnotations: {prometheus.io/scrape: "true"}
`

func TestExposedAgentWithSecrets(t *testing.T) {
	dir := t.TempDir()
	testutil.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(exposed), 0o600))
	r := load(t, dir, "concierge")
	config, err := ConfigYAML(r)
	testutil.NoError(t, err)
	// Operator-wide proxy and CORS settings reach the runtime as flags.
	withProxies := cfg
	withProxies.TrustedProxies = []string{"10.0.0.0/8", "fd00::/8"}
	withProxies.CORSOrigins = []string{"https://chat.example.com", "https://admin.example.com"}
	dep := DeploymentFor(r, withProxies, ConfigHash(config, nil))
	golden(t, "concierge-deployment", dep)
	golden(t, "concierge-configmap", ConfigMapFor(r.Agent, config))
	if !strings.Contains(string(config), "corsOrigins:\n    - https://chat.example.com") {
		t.Errorf("spec.endpoint.corsOrigins must reach the runtime config:\n%s", config)
	}
	ing := IngressFor(r.Agent, cfg)
	golden(t, "concierge-ingress", ing)
	// Only the platform endpoints (and a Mastra client's approval answers) are published, as
	// exact paths: not GET /api/agents/{id} (the instructions) and not tools/{id}/execute.
	var paths []string
	for _, p := range ing.Spec.Rules[0].HTTP.Paths {
		if *p.PathType != networkingv1.PathTypeExact {
			t.Errorf("path %s is %s, want Exact", p.Path, *p.PathType)
		}
		paths = append(paths, p.Path)
	}
	if got := strings.Join(paths, " "); got != "/api/agents/concierge-v1/ag-ui /api/agents/concierge-v1/generate /api/agents/concierge-v1/stream "+
		"/api/agents/concierge-v1/approve-tool-call /api/agents/concierge-v1/decline-tool-call "+
		"/a2a/concierge-v1 /a2a/concierge-v1/.well-known/agent-card.json /.well-known/concierge-v1/agent-card.json" {
		t.Errorf("ingress paths: %s", got)
	}
	if dep.Spec.Replicas == nil || *dep.Spec.Replicas != 3 {
		t.Errorf("spec.runtime.replicas 3: %v", dep.Spec.Replicas)
	}
	if got := MountedSecrets(r); strings.Join(got, ",") != "platform-auth,weather-headers" {
		t.Errorf("mounted: %v", got)
	}
	if got := ReferencedSecrets(r.Agent, []*v1alpha1.Tool{r.Tools[0].Tool}, nil); strings.Join(got, ",") != "db,llm,platform-auth,weather-headers" {
		t.Errorf("referenced: %v", got)
	}
	if strings.Contains(string(config), "replicas") {
		t.Error("pod settings do not belong in the agent config")
	}
	if got := InternalURL(r.Agent, cfg); got != "http://agentry-concierge.prod.svc.cluster.local:4111/api/agents/concierge-v1" {
		t.Errorf("internal URL %s", got)
	}
}

func TestConfigHashCoversSecretData(t *testing.T) {
	config := []byte("same config")
	a := ConfigHash(config, map[string]map[string][]byte{"s": {"k": []byte("v1")}})
	b := ConfigHash(config, map[string]map[string][]byte{"s": {"k": []byte("v2")}})
	c := ConfigHash(config, map[string]map[string][]byte{"s": {"k": []byte("v1")}})
	d := ConfigHash([]byte("other config"), map[string]map[string][]byte{"s": {"k": []byte("v1")}})
	if a == b || a != c || a == d || len(a) != 16 {
		t.Errorf("%s %s %s %s", a, b, c, d)
	}
}

func TestChildNames(t *testing.T) {
	if got := ChildName("chef"); got != "agentry-chef" {
		t.Errorf("%s", got)
	}
	long := strings.Repeat("a", 60)
	got := ChildName(long)
	if len(got) > 63 || !strings.HasPrefix(got, "agentry-aaaa") || got == ChildName(long+"b") {
		t.Errorf("%s", got)
	}
	if got := ChildName("my.agent"); strings.Contains(got, ".") || len(got) > 63 {
		t.Errorf("dots are not allowed in Service names: %s", got)
	}
}

func TestDefaultIngressSettings(t *testing.T) {
	a := &v1alpha1.Agent{Spec: v1alpha1.AgentSpec{Endpoint: &v1alpha1.EndpointSpec{Ingress: &v1alpha1.IngressSpec{}}}}
	a.Name, a.Namespace = "x", "ns"
	host, class, tls := IngressSettings(a, cfg)
	if host != "agents.example.com" || class != "nginx" || tls != "agents-tls" {
		t.Errorf("%s %s %s", host, class, tls)
	}
	// Their own host without TLS does not borrow the default host's certificate.
	a.Spec.Endpoint.Ingress.Host = "mine.example.org"
	if _, _, tls := IngressSettings(a, cfg); tls != "" {
		t.Errorf("tls %q", tls)
	}
	if IngressFor(a, Config{}) == nil {
		t.Error("an own host needs no defaults")
	}
	a.Spec.Endpoint.Ingress.Host = ""
	if IngressFor(a, Config{}) != nil {
		t.Error("no host anywhere: no Ingress")
	}
}

// The CRD's CEL rule against passwords in spec.memory.url also guards `agentry serve`, which
// validates manifests with the CRDs' own schema: a URL that would land in a ConfigMap with its
// password is refused in both places.
func TestMemoryURLWithAPasswordIsRejectedByTheRuntimeLoader(t *testing.T) {
	l, err := manifest.NewLoader()
	testutil.NoError(t, err)
	for url, ok := range map[string]bool{
		"postgres://agentry:s3cret@db:5432/agentry":  false,
		"postgres://db/agentry?password=s3cret":      false,
		"postgres://agentry@db:5432/agentry":         true,
		"file:/var/lib/agentry/memory.db?mode=rwc":   true,
		"postgresql://[::1]:5432/agentry?sslmode=no": true,
	} {
		doc := "apiVersion: agentry.dev/v1alpha1\nkind: Agent\nmetadata: {name: a}\nspec:\n  model: {name: m}\n  memory: {url: '" + url + "'}\n"
		err := l.Decode(context.Background(), "a.yaml", []byte(doc), &manifest.Set{})
		if ok && err != nil {
			t.Errorf("%s must load: %v", url, err)
		}
		if !ok && (err == nil || !strings.Contains(err.Error(), "spec.memory.urlSecretRef")) {
			t.Errorf("%s must be refused pointing to urlSecretRef, got %v", url, err)
		}
	}
}

// Tracing on: every runtime pod gets the OTEL_* environment, its headers by reference to a
// Secret (never a value), its agent in the resource attributes; off: none of it.
func TestTracingEnvironment(t *testing.T) {
	a := &v1alpha1.Agent{}
	a.Name, a.Namespace = "chef", "kitchen"
	envOf := func(c Config) map[string]corev1.EnvVar {
		out := map[string]corev1.EnvVar{}
		for _, e := range DeploymentFor(Resolved{Agent: a}, c, "h").Spec.Template.Spec.Containers[0].Env {
			out[e.Name] = e
		}
		return out
	}
	for name := range envOf(Config{}) {
		if strings.HasPrefix(name, "OTEL_") {
			t.Errorf("tracing off, yet %s is set", name)
		}
	}
	env := envOf(Config{Tracing: Tracing{Endpoint: "http://otel-collector.observability:4318", HeadersSecret: "otlp", SamplerRatio: "0.25"}})
	if env["OTEL_EXPORTER_OTLP_ENDPOINT"].Value != "http://otel-collector.observability:4318" || env["OTEL_TRACES_SAMPLER_ARG"].Value != "0.25" ||
		env["OTEL_TRACES_SAMPLER"].Value != "parentbased_traceidratio" || env["OTEL_RESOURCE_ATTRIBUTES"].Value != "k8s.namespace.name=kitchen,agentry.agent=chef" {
		t.Errorf("env %+v", env)
	}
	h := env["OTEL_EXPORTER_OTLP_HEADERS"]
	if h.Value != "" || h.ValueFrom == nil || h.ValueFrom.SecretKeyRef.Name != "otlp" || h.ValueFrom.SecretKeyRef.Key != "headers" || !*h.ValueFrom.SecretKeyRef.Optional {
		t.Errorf("headers %+v", h)
	}
	if _, ok := env["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"]; ok {
		t.Error("content capture must be off unless asked for")
	}
}
