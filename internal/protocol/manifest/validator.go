// Package manifest reads Agentry manifests (multi-document YAML files or directories of them)
// and validates and defaults them with the generated CRDs' own OpenAPI schemas and CEL rules,
// so a manifest that `agentry serve` accepts is one the API server accepts, and vice versa.
package manifest

import (
	"context"
	"fmt"
	"io/fs"
	"path"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	"github.com/agentry-dev/agentry/config/crd"
)

// kindSchema is everything needed to validate one kind the way the API server does.
type kindSchema struct {
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	cel        *cel.Validator
}

// Validator validates and defaults Agentry objects held as unstructured maps.
type Validator struct {
	kinds map[string]*kindSchema // by "version/Kind"
}

// NewValidator builds a Validator from the CRDs embedded in the binary.
func NewValidator() (*Validator, error) {
	return newValidatorFromFS(crd.Bases, "bases")
}

func newValidatorFromFS(fsys fs.FS, dir string) (*Validator, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("failed to read embedded CRDs: %w", err)
	}
	v := &Validator{kinds: map[string]*kindSchema{}}
	for _, e := range entries {
		data, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("failed to read CRD %q: %w", e.Name(), err)
		}
		var def apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(data, &def); err != nil {
			return nil, fmt.Errorf("failed to parse CRD %q: %w", e.Name(), err)
		}
		for _, ver := range def.Spec.Versions {
			if ver.Schema == nil || ver.Schema.OpenAPIV3Schema == nil {
				continue
			}
			ks, err := compileSchema(ver.Schema.OpenAPIV3Schema)
			if err != nil {
				return nil, fmt.Errorf("failed to compile CRD %q version %q: %w", def.Name, ver.Name, err)
			}
			v.kinds[ver.Name+"/"+def.Spec.Names.Kind] = ks
		}
	}
	return v, nil
}

func compileSchema(in *apiextensionsv1.JSONSchemaProps) (*kindSchema, error) {
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(in, &internal, nil); err != nil {
		return nil, err
	}
	ss, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return nil, err
	}
	sv, _, err := apiservervalidation.NewSchemaValidator(&internal)
	if err != nil {
		return nil, err
	}
	return &kindSchema{
		structural: ss,
		validator:  sv,
		cel:        cel.NewValidator(ss, true, celconfig.PerCallLimit),
	}, nil
}

// Admit runs what the API server runs on create: unknown fields are errors (where the API
// server would prune them), defaults are applied, then the OpenAPI schema and the CEL rules
// are checked. obj is modified in place. old, when not nil, is the previous version of the
// object, so that transition rules (immutability) apply too.
func (v *Validator) Admit(ctx context.Context, version, kind string, obj, old map[string]any) field.ErrorList {
	ks, ok := v.kinds[version+"/"+kind]
	if !ok {
		return field.ErrorList{field.NotSupported(field.NewPath("kind"), kind, []string{"Agent", "Tool", "FrontendAction", "MCPServer"})}
	}
	var errs field.ErrorList
	if err, _ := objectmeta.CoerceWithOptions(nil, obj, ks.structural, true, objectmeta.CoerceOptions{}); err != nil {
		errs = append(errs, err)
	}
	opts := structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}
	for _, p := range structuralpruning.PruneWithOptions(obj, ks.structural, true, opts) {
		errs = append(errs, field.Invalid(field.NewPath(p), nil, "unknown field"))
	}
	structuraldefaulting.Default(obj, ks.structural)
	errs = append(errs, objectmeta.Validate(ctx, nil, obj, ks.structural, true)...)
	if old == nil {
		errs = append(errs, apiservervalidation.ValidateCustomResource(nil, obj, ks.validator)...)
	} else {
		errs = append(errs, apiservervalidation.ValidateCustomResourceUpdate(nil, obj, old, ks.validator)...)
	}
	if ks.cel != nil {
		var oldObj any
		if old != nil {
			oldObj = old
		}
		celErrs, _ := ks.cel.Validate(ctx, nil, ks.structural, obj, oldObj, celconfig.RuntimeCELCostBudget)
		errs = append(errs, celErrs...)
	}
	return errs
}
