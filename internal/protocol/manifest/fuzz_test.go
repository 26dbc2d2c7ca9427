package manifest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"sigs.k8s.io/yaml"
)

// The loader compiles every CRD's schema and CEL rules: too slow to build per input.
var fuzzLoader = sync.OnceValues(NewLoader)

const fuzzFile = "fuzz.yaml"

// FuzzDecode checks the manifest loader on arbitrary bytes: every error names the file, and what
// is accepted has a valid name and a namespace, is findable by its source, and loads again
// unchanged when written back out (defaults are applied once, not drifting).
func FuzzDecode(f *testing.F) {
	samples, _ := filepath.Glob("../../../config/samples/*.yaml")
	var all [][]byte
	for _, p := range samples {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		all = append(all, b)
	}
	f.Add(bytes.Join(all, []byte("\n---\n")))
	for _, s := range []string{
		validTool,
		validTool + "---\n" + validTool,
		"apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n---\n# only a comment\n---\n",
		"apiVersion: agentry.dev/v1alpha1\nkind: Agent\nmetadata: {name: a, namespace: 5}\nspec: {model: {name: m}, maxSteps: 500}\n",
		"apiVersion: agentry.dev/v1beta9\nkind: Tool\nmetadata: {name: t}\n",
		"apiVersion: agentry.dev/v1alpha1\nkind: Widget\nmetadata: {name: w}\n",
		"apiVersion: agentry.dev/v1alpha1\nkind: FrontendAction\nmetadata: {name: Bad_Name}\nspec: {name: x, description: d}\n",
		"- a\n- b\n",
		"{\"apiVersion\":\"agentry.dev/v1alpha1\",\"kind\":\"Tool\",\"metadata\":null}",
		"key: [unclosed\n",
		"\t\x00\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := fuzzLoader()
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		set := &Set{}
		if err := l.Decode(ctx, fuzzFile, data, set); err != nil {
			for _, e := range leafErrors(err) {
				if !strings.HasPrefix(e.Error(), fuzzFile+": ") {
					t.Fatalf("error does not name the file: %q", e.Error())
				}
			}
			return
		}
		var out [][]byte
		check := func(kind, namespace, name string, obj any) {
			if name == "" || len(apivalidation.NameIsDNSSubdomain(name, false)) > 0 {
				t.Fatalf("%s accepted with name %q", kind, name)
			}
			if namespace == "" {
				t.Fatalf("%s %q accepted without a namespace", kind, name)
			}
			if src := set.SourceOf(kind, namespace, name); src.File != fuzzFile {
				t.Fatalf("%s %q has source %v", kind, name, src)
			}
			b, err := yaml.Marshal(obj)
			if err != nil {
				t.Fatalf("failed to write %s %q: %v", kind, name, err)
			}
			out = append(out, b)
		}
		for _, a := range set.Agents {
			check("Agent", a.Namespace, a.Name, a)
		}
		for _, tool := range set.Tools {
			check("Tool", tool.Namespace, tool.Name, tool)
		}
		for _, fa := range set.FrontendActions {
			check("FrontendAction", fa.Namespace, fa.Name, fa)
		}
		again := &Set{}
		if err := l.Decode(ctx, fuzzFile, bytes.Join(out, []byte("---\n")), again); err != nil {
			t.Fatalf("accepted objects do not load again: %v\n%s", err, bytes.Join(out, []byte("---\n")))
		}
		if !equality.Semantic.DeepEqual(set.Agents, again.Agents) || !equality.Semantic.DeepEqual(set.Tools, again.Tools) ||
			!equality.Semantic.DeepEqual(set.FrontendActions, again.FrontendActions) {
			t.Fatalf("objects changed when loaded again:\n%s", bytes.Join(out, []byte("---\n")))
		}
	})
}

// leafErrors flattens errors.Join trees.
func leafErrors(err error) []error {
	var j interface{ Unwrap() []error }
	if !errors.As(err, &j) {
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, leafErrors(e)...)
	}
	return out
}
