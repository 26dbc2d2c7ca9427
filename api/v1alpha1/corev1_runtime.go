//go:build agentry_runtime

package v1alpha1

import "encoding/json"

// In the agent pods' build (-tags agentry_runtime) nothing reads spec.runtime: the operator
// renders it into the Deployment. These types hold it as it came, so that build does not link
// k8s.io/api/core/v1 (3 MB of the agentry-runtime binary, docs/runtime-footprint.md); the full
// build uses core/v1's types (corev1_full.go), which the CRD schema is generated from.

// PullPolicy is core/v1's PullPolicy.
type PullPolicy string

// ResourceRequirements holds core/v1's ResourceRequirements undecoded.
type ResourceRequirements struct{ raw json.RawMessage }

// EnvVar holds a core/v1 EnvVar undecoded.
type EnvVar struct{ raw json.RawMessage }

func (r *ResourceRequirements) UnmarshalJSON(b []byte) error {
	r.raw = append(r.raw[:0], b...)
	return nil
}
func (r ResourceRequirements) MarshalJSON() ([]byte, error) { return rawOrEmpty(r.raw), nil }
func (r *ResourceRequirements) DeepCopyInto(out *ResourceRequirements) {
	out.raw = append(json.RawMessage(nil), r.raw...)
}

func (e *EnvVar) UnmarshalJSON(b []byte) error { e.raw = append(e.raw[:0], b...); return nil }
func (e EnvVar) MarshalJSON() ([]byte, error)  { return rawOrEmpty(e.raw), nil }
func (e *EnvVar) DeepCopyInto(out *EnvVar)     { out.raw = append(json.RawMessage(nil), e.raw...) }

func rawOrEmpty(raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return []byte("{}")
	}
	return raw
}
