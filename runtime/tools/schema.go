package tools

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is a compiled JSON Schema together with its verbatim source.
type Schema struct {
	Raw      json.RawMessage
	doc      map[string]any
	compiled *jsonschema.Schema
}

// CompileSchema compiles a JSON Schema document (draft 2020-12 unless it says otherwise).
// Remote and file references are refused: a manifest must be self-contained.
func CompileSchema(raw []byte) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, errors.New("a schema must be a JSON object")
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{})
	const loc = "agentry:///schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	compiled, err := c.Compile(loc)
	if err != nil {
		return nil, errors.New(strings.ReplaceAll(err.Error(), loc, "schema"))
	}
	var plain map[string]any
	_ = json.Unmarshal(raw, &plain)
	return &Schema{Raw: append(json.RawMessage(nil), raw...), doc: plain, compiled: compiled}, nil
}

// Doc is the schema as a plain JSON object (numbers as float64).
func (s *Schema) Doc() map[string]any { return s.doc }

// Validate checks a JSON document against the schema and returns a readable list of the
// violations, each with its location in the document.
func (s *Schema) Validate(data []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not valid JSON: %w", err)
	}
	if err := s.compiled.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return errors.New(describe(ve))
		}
		return err
	}
	return nil
}

func describe(ve *jsonschema.ValidationError) string {
	var msgs []string
	var walk func(u jsonschema.OutputUnit)
	walk = func(u jsonschema.OutputUnit) {
		if u.Error != nil && len(u.Errors) == 0 {
			loc := u.InstanceLocation
			loc = cmp.Or(loc, "/")
			msgs = append(msgs, fmt.Sprintf("at %s: %s", loc, u.Error.String()))
		}
		for _, c := range u.Errors {
			walk(c)
		}
	}
	walk(*ve.BasicOutput())
	if len(msgs) == 0 {
		return ve.Error()
	}
	sort.Strings(msgs)
	return strings.Join(dedupe(msgs), "; ")
}

func dedupe(in []string) []string {
	out := in[:0]
	for i, s := range in {
		if i == 0 || s != in[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// RequireObjectSchema checks that a schema describes an object, as function parameters must.
func (s *Schema) RequireObjectSchema() error {
	t, ok := s.doc["type"]
	if !ok {
		return errors.New(`the schema must say "type": "object"`)
	}
	if t != "object" {
		return fmt.Errorf(`the schema must have "type": "object", not %v`, t)
	}
	return nil
}
