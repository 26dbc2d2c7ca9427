package mcpclient

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/agentry-dev/agentry/api/v1alpha1"
)

// FunctionName is what a model accepts as a function name (and Tool ids and keys follow).
var FunctionName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Binding is one MCP tool an Agent's spec.tools entry offers the model.
type Binding struct {
	// Key is the entry's key.
	Key string
	// Name is the name the model sees: the entry's prefix and the server's tool name.
	Name string
	// Server is the MCPServer's name.
	Server string
	// Tool is the server's tool.
	Tool v1alpha1.MCPToolInfo
}

// Problem is an entry, or a tool of it, that offers the model nothing, and why. Reason is an
// Agent ToolsResolved reason.
type Problem struct {
	Key     string
	Reason  string
	Message string
}

// Bind resolves one mcpServerRef entry against the server's tools (an MCPServer's
// status.tools, or a discovery). The operator and the runtime both use it, so the tools the
// Agent's status reports are the tools its pods offer.
func Bind(entry v1alpha1.AgentTool, server *v1alpha1.MCPServer, tools []v1alpha1.MCPToolInfo) ([]Binding, []Problem) {
	ref := entry.MCPServerRef
	if ref == nil {
		return nil, nil
	}
	if server == nil {
		return nil, []Problem{{Key: entry.Key, Reason: v1alpha1.ReasonMCPServerNotFound,
			Message: fmt.Sprintf("tool key %q refers to MCPServer %q, which does not exist; create it or fix spec.tools", entry.Key, ref.Name)}}
	}
	if entry.ToolName != "" {
		for _, t := range tools {
			if t.Name != entry.ToolName {
				continue
			}
			name := entry.Prefix + t.Name
			switch {
			case !FunctionName.MatchString(name):
				return nil, []Problem{{Key: entry.Key, Reason: v1alpha1.ReasonInvalidToolName,
					Message: fmt.Sprintf("tool %q of MCPServer %q makes the name %q, which models refuse (letters, digits, _ and - only, at most 64)", t.Name, ref.Name, name)}}
			case name != entry.Key:
				return nil, []Problem{{Key: entry.Key, Reason: v1alpha1.ReasonToolIDMismatch,
					Message: fmt.Sprintf("tool key %q differs from the name %q the model would see (prefix + toolName); the tool will not fire until they are equal", entry.Key, name)}}
			}
			return []Binding{{Key: entry.Key, Name: name, Server: ref.Name, Tool: t}}, nil
		}
		return nil, []Problem{{Key: entry.Key, Reason: v1alpha1.ReasonMCPToolNotFound,
			Message: fmt.Sprintf("tool key %q: MCPServer %q does not offer tool %q (it offers %s)", entry.Key, ref.Name, entry.ToolName, names(tools))}}
	}
	var out []Binding
	var bad []string
	for _, t := range tools {
		name := entry.Prefix + t.Name
		if !FunctionName.MatchString(name) {
			bad = append(bad, t.Name)
			continue
		}
		out = append(out, Binding{Key: entry.Key, Name: name, Server: ref.Name, Tool: t})
	}
	var problems []Problem
	if len(bad) > 0 {
		problems = append(problems, Problem{Key: entry.Key, Reason: v1alpha1.ReasonInvalidToolName,
			Message: fmt.Sprintf("tool key %q: %d tools of MCPServer %q have names models refuse and are not offered: %s", entry.Key, len(bad), ref.Name, strings.Join(bad, ", "))})
	}
	return out, problems
}

// Duplicates reports model-visible names offered twice (by two entries, or by a Tool and an
// MCP tool); taken names are the Tool keys already bound. The first binding of a name wins.
func Duplicates(bindings []Binding, taken map[string]string) ([]Binding, []Problem) {
	owner := map[string]string{}
	for name, key := range taken {
		owner[name] = key
	}
	var out []Binding
	var problems []Problem
	for _, b := range bindings {
		if first, dup := owner[b.Name]; dup {
			problems = append(problems, Problem{Key: b.Key, Reason: v1alpha1.ReasonDuplicateToolName,
				Message: fmt.Sprintf("tool key %q offers the name %q, which entry %q already offers; set a prefix", b.Key, b.Name, first)})
			continue
		}
		owner[b.Name] = b.Key
		out = append(out, b)
	}
	return out, problems
}

func names(tools []v1alpha1.MCPToolInfo) string {
	if len(tools) == 0 {
		return "no tools"
	}
	n := make([]string, 0, len(tools))
	for _, t := range tools {
		n = append(n, t.Name)
	}
	sort.Strings(n)
	if len(n) > 10 {
		return strings.Join(n[:10], ", ") + fmt.Sprintf(" and %d more", len(n)-10)
	}
	return strings.Join(n, ", ")
}
