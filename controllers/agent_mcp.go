package controllers

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/protocol/mcpclient"
)

// resolveMCP binds the Agent's mcpServerRef entries to the tools their MCPServers discovered,
// with the same functions the runtime uses (mcpclient.Bind, mcpclient.Duplicates), so the tools
// the status reports are the tools the pods offer. A server that is not Ready keeps offering
// the tools of its last discovery (and that is reported); one never discovered offers none.
func (r *AgentReconciler) resolveMCP(ctx context.Context, a *v1alpha1.Agent, res *toolResolution) ([]problem, error) {
	var problems []problem
	var bindings []mcpclient.Binding
	servers := map[string]*v1alpha1.MCPServer{}
	entryOK := map[string]bool{}
	for _, entry := range a.Spec.Tools {
		ref := entry.MCPServerRef
		if ref == nil {
			continue
		}
		server, seen := servers[ref.Name]
		if !seen {
			var m v1alpha1.MCPServer
			err := r.Get(ctx, types.NamespacedName{Namespace: a.Namespace, Name: ref.Name}, &m)
			switch {
			case apierrors.IsNotFound(err):
			case err != nil:
				return nil, fmt.Errorf("failed to get MCP server %q: %w", ref.Name, err)
			default:
				server = &m
			}
			servers[ref.Name] = server
			if server != nil {
				if ready := meta.FindStatusCondition(server.Status.Conditions, v1alpha1.ConditionReady); server.Status.LastDiscoveryTime != nil &&
					(ready == nil || ready.Status != metav1.ConditionTrue) {
					why := "not checked yet"
					if ready != nil {
						why = fmt.Sprintf("%s: %s", ready.Reason, ready.Message)
					}
					problems = append(problems, problem{v1alpha1.ReasonMCPServerNotReady,
						fmt.Sprintf("MCPServer %q is not ready (%s); the tools it listed at %s are still offered", server.Name, why, server.Status.LastDiscoveryTime.UTC().Format("2006-01-02T15:04:05Z"))})
				}
			}
		}
		if server != nil && server.Status.LastDiscoveryTime == nil {
			why := "its discovery has not finished"
			if ready := meta.FindStatusCondition(server.Status.Conditions, v1alpha1.ConditionReady); ready != nil && ready.Status == metav1.ConditionFalse {
				why = fmt.Sprintf("%s: %s", ready.Reason, ready.Message)
			}
			problems = append(problems, problem{v1alpha1.ReasonMCPServerNotReady,
				fmt.Sprintf("tool key %q: MCPServer %q has not listed its tools yet (%s)", entry.Key, ref.Name, why)})
			continue
		}
		var tools []v1alpha1.MCPToolInfo
		if server != nil {
			tools = server.Status.Tools
		}
		b, p := mcpclient.Bind(entry, server, tools)
		for _, x := range p {
			problems = append(problems, problem{x.Reason, x.Message})
		}
		bindings = append(bindings, b...)
	}
	taken := map[string]string{}
	for _, t := range res.tools {
		taken[t.Entry.Key] = t.Entry.Key
	}
	bindings, dups := mcpclient.Duplicates(bindings, taken)
	for _, x := range dups {
		problems = append(problems, problem{x.Reason, x.Message})
	}
	used := map[string]bool{}
	for _, b := range bindings {
		entryOK[b.Key] = true
		res.names = append(res.names, b.Name)
		if !used[b.Server] {
			used[b.Server] = true
			res.servers = append(res.servers, servers[b.Server])
		}
	}
	for _, entry := range a.Spec.Tools {
		if entry.MCPServerRef != nil && entryOK[entry.Key] {
			res.mcp = append(res.mcp, entry)
		}
	}
	return problems, nil
}

// mcpServerChanged lets through MCPServer updates that change what its Agents offer or report:
// the spec, the discovered tools, or the Ready condition's status and reason.
var mcpServerChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*v1alpha1.MCPServer)
		n, ok2 := e.ObjectNew.(*v1alpha1.MCPServer)
		if !ok1 || !ok2 {
			return true
		}
		if o.Generation != n.Generation || !equality.Semantic.DeepEqual(o.Status.Tools, n.Status.Tools) ||
			(o.Status.LastDiscoveryTime == nil) != (n.Status.LastDiscoveryTime == nil) {
			return true
		}
		return readyChanged(o.Status.Conditions, n.Status.Conditions)
	},
}
