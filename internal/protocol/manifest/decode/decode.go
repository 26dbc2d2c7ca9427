// Package decode reads Agentry manifests (multi-document YAML files or directories of them)
// into typed objects: the file walk, the YAML split, and the checks every object gets (group,
// version, kind, name, duplicates). What else a document must satisfy is an Admitter's
// business:
//
//   - internal/protocol/manifest admits with the generated CRDs' own OpenAPI schemas and CEL rules, as
//     the API server does: hand-written manifests (`agentry serve`, `agentry dev`).
//   - Prevalidated admits what the operator rendered from objects the API server has already
//     validated and defaulted (the runtime pods): a strict decode into the Go types only.
//
// This package links none of the API server's validation code, so a binary that serves only
// operator-rendered configs stays small (see docs/runtime-footprint.md).
package decode

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/agentry-dev/agentry/api/v1alpha1"
)

// DefaultNamespace is the namespace given to objects that name none, as kubectl would.
const DefaultNamespace = "default"

// Source says where an object was read from, for error messages.
type Source struct {
	File string
	Kind string
	Name string
}

func (s Source) String() string {
	return fmt.Sprintf("%s: %s %q", s.File, s.Kind, s.Name)
}

// Set holds the Agentry objects read from one or more files.
type Set struct {
	Agents          []*v1alpha1.Agent
	Tools           []*v1alpha1.Tool
	FrontendActions []*v1alpha1.FrontendAction
	MCPServers      []*v1alpha1.MCPServer
	// RemoteAgents are read for their validation only: the operator reads their cards.
	RemoteAgents []*v1alpha1.RemoteAgent
	// ModelConfigs are the shared models Agents reference with spec.model.configRef.
	ModelConfigs []*v1alpha1.ModelConfig
	// Ignored lists documents of other API groups (e.g. Secrets, kustomizations) that were skipped.
	Ignored []Source

	sources map[string]Source
}

// SourceOf tells where an object (by kind, namespace and name) came from.
func (s *Set) SourceOf(kind, namespace, name string) Source {
	if src, ok := s.sources[key(kind, namespace, name)]; ok {
		return src
	}
	return Source{File: "<unknown>", Kind: kind, Name: name}
}

// Tool finds a Tool by namespace and name.
func (s *Set) Tool(namespace, name string) *v1alpha1.Tool {
	for _, t := range s.Tools {
		if t.Namespace == namespace && t.Name == name {
			return t
		}
	}
	return nil
}

// Agent finds an Agent by namespace and name.
func (s *Set) Agent(namespace, name string) *v1alpha1.Agent {
	for _, a := range s.Agents {
		if a.Namespace == namespace && a.Name == name {
			return a
		}
	}
	return nil
}

// FrontendAction finds a FrontendAction by namespace and name.
func (s *Set) FrontendAction(namespace, name string) *v1alpha1.FrontendAction {
	for _, f := range s.FrontendActions {
		if f.Namespace == namespace && f.Name == name {
			return f
		}
	}
	return nil
}

// MCPServer finds an MCPServer by namespace and name.
func (s *Set) MCPServer(namespace, name string) *v1alpha1.MCPServer {
	for _, m := range s.MCPServers {
		if m.Namespace == namespace && m.Name == name {
			return m
		}
	}
	return nil
}

// ModelConfig finds a ModelConfig by namespace and name.
func (s *Set) ModelConfig(namespace, name string) *v1alpha1.ModelConfig {
	for _, m := range s.ModelConfigs {
		if m.Namespace == namespace && m.Name == name {
			return m
		}
	}
	return nil
}

func key(kind, namespace, name string) string { return kind + "/" + namespace + "/" + name }

// Admitter checks (and may default, in place) one Agentry object held as an unstructured map
// before it is converted to its Go type. old, when not nil, is the previous version of the
// object (transition rules).
type Admitter interface {
	Admit(ctx context.Context, version, kind string, obj, old map[string]any) field.ErrorList
}

// Loader reads manifests, admitting every Agentry object with its Admitter.
type Loader struct {
	admitter Admitter
}

// NewLoader returns a Loader that admits objects with a.
func NewLoader(a Admitter) *Loader {
	return &Loader{admitter: a}
}

// LoadPath reads a file, or every *.yaml, *.yml and *.json file below a directory (sorted,
// recursively). Every problem in every document is reported, each naming the file, the object
// and the field.
func (l *Loader) LoadPath(ctx context.Context, p string) (*Set, error) {
	return l.LoadPaths(ctx, p)
}

// LoadPaths is LoadPath over several files or directories, into one set.
func (l *Loader) LoadPaths(ctx context.Context, paths ...string) (*Set, error) {
	var files []string
	for _, p := range paths {
		f, err := manifestFiles(p)
		if err != nil {
			return nil, err
		}
		files = append(files, f...)
	}
	set := &Set{sources: map[string]Source{}}
	var errs []error
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			errs = append(errs, fmt.Errorf("failed to read %q: %w", f, err))
			continue
		}
		if err := l.Decode(ctx, f, data, set); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return set, nil
}

func manifestFiles(p string) ([]string, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("failed to read config %q: %w", p, err)
	}
	if !info.IsDir() {
		return []string{p}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(f string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if f != p && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(f)) {
		case ".yaml", ".yml", ".json":
			files = append(files, f)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("failed to list config directory %q: %w", p, err)
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("config directory %q holds no .yaml, .yml or .json files", p)
	}
	return files, nil
}

// Decode adds the objects of one multi-document YAML (or JSON) file to set.
func (l *Loader) Decode(ctx context.Context, file string, data []byte, set *Set) error {
	if set.sources == nil {
		set.sources = map[string]Source{}
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var errs []error
	for doc := 1; ; doc++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: document %d: failed to split YAML: %w", file, doc, err))
			break
		}
		if len(bytes.TrimSpace(stripComments(raw))) == 0 {
			continue
		}
		if err := l.decodeDocument(ctx, file, doc, raw, set); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func stripComments(doc []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			out = append(out, line...)
			out = append(out, '\n')
		}
	}
	return out
}

func (l *Loader) decodeDocument(ctx context.Context, file string, doc int, raw []byte, set *Set) error {
	jsonData, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return fmt.Errorf("%s: document %d: invalid YAML: %w", file, doc, err)
	}
	var obj map[string]any
	if err := json.Unmarshal(jsonData, &obj); err != nil || obj == nil {
		return fmt.Errorf("%s: document %d: not a Kubernetes object (expected a mapping with apiVersion and kind)", file, doc)
	}
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	name := ""
	if md, ok := obj["metadata"].(map[string]any); ok {
		name, _ = md["name"].(string)
		if ns, _ := md["namespace"].(string); ns == "" {
			md["namespace"] = DefaultNamespace
		}
	}
	src := Source{File: file, Kind: kind, Name: name}
	if kind == "" || apiVersion == "" {
		return fmt.Errorf("%s: document %d: apiVersion and kind are required", file, doc)
	}
	group, version, _ := strings.Cut(apiVersion, "/")
	if group != v1alpha1.GroupVersion.Group {
		set.Ignored = append(set.Ignored, src)
		return nil
	}
	if version != v1alpha1.GroupVersion.Version {
		return fmt.Errorf("%s: apiVersion %q is not supported; use %s", src, apiVersion, v1alpha1.GroupVersion.String())
	}
	errs := l.admitter.Admit(ctx, version, kind, obj, nil)
	if name == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "name"), "every object needs a name"))
	} else {
		// What apimachinery's api/validation.NameIsDNSSubdomain checks, without linking the
		// object-meta validation behind it.
		for _, msg := range validation.IsDNS1123Subdomain(name) {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), name, msg))
		}
	}
	if len(errs) > 0 {
		msgs := make([]string, 0, len(errs))
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		return fmt.Errorf("%s: %s", src, strings.Join(msgs, "; "))
	}
	target := newObject(kind)
	if target == nil {
		return fmt.Errorf("%s: kind %q is not an Agentry kind (Agent, Tool, FrontendAction, MCPServer, RemoteAgent, ModelConfig)", src, kind)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, target); err != nil {
		return fmt.Errorf("%s: failed to decode: %w", src, err)
	}
	ns := obj["metadata"].(map[string]any)["namespace"].(string)
	k := key(kind, ns, name)
	if prev, dup := set.sources[k]; dup {
		return fmt.Errorf("%s: defined twice (also in %s)", src, prev.File)
	}
	set.sources[k] = src
	switch t := target.(type) {
	case *v1alpha1.Agent:
		set.Agents = append(set.Agents, t)
	case *v1alpha1.Tool:
		set.Tools = append(set.Tools, t)
	case *v1alpha1.FrontendAction:
		set.FrontendActions = append(set.FrontendActions, t)
	case *v1alpha1.MCPServer:
		set.MCPServers = append(set.MCPServers, t)
	case *v1alpha1.RemoteAgent:
		set.RemoteAgents = append(set.RemoteAgents, t)
	case *v1alpha1.ModelConfig:
		set.ModelConfigs = append(set.ModelConfigs, t)
	}
	return nil
}

// newObject returns an empty object of an Agentry kind, nil for any other kind.
func newObject(kind string) runtime.Object {
	switch kind {
	case "Agent":
		return &v1alpha1.Agent{}
	case "Tool":
		return &v1alpha1.Tool{}
	case "FrontendAction":
		return &v1alpha1.FrontendAction{}
	case "MCPServer":
		return &v1alpha1.MCPServer{}
	case "RemoteAgent":
		return &v1alpha1.RemoteAgent{}
	case "ModelConfig":
		return &v1alpha1.ModelConfig{}
	}
	return nil
}
