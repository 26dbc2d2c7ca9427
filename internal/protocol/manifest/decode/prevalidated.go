package decode

import (
	"context"
	"encoding/json"
	"regexp"

	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"
)

// PrevalidatedEnv tells the runtime that its config is the operator's rendering of objects the
// API server validated (serve --prevalidated): it decodes the config strictly instead of running
// the CRDs' schemas and CEL rules again. An environment variable rather than a flag, so a
// runtime image older than the operator (spec.runtime.image) ignores it.
const PrevalidatedEnv = "AGENTRY_PREVALIDATED"

// Prevalidated admits objects the API server has already validated and defaulted: the config
// the operator renders into an Agent's ConfigMap from the stored Agent, Tools and
// FrontendActions. It runs no schema and no CEL rule again — that is what makes a runtime pod
// cheap — and applies no default (the stored objects carry them). It still refuses what the
// Go types cannot hold exactly: an unknown or duplicate field (e.g. a runtime image older than
// the operator's CRDs) or a value of the wrong type, so a config is never half-understood.
//
// Hand-written manifests must not use it: they are admitted with the CRDs' schemas and CEL
// rules (manifest.NewLoader).
type Prevalidated struct{}

var _ Admitter = Prevalidated{}

var unknownField = regexp.MustCompile(`^unknown field "(.+)"$`)

// Admit decodes obj strictly into its Go type.
func (Prevalidated) Admit(_ context.Context, _ string, kind string, obj, _ map[string]any) field.ErrorList {
	target := newObject(kind)
	if target == nil {
		return field.ErrorList{field.NotSupported(field.NewPath("kind"), kind, []string{"Agent", "Tool", "FrontendAction", "MCPServer"})}
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	strict, err := sigsjson.UnmarshalStrict(data, target, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	var errs field.ErrorList
	if err != nil {
		errs = append(errs, field.Invalid(field.NewPath(kind), nil, err.Error()))
	}
	for _, e := range strict {
		if m := unknownField.FindStringSubmatch(e.Error()); m != nil {
			errs = append(errs, field.Invalid(field.NewPath(m[1]), nil, "unknown field"))
		} else {
			errs = append(errs, field.Invalid(field.NewPath(kind), nil, e.Error()))
		}
	}
	return errs
}
