package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/agentry-dev/agentry/"

// layers says which of the module's packages each layer's code may import, by path prefix
// (docs/design.md, "Layout and layers"). A layer never imports one above it: the operator, the
// runtime and the chat service share only api/ and internal/, and nothing imports cmd/.
var layers = []struct{ layer, may string }{
	{"api/", "api/"},
	{"internal/platform/", "internal/platform/"},
	// config/crd embeds the generated CRDs the manifest loader validates against.
	{"internal/protocol/", "api/ config/crd/ internal/platform/ internal/protocol/"},
	{"internal/devkit/", "api/ internal/"},
	{"runtime/", "api/ internal/platform/ internal/protocol/ runtime/"},
	{"chat/", "api/ internal/platform/ internal/protocol/ chat/"},
	// The operator renders the runtime's Deployments: it knows the runtime's contract (its
	// env names, tool compiler and memory limits).
	{"controllers/", "api/ internal/platform/ internal/protocol/ runtime/ controllers/"},
	// ui/apps/web embeds the built web app the chat command serves.
	{"cmd/", "api/ config/crd/ internal/ runtime/ chat/ controllers/ ui/apps/web/ cmd/"},
}

// TestLayers checks every import of the module's own packages against the layers. Tests may
// also use the development kit (internal/devkit) and run a real runtime (the chat bridge's
// tests call agents served by runtime/server rather than a mock).
func TestLayers(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "ui" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path)) + "/"
		for _, l := range layers {
			if !strings.HasPrefix(dir, l.layer) {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			may := strings.Fields(l.may)
			if strings.HasSuffix(path, "_test.go") {
				may = append(may, "internal/devkit/", "runtime/")
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if own, ok := strings.CutPrefix(p, module); ok && !allowed(own+"/", may) {
					t.Errorf("%s imports %s: the %s layer may import only %s", path, own, l.layer, strings.Join(may, ", "))
				}
			}
			checked++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d files: the layers do not match the tree", checked)
	}
}

func allowed(pkg string, may []string) bool {
	for _, m := range may {
		if strings.HasPrefix(pkg, m) {
			return true
		}
	}
	return false
}
