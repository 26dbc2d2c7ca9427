package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const chart = "charts/agentry"

// helm runs the repository's helm binary from the module root.
func helm(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(helmBin, args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// docs splits rendered YAML into kind/name → object.
func docs(t *testing.T, rendered string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, d := range strings.Split(rendered, "\n---") {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(d), &obj); err != nil {
			t.Fatalf("rendered YAML does not parse: %v\n%s", err, d)
		}
		if obj == nil {
			continue
		}
		md, _ := obj["metadata"].(map[string]any)
		key := obj["kind"].(string) + "/" + md["name"].(string)
		if ns, ok := md["namespace"].(string); ok {
			key += "@" + ns
		}
		out[key] = obj
	}
	return out
}

// args is a Deployment's first container's args and image, as one line.
func args(t *testing.T, objs map[string]map[string]any, deployment string) string {
	t.Helper()
	c, _ := container(t, objs, deployment)
	return strings.Join(argList(c), " ") + " image=" + c["image"].(string)
}

// rendered checks that a render has (has true) or lacks each object; what says which render.
func rendered(t *testing.T, what string, objs map[string]map[string]any, has bool, want ...string) {
	t.Helper()
	for _, k := range want {
		if _, ok := objs[k]; ok != has {
			t.Errorf("%s: %s is rendered: %v, want %v (has %v)", what, k, ok, has, keys(objs))
		}
	}
}

func keys(m map[string]map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestHelmLintAndTemplate(t *testing.T) {
	helm(t, "lint", "--strict", chart)
	for _, f := range []string{"namespaced.yaml", "ingress.yaml", "custom.yaml"} {
		helm(t, "lint", "--strict", chart, "-f", filepath.Join("test/e2e/values", f))
	}
	t.Run("defaults", templateDefaults)
	t.Run("namespaced", templateNamespaced)
	t.Run("ingress", templateIngress)
	t.Run("custom values and plain metrics", templateCustom)
	// Tracing: off by default (no OTEL_* anywhere); on, the operator passes it to agent pods and
	// the operator and chat service export themselves, the headers from a Secret only.
	t.Run("tracing", templateTracing)
	// values.schema.json rejects what it should.
	t.Run("schema", templateSchema)
}

func templateDefaults(t *testing.T) {
	def := template(t)
	a := args(t, def, "Deployment/agentry-operator@agentry-system")
	// Agents run on the runtime image (agentry built with -tags agentry_runtime), sized from
	// make bench (docs/runtime-footprint.md).
	hasAll(t, "default args", a, "operator", "--runtime-image=ghcr.io/agentry-dev/agentry-runtime:0.1.0", "--leader-elect=false", "image=ghcr.io/agentry-dev/agentry:0.1.0",
		"--metrics-bind-address=:8443", "--metrics-secure=true", "--runtime-cpu-request=50m", "--runtime-memory-request=40Mi", "--runtime-memory-limit=256Mi")
	if strings.Contains(a, "--runtime-trusted-proxies") || strings.Contains(a, "--runtime-cors-origins") {
		t.Errorf("no runtime proxy or CORS flags by default: %s", a)
	}
	rendered(t, "default install", def, true, "ClusterRole/agentry-operator", "ClusterRoleBinding/agentry-operator", "Role/agentry-leader-election@agentry-system",
		"ServiceAccount/agentry@agentry-system", "Service/agentry-metrics@agentry-system",
		"ClusterRole/agentry-metrics-auth", "ClusterRoleBinding/agentry-metrics-auth", "ClusterRole/agentry-metrics-reader")
	fields(t, "the metrics Service", def["Service/agentry-metrics@agentry-system"], map[string]any{"spec.ports.0.name": "https", "spec.ports.0.port": float64(8443)})
	sameRules(t, def["ClusterRole/agentry-metrics-auth"], "config/rbac/metrics_auth_role.yaml")
	sameRules(t, def["ClusterRole/agentry-metrics-reader"], "config/rbac/metrics_reader_role.yaml")
}

func templateNamespaced(t *testing.T) {
	ns := template(t, "-f", "test/e2e/values/namespaced.yaml")
	rendered(t, "namespaced mode", ns, false, "ClusterRole/agentry-operator")
	rendered(t, "namespaced mode", ns, true, "Role/agentry-operator@team-a", "RoleBinding/agentry-operator@team-a", "Role/agentry-operator@team-b", "RoleBinding/agentry-operator@team-b")
	if a := args(t, ns, "Deployment/agentry-operator@agentry-system"); !strings.Contains(a, "--watch-namespaces=team-a,team-b") {
		t.Errorf("namespaced args: %s", a)
	}
	// TokenReviews and SubjectAccessReviews are cluster-scoped: a ClusterRole also here.
	rendered(t, "namespaced mode", ns, true, "ClusterRoleBinding/agentry-metrics-auth")
}

func templateIngress(t *testing.T) {
	ing := template(t, "-f", "test/e2e/values/ingress.yaml")
	a := args(t, ing, "Deployment/agentry-operator@agentry-system")
	hasAll(t, "ingress args", a, "--default-ingress-class=nginx", "--default-ingress-host=agents.example.com", "--default-ingress-tls-secret=agents-tls", "--leader-elect=true",
		"--runtime-trusted-proxies=10.0.0.0/8,fd00::/8", "--runtime-cors-origins=https://chat.example.com")
}

func templateTracing(t *testing.T) {
	if strings.Contains(helm(t, "template", "agentry", chart, "--set", "chat.enabled=true"), "OTEL_") {
		t.Error("tracing is off by default")
	}
	traced := template(t, "--set", "chat.enabled=true,tracing.endpoint=http://otel.observability:4318,tracing.headersSecret.name=otlp,tracing.samplingRatio=0.5")
	if a := args(t, traced, "Deployment/agentry-operator@agentry-system"); !strings.Contains(a, "--runtime-otlp-endpoint=http://otel.observability:4318") ||
		!strings.Contains(a, "--runtime-otlp-headers-secret=otlp") || !strings.Contains(a, "--runtime-trace-sampling-ratio=0.5") {
		t.Errorf("operator tracing args: %s", a)
	}
	for _, d := range []string{"Deployment/agentry-operator@agentry-system", "Deployment/agentry-chat@agentry-system"} {
		env, _ := yaml.Marshal(traced[d]["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["env"])
		if !strings.Contains(string(env), "OTEL_EXPORTER_OTLP_ENDPOINT") || !strings.Contains(string(env), "secretKeyRef") || !strings.Contains(string(env), "parentbased_traceidratio") {
			t.Errorf("%s tracing env:\n%s", d, env)
		}
	}
}

func templateSchema(t *testing.T) {
	for set, field := range map[string]string{
		"tracing.samplingRatio=2":                   "samplingRatio",
		"tracing.endpoint=otel:4318":                "endpoint",
		"logLevel=loud":                             "logLevel",
		"runtime.trustedProxies={10.0.0.0}":         "trustedProxies",
		"runtime.trustedProxies={ingress-nginx}":    "trustedProxies",
		"runtime.corsOrigins={https://a.example/x}": "corsOrigins",
	} {
		if out := helmFails(t, "template", "agentry", chart, "--set", set); !strings.Contains(out, field) {
			t.Errorf("--set %s must be rejected by values.schema.json: %s", set, out)
		}
	}
}

func templateCustom(t *testing.T) {
	custom := template(t, "-f", "test/e2e/values/custom.yaml")
	a := args(t, custom, "Deployment/agentry-operator@agentry-system")
	hasAll(t, "custom args", a, "image=registry.example/agentry:v9", "--runtime-image=registry.example/agentry-runtime:v9", "--log-level=debug", "--metrics-bind-address=0")
	rendered(t, "metrics disabled", custom, false, "Service/agentry-metrics@agentry-system", "ClusterRole/agentry-metrics-auth")
	plain := template(t, "--set", "metrics.secure=false,metrics.port=8080")
	if a := args(t, plain, "Deployment/agentry-operator@agentry-system"); !strings.Contains(a, "--metrics-secure=false") || !strings.Contains(a, "--metrics-bind-address=:8080") {
		t.Errorf("plain metrics args: %s", a)
	}
	fields(t, "plain metrics", plain["Service/agentry-metrics@agentry-system"], map[string]any{"spec.ports.0.name": "http"})
	fields(t, "extra labels", custom["Deployment/agentry-operator@agentry-system"], map[string]any{"metadata.labels.cost-center": "ai"})
}

// sameRules fails when a chart ClusterRole's rules differ from a config/rbac file's.
func sameRules(t *testing.T, role map[string]any, file string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := yaml.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	got, _ := yaml.Marshal(role["rules"])
	exp, _ := yaml.Marshal(want["rules"])
	if string(got) != string(exp) {
		t.Errorf("the chart's rules differ from %s:\n%s\nwant:\n%s", file, got, exp)
	}
}

// TestChartCRDsMatchGenerated fails when the chart's CRDs drift from config/crd/bases.
func TestChartCRDsMatchGenerated(t *testing.T) {
	gen, _ := filepath.Glob(filepath.Join(root, "config/crd/bases/*.yaml"))
	inChart, _ := filepath.Glob(filepath.Join(root, chart, "crds/*.yaml"))
	if len(gen) == 0 || len(gen) != len(inChart) {
		t.Fatalf("config/crd/bases has %d CRDs, the chart %d", len(gen), len(inChart))
	}
	for _, f := range gen {
		a, _ := os.ReadFile(f)
		b, err := os.ReadFile(filepath.Join(root, chart, "crds", filepath.Base(f)))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs in the chart: run make manifests", filepath.Base(f))
		}
	}
	rules, _ := os.ReadFile(filepath.Join(root, chart, "files/operator-rules.yaml"))
	role, _ := os.ReadFile(filepath.Join(root, "config/rbac/role.yaml"))
	body := string(role[strings.Index(string(role), "rules:"):])
	if !strings.Contains(string(rules), body) {
		t.Error("charts/agentry/files/operator-rules.yaml differs from config/rbac/role.yaml: run make manifests")
	}
}
