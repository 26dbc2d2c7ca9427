package manifest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"sigs.k8s.io/yaml"

	"github.com/agentry-dev/agentry/config/crd"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

func TestLoadSamples(t *testing.T) {
	l, err := NewLoader()
	testutil.NoError(t, err)
	set, err := l.LoadPath(context.Background(), "../../../config/samples")
	if err != nil {
		t.Fatalf("samples must load: %v", err)
	}
	if len(set.Agents) != 2 || len(set.Tools) != 3 || len(set.FrontendActions) != 1 {
		t.Fatalf("got %d agents, %d tools, %d frontend actions", len(set.Agents), len(set.Tools), len(set.FrontendActions))
	}
	for _, a := range set.Agents {
		if a.Namespace != DefaultNamespace {
			t.Errorf("agent %s: namespace %q, want default", a.Name, a.Namespace)
		}
		if a.Spec.Model.Provider != "openai" {
			t.Errorf("agent %s: provider not defaulted: %q", a.Name, a.Spec.Model.Provider)
		}
		if a.Spec.MaxSteps == nil {
			t.Errorf("agent %s: maxSteps not defaulted", a.Name)
		}
	}
	weather := set.Agents[1]
	if weather.Name != "weather" || *weather.Spec.MaxSteps != 100 {
		t.Errorf("weather agent: maxSteps %v, want default 100", *weather.Spec.MaxSteps)
	}
}

const validTool = `apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: t1}
spec:
  id: t1
  description: d
  inputSchema: {type: object}
  execute: {cel: "{}"}
`

func TestLoadRejects(t *testing.T) {
	cases := []struct {
		name, doc string
		want      []string
	}{
		{"maxSteps over 100", `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: a}
spec: {model: {name: m}, maxSteps: 200}`, []string{`Agent "a"`, "spec.maxSteps", "100"}},
		{"unknown field", `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: a}
spec: {model: {name: m}, colour: red}`, []string{"spec.colour", "unknown field"}},
		{"bad agentId", `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: a}
spec: {agentId: "-bad", model: {name: m}}`, []string{"spec.agentId"}},
		{"two execute kinds", `apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: t}
spec: {id: t, description: d, inputSchema: {type: object}, execute: {cel: "{}", http: {url: "http://x"}}}`, []string{`Tool "t"`, "exactly one of cel, http or a2a"}},
		{"duplicate tool keys", `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: a}
spec:
  model: {name: m}
  tools:
  - {key: k, toolRef: {name: x}}
  - {key: k, toolRef: {name: y}}`, []string{"spec.tools"}},
		{"file store with replicas", `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: a}
spec: {model: {name: m}, memory: {url: "file:/data/m.db"}, runtime: {replicas: 2}}`, []string{"postgres"}},
		{"missing name", `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {}
spec: {model: {name: m}}`, []string{"metadata.name"}},
		{"unknown kind", `apiVersion: agentry.dev/v1alpha1
kind: Robot
metadata: {name: r}`, []string{"Robot"}},
		{"old version", `apiVersion: agentry.dev/v1beta9
kind: Agent
metadata: {name: r}`, []string{"v1beta9", "not supported"}},
		{"duplicate object", validTool + "---\n" + validTool, []string{"defined twice"}},
	}
	l, err := NewLoader()
	testutil.NoError(t, err)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "bad.yaml")
			testutil.NoError(t, os.WriteFile(file, []byte(tc.doc), 0o600))
			_, err := l.LoadPath(context.Background(), dir)
			if err == nil {
				t.Fatal("expected an error")
			}
			msg := err.Error()
			for _, w := range append(tc.want, file) {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not mention %q", msg, w)
				}
			}
		})
	}
}

func TestLoadIgnoresOtherGroups(t *testing.T) {
	l, err := NewLoader()
	testutil.NoError(t, err)
	dir := t.TempDir()
	doc := "apiVersion: v1\nkind: Secret\nmetadata: {name: openai}\nstringData: {apiKey: x}\n---\n# only a comment\n---\n" + validTool
	testutil.NoError(t, os.WriteFile(filepath.Join(dir, "mixed.yaml"), []byte(doc), 0o600))
	set, err := l.LoadPath(context.Background(), dir)
	testutil.NoError(t, err)
	if len(set.Tools) != 1 || len(set.Ignored) != 1 || set.Ignored[0].Kind != "Secret" {
		t.Fatalf("tools=%d ignored=%v", len(set.Tools), set.Ignored)
	}
}

// TestEmbeddedCRDsPassAPIServerValidation runs the API server's CRD validation, including the
// CEL cost estimate, on the generated CRDs, so a rule too expensive to install fails here.
func TestEmbeddedCRDsPassAPIServerValidation(t *testing.T) {
	entries, err := crd.Bases.ReadDir("bases")
	if err != nil || len(entries) != 6 {
		t.Fatalf("embedded CRDs: %v %v", entries, err)
	}
	for _, e := range entries {
		data, _ := crd.Bases.ReadFile("bases/" + e.Name())
		var v1 apiextensionsv1.CustomResourceDefinition
		testutil.NoError(t, yaml.UnmarshalStrict(data, &v1))
		var internal apiextensions.CustomResourceDefinition
		testutil.NoError(t, apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &internal, nil))
		internal.Status.StoredVersions = []string{"v1alpha1"} // the API server sets this on create
		if errs := apiextensionsvalidation.ValidateCustomResourceDefinition(context.Background(), &internal); len(errs) > 0 {
			t.Errorf("%s: %v", e.Name(), errs.ToAggregate())
		}
	}
}
