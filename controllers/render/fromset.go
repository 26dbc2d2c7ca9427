package render

import (
	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/protocol/manifest/decode"
)

// FromSet is what the reconciler resolves for Agent a, taken from manifests read from files
// (tests and benchmarks that render the samples as the operator would): its ModelConfig merged
// into its model, the Tools whose id equals their key and the FrontendActions that exist.
// Secret data is left empty.
func FromSet(set *decode.Set, a *v1alpha1.Agent) Resolved {
	r := Resolved{Agent: a, SecretData: map[string]map[string][]byte{}}
	if ref := a.Spec.Model.ConfigRef; ref != nil {
		if mc := set.ModelConfig(a.Namespace, ref.Name); mc != nil {
			merged := a.DeepCopy()
			merged.Spec.Model = mc.Spec.Merged(a.Spec.Model)
			r.Agent = merged
		}
	}
	for _, e := range a.Spec.Tools {
		if e.ToolRef == nil {
			continue
		}
		if t := set.Tool(a.Namespace, e.ToolRef.Name); t != nil && t.Spec.ID == e.Key {
			r.Tools = append(r.Tools, ResolvedTool{Entry: e, Tool: t})
		}
	}
	for _, f := range a.Spec.FrontendActions {
		if fa := set.FrontendAction(a.Namespace, f.Name); fa != nil {
			r.FrontendActions = append(r.FrontendActions, fa)
		}
	}
	return r
}
