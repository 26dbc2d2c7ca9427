package tools

import (
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateParameters checks a FrontendAction's parameters: a JSON Schema that compiles and has
// the documented shape — an object with `type: object`, an optional `required` list naming
// declared properties, and `properties` whose entries each have a `type` and a `description`.
func ValidateParameters(raw []byte, path *field.Path) field.ErrorList {
	if len(raw) == 0 {
		return nil
	}
	s, err := CompileSchema(raw)
	if err != nil {
		return field.ErrorList{field.Invalid(path, omit, err.Error())}
	}
	if err := s.RequireObjectSchema(); err != nil {
		return field.ErrorList{field.Invalid(path.Child("type"), omit, err.Error())}
	}
	var errs field.ErrorList
	doc := s.Doc()
	props := map[string]any{}
	if p, ok := doc["properties"]; ok {
		m, ok := p.(map[string]any)
		if !ok {
			return field.ErrorList{field.Invalid(path.Child("properties"), omit, "must be an object mapping parameter names to schemas")}
		}
		props = m
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		pp := path.Child("properties").Key(n)
		prop, ok := props[n].(map[string]any)
		if !ok {
			errs = append(errs, field.Invalid(pp, omit, "must be a schema object"))
			continue
		}
		if _, ok := prop["type"]; !ok {
			errs = append(errs, field.Required(pp.Child("type"), "every parameter needs a type"))
		}
		if d, _ := prop["description"].(string); d == "" {
			errs = append(errs, field.Required(pp.Child("description"), "every parameter needs a description: the model fills parameters from it"))
		}
	}
	if r, ok := doc["required"]; ok {
		list, ok := r.([]any)
		if !ok {
			errs = append(errs, field.Invalid(path.Child("required"), omit, "must be a list of parameter names"))
		}
		for i, item := range list {
			name, _ := item.(string)
			if _, declared := props[name]; !declared {
				errs = append(errs, field.Invalid(path.Child("required").Index(i), item, "names no declared property"))
			}
		}
	}
	return errs
}
