package registry

import (
	"context"
	"fmt"
	"sync"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/protocol/manifest/decode"
	"github.com/agentry-dev/agentry/internal/protocol/mcpclient"
	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// serverTools are the tools of one MCPServer the agents may use, or why there are none.
type serverTools struct {
	tools []v1alpha1.MCPToolInfo
	err   string
}

// mcpTools are the tools of every MCPServer an agent references: the ones the operator
// discovered (status.tools, rendered into the config), or, for manifests written by hand when
// discover is set, a discovery now (all servers at once, each within its timeout).
func mcpTools(ctx context.Context, set *decode.Set, pool *tools.MCPServers, discover bool) map[*v1alpha1.MCPServer]serverTools {
	used := map[*v1alpha1.MCPServer]bool{}
	for _, a := range set.Agents {
		for _, e := range a.Spec.Tools {
			if e.MCPServerRef != nil {
				if m := set.MCPServer(a.Namespace, e.MCPServerRef.Name); m != nil {
					used[m] = true
				}
			}
		}
	}
	out := map[*v1alpha1.MCPServer]serverTools{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for m := range used {
		if m.Status.LastDiscoveryTime != nil || len(m.Status.Tools) > 0 {
			out[m] = serverTools{tools: m.Status.Tools}
			continue
		}
		if !discover {
			out[m] = serverTools{err: fmt.Sprintf("MCPServer %q has no discovered tools yet; its tools are not offered", m.Name)}
			continue
		}
		wg.Add(1)
		go func(m *v1alpha1.MCPServer) {
			defer wg.Done()
			st := serverTools{}
			d, err := pool.Discover(ctx, m)
			if err != nil {
				c := mcpclient.Classify(err)
				st.err = fmt.Sprintf("MCPServer %q: %s (%s); its tools are not offered", m.Name, c.Message, c.Reason)
			} else {
				st.tools = d.Tools
			}
			mu.Lock()
			out[m] = st
			mu.Unlock()
		}(m)
	}
	wg.Wait()
	return out
}

// bindMCP adds the agent's MCP tools (Agent spec.tools entries with mcpServerRef) and returns
// the entries, or tools of entries, that offer nothing, with the reason.
func bindMCP(set *decode.Set, m *v1alpha1.Agent, a *agent.Agent, entries []v1alpha1.AgentTool, servers map[*v1alpha1.MCPServer]serverTools, pool *tools.MCPServers) []mcpclient.Problem {
	var problems []mcpclient.Problem
	var bindings []mcpclient.Binding
	byKey := map[string]v1alpha1.AgentTool{}
	for _, e := range entries {
		byKey[e.Key] = e
		server := set.MCPServer(m.Namespace, e.MCPServerRef.Name)
		st := servers[server]
		if server != nil && st.err != "" {
			problems = append(problems, mcpclient.Problem{Key: e.Key, Reason: v1alpha1.ReasonMCPServerNotReady, Message: fmt.Sprintf("tool key %q: %s", e.Key, st.err)})
			continue
		}
		b, p := mcpclient.Bind(e, server, st.tools)
		bindings = append(bindings, b...)
		problems = append(problems, p...)
	}
	taken := map[string]string{}
	for _, k := range a.ToolKeys {
		taken[k] = k
	}
	bindings, dups := mcpclient.Duplicates(bindings, taken)
	problems = append(problems, dups...)
	for _, b := range bindings {
		t, err := tools.CompileMCP(b.Name, set.MCPServer(m.Namespace, b.Server), b.Tool, pool)
		if err != nil {
			problems = append(problems, mcpclient.Problem{Key: b.Key, Reason: v1alpha1.ReasonToolInvalid, Message: fmt.Sprintf("tool key %q: %v; the tool will not fire", b.Key, err)})
			continue
		}
		a.Tools[b.Name] = t
		a.ToolKeys = append(a.ToolKeys, b.Name)
		if e := byKey[b.Key]; e.RequireApproval {
			a.Approvals[b.Name] = agent.Approval{Timeout: e.EffectiveApprovalTimeout()}
		}
	}
	return problems
}
