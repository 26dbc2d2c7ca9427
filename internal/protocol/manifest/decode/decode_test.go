package decode

import (
	"context"
	"strings"
	"testing"
)

const rendered = `# Rendered by the Agentry operator; do not edit.
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata:
  name: a
  namespace: prod
spec:
  maxSteps: 10
  model:
    name: m
    provider: openai
  platform:
    provider: ag-ui
  tools:
  - key: t
    toolRef:
      name: t
---
apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata:
  name: t
  namespace: prod
spec:
  description: d
  execute:
    cel: '{}'
  id: t
  inputSchema:
    type: object
`

func TestPrevalidatedDecodesTheRenderedConfig(t *testing.T) {
	set := &Set{}
	if err := NewLoader(Prevalidated{}).Decode(context.Background(), "agent.yaml", []byte(rendered), set); err != nil {
		t.Fatal(err)
	}
	if len(set.Agents) != 1 || len(set.Tools) != 1 {
		t.Fatalf("agents %d, tools %d", len(set.Agents), len(set.Tools))
	}
	a := set.Agents[0]
	if a.Namespace != "prod" || *a.Spec.MaxSteps != 10 || a.Spec.Model.Provider != "openai" || a.Spec.Tools[0].ToolRef.Name != "t" {
		t.Errorf("agent: %+v", a)
	}
	if tool := set.Tool("prod", "t"); tool == nil || string(tool.Spec.InputSchema.Raw) != `{"type":"object"}` {
		t.Errorf("tool: %+v", tool)
	}
	if src := set.SourceOf("Agent", "prod", "a"); src.File != "agent.yaml" {
		t.Errorf("source: %v", src)
	}
}

// What the Go types cannot hold exactly is refused, naming the file, the object and the field:
// a runtime older than the operator's CRDs must not half-understand its config.
func TestPrevalidatedRefusesWhatTheTypesCannotHold(t *testing.T) {
	for name, tc := range map[string]struct{ doc, want string }{
		"unknown field":       {"apiVersion: agentry.dev/v1alpha1\nkind: Agent\nmetadata: {name: a}\nspec: {model: {name: m}, colour: red}\n", `agent.yaml: Agent "a": spec.colour: Invalid value: null: unknown field`},
		"unknown nested":      {"apiVersion: agentry.dev/v1alpha1\nkind: Agent\nmetadata: {name: a}\nspec: {model: {name: m, flavour: x}}\n", `spec.model.flavour: Invalid value: null: unknown field`},
		"wrong type":          {"apiVersion: agentry.dev/v1alpha1\nkind: Agent\nmetadata: {name: a}\nspec: {model: {name: m}, maxSteps: many}\n", `Agent "a": Agent`},
		"unknown kind":        {"apiVersion: agentry.dev/v1alpha1\nkind: Robot\nmetadata: {name: r}\n", `kind: Unsupported value: "Robot"`},
		"missing name":        {"apiVersion: agentry.dev/v1alpha1\nkind: Agent\nmetadata: {}\nspec: {model: {name: m}}\n", "metadata.name: Required value"},
		"bad name":            {"apiVersion: agentry.dev/v1alpha1\nkind: Agent\nmetadata: {name: Bad_Name}\nspec: {model: {name: m}}\n", "metadata.name: Invalid value"},
		"unsupported version": {"apiVersion: agentry.dev/v1beta9\nkind: Agent\nmetadata: {name: a}\n", `apiVersion "agentry.dev/v1beta9" is not supported`},
	} {
		t.Run(name, func(t *testing.T) {
			err := NewLoader(Prevalidated{}).Decode(context.Background(), "agent.yaml", []byte(tc.doc), &Set{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "agent.yaml: ") {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
