package controllers

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers/render"
)

// Field indexes on Agents: which Tools, FrontendActions and Secrets each one references, so a
// change to one of those re-reconciles exactly the Agents that use it.
const (
	IndexToolRefs           = ".spec.tools.toolRef.name"
	IndexFrontendActionRefs = ".spec.frontendActions.name"
	IndexSecretRefs         = ".agentry.referencedSecrets"
	// IndexToolHeaderSecret is on Tools: the Secret holding an HTTP tool's headers.
	IndexToolHeaderSecret = ".spec.execute.http.headersSecretRef.name"
	// IndexMCPServerRefs is on Agents: the MCPServers their tool maps use.
	IndexMCPServerRefs = ".spec.tools.mcpServerRef.name"
	// IndexMCPHeaderSecret is on MCPServers and RemoteAgents: the Secret holding the headers.
	IndexMCPHeaderSecret = ".spec.headersSecretRef.name"
	// IndexRemoteAgentRefs is on Agents: the RemoteAgents their tool maps use.
	IndexRemoteAgentRefs = ".spec.tools.remoteAgentRef.name"
	// IndexAgentRefs is on Agents: the Agents (namespace/name) their tool maps ask.
	IndexAgentRefs = ".spec.tools.agentRef"
	// IndexModelConfigRefs is on Agents: the ModelConfig their model uses.
	IndexModelConfigRefs = ".spec.model.configRef.name"
	// IndexModelConfigSecret is on ModelConfigs: the Secrets of the model's credential.
	IndexModelConfigSecret = ".agentry.modelConfigSecrets"
)

// modelConfigSecretNames lists the Secrets a ModelConfig's credential is read from.
func modelConfigSecretNames(mc *v1alpha1.ModelConfig) []string {
	var out []string
	if ref := mc.Spec.APIKeySecretRef; ref != nil {
		out = append(out, ref.Name)
	}
	if az := mc.Spec.Azure; az != nil && az.TokenSecretRef != nil && (len(out) == 0 || out[0] != az.TokenSecretRef.Name) {
		out = append(out, az.TokenSecretRef.Name)
	}
	return out
}

// referencedRemoteAgentNames lists the RemoteAgents an Agent references.
func referencedRemoteAgentNames(a *v1alpha1.Agent) []string {
	var out []string
	for _, t := range a.Spec.Tools {
		if t.RemoteAgentRef != nil {
			out = append(out, t.RemoteAgentRef.Name)
		}
	}
	return out
}

// agentRefKey is the namespace/name an agentRef of an Agent in namespace names.
func agentRefKey(namespace string, ref *v1alpha1.AgentReference) string {
	if ref.Namespace != "" {
		namespace = ref.Namespace
	}
	return namespace + "/" + ref.Name
}

// referencedAgentKeys lists the Agents (namespace/name) an Agent asks.
func referencedAgentKeys(a *v1alpha1.Agent) []string {
	var out []string
	for _, t := range a.Spec.Tools {
		if t.AgentRef != nil {
			out = append(out, agentRefKey(a.Namespace, t.AgentRef))
		}
	}
	return out
}

// referencedToolNames lists the Tools an Agent references.
func referencedToolNames(a *v1alpha1.Agent) []string {
	out := make([]string, 0, len(a.Spec.Tools))
	for _, t := range a.Spec.Tools {
		if t.ToolRef != nil {
			out = append(out, t.ToolRef.Name)
		}
	}
	return out
}

// referencedMCPServerNames lists the MCPServers an Agent references.
func referencedMCPServerNames(a *v1alpha1.Agent) []string {
	var out []string
	for _, t := range a.Spec.Tools {
		if t.MCPServerRef != nil {
			out = append(out, t.MCPServerRef.Name)
		}
	}
	return out
}

// referencedSecretNames lists the Secrets an Agent's own spec references. Tool header Secrets
// are found through the Tools (see secretToAgents).
func referencedSecretNames(a *v1alpha1.Agent) []string {
	return render.ReferencedSecrets(a, nil, nil)
}

// SetupIndexes registers the field indexes the Agent reconciler's watches use.
func SetupIndexes(ctx context.Context, mgr ctrl.Manager) error {
	idx := mgr.GetFieldIndexer()
	if err := idx.IndexField(ctx, &v1alpha1.Agent{}, IndexToolRefs, func(o client.Object) []string {
		return referencedToolNames(o.(*v1alpha1.Agent))
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &v1alpha1.Agent{}, IndexFrontendActionRefs, func(o client.Object) []string {
		a := o.(*v1alpha1.Agent)
		out := make([]string, 0, len(a.Spec.FrontendActions))
		for _, f := range a.Spec.FrontendActions {
			out = append(out, f.Name)
		}
		return out
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &v1alpha1.Agent{}, IndexSecretRefs, func(o client.Object) []string {
		return referencedSecretNames(o.(*v1alpha1.Agent))
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &v1alpha1.Agent{}, IndexMCPServerRefs, func(o client.Object) []string {
		return referencedMCPServerNames(o.(*v1alpha1.Agent))
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &v1alpha1.MCPServer{}, IndexMCPHeaderSecret, func(o client.Object) []string {
		if ref := o.(*v1alpha1.MCPServer).Spec.HeadersSecretRef; ref != nil {
			return []string{ref.Name}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &v1alpha1.RemoteAgent{}, IndexMCPHeaderSecret, func(o client.Object) []string {
		if ref := o.(*v1alpha1.RemoteAgent).Spec.HeadersSecretRef; ref != nil {
			return []string{ref.Name}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &v1alpha1.Agent{}, IndexRemoteAgentRefs, func(o client.Object) []string {
		return referencedRemoteAgentNames(o.(*v1alpha1.Agent))
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &v1alpha1.Agent{}, IndexAgentRefs, func(o client.Object) []string {
		return referencedAgentKeys(o.(*v1alpha1.Agent))
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &v1alpha1.Agent{}, IndexModelConfigRefs, func(o client.Object) []string {
		if ref := o.(*v1alpha1.Agent).Spec.Model.ConfigRef; ref != nil {
			return []string{ref.Name}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &v1alpha1.ModelConfig{}, IndexModelConfigSecret, func(o client.Object) []string {
		return modelConfigSecretNames(o.(*v1alpha1.ModelConfig))
	}); err != nil {
		return err
	}
	return idx.IndexField(ctx, &v1alpha1.Tool{}, IndexToolHeaderSecret, func(o client.Object) []string {
		if ref := o.(*v1alpha1.Tool).Spec.Execute.HeadersSecret(); ref != nil {
			return []string{ref.Name}
		}
		return nil
	})
}

// remoteAgentsBySecret maps a Secret to the RemoteAgents whose headers it holds.
func remoteAgentsBySecret(c client.Client) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		var list v1alpha1.RemoteAgentList
		if err := c.List(ctx, &list, client.InNamespace(o.GetNamespace()), client.MatchingFields{IndexMCPHeaderSecret: o.GetName()}); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "failed to list remote agents for a secret event", "secret", o.GetName())
			return nil
		}
		out := make([]reconcile.Request, 0, len(list.Items))
		for _, m := range list.Items {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: m.Namespace, Name: m.Name}})
		}
		return out
	}
}

// agentsAsking maps an Agent to the Agents (in any namespace) whose agentRefs name it.
func agentsAsking(c client.Client) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		var list v1alpha1.AgentList
		if err := c.List(ctx, &list, client.MatchingFields{IndexAgentRefs: o.GetNamespace() + "/" + o.GetName()}); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "failed to list agents asking an agent", "agent", o.GetName())
			return nil
		}
		return requests(list.Items)
	}
}

// mcpServersBySecret maps a Secret to the MCPServers whose headers it holds.
func mcpServersBySecret(c client.Client) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		var list v1alpha1.MCPServerList
		if err := c.List(ctx, &list, client.InNamespace(o.GetNamespace()), client.MatchingFields{IndexMCPHeaderSecret: o.GetName()}); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "failed to list MCP servers for a secret event", "secret", o.GetName())
			return nil
		}
		out := make([]reconcile.Request, 0, len(list.Items))
		for _, m := range list.Items {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: m.Namespace, Name: m.Name}})
		}
		return out
	}
}

// agentsBy maps an object to the Agents in its namespace whose index holds its name.
func agentsBy(c client.Client, index string) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		var list v1alpha1.AgentList
		if err := c.List(ctx, &list, client.InNamespace(o.GetNamespace()), client.MatchingFields{index: o.GetName()}); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "failed to list agents for a watch event", "index", index, "object", o.GetName())
			return nil
		}
		return requests(list.Items)
	}
}

// secretToAgents maps a Secret to the Agents that reference it directly or through a Tool's
// HTTP headers.
func secretToAgents(c client.Client) handler.MapFunc {
	direct := agentsBy(c, IndexSecretRefs)
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		// o is the Secret's metadata only (a metadata watch): its name is all we need.
		var reqs []reconcile.Request
		seen := map[types.NamespacedName]bool{}
		add := func(more []reconcile.Request) {
			for _, r := range more {
				if !seen[r.NamespacedName] {
					seen[r.NamespacedName] = true
					reqs = append(reqs, r)
				}
			}
		}
		add(direct(ctx, o))
		var tools v1alpha1.ToolList
		if err := c.List(ctx, &tools, client.InNamespace(o.GetNamespace()), client.MatchingFields{IndexToolHeaderSecret: o.GetName()}); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "failed to list tools for a secret event", "secret", o.GetName())
			return reqs
		}
		byTool := agentsBy(c, IndexToolRefs)
		for i := range tools.Items {
			add(byTool(ctx, &tools.Items[i]))
		}
		// MCP server headers are mounted into the pods too: their data is in the config hash.
		var servers v1alpha1.MCPServerList
		if err := c.List(ctx, &servers, client.InNamespace(o.GetNamespace()), client.MatchingFields{IndexMCPHeaderSecret: o.GetName()}); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "failed to list MCP servers for a secret event", "secret", o.GetName())
			return reqs
		}
		byServer := agentsBy(c, IndexMCPServerRefs)
		for i := range servers.Items {
			add(byServer(ctx, &servers.Items[i]))
		}
		// A ModelConfig's credential reaches the pods of every Agent that uses it.
		byConfig := agentsBy(c, IndexModelConfigRefs)
		for _, mc := range modelConfigsBySecret(ctx, c, o) {
			add(byConfig(ctx, mc))
		}
		var remotes v1alpha1.RemoteAgentList
		if err := c.List(ctx, &remotes, client.InNamespace(o.GetNamespace()), client.MatchingFields{IndexMCPHeaderSecret: o.GetName()}); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "failed to list remote agents for a secret event", "secret", o.GetName())
			return reqs
		}
		byRemote := agentsBy(c, IndexRemoteAgentRefs)
		for i := range remotes.Items {
			add(byRemote(ctx, &remotes.Items[i]))
		}
		// An agentRef sends the asked Agent's auth headers: its askers mount them too.
		asking := agentsAsking(c)
		for _, r := range reqs {
			add(asking(ctx, &v1alpha1.Agent{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: r.Name}}))
		}
		return reqs
	}
}

func requests(agents []v1alpha1.Agent) []reconcile.Request {
	out := make([]reconcile.Request, 0, len(agents))
	for _, a := range agents {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: a.Namespace, Name: a.Name}})
	}
	return out
}

// modelConfigsBySecret lists the ModelConfigs whose credential a Secret holds.
func modelConfigsBySecret(ctx context.Context, c client.Client, secret client.Object) []*v1alpha1.ModelConfig {
	var list v1alpha1.ModelConfigList
	if err := c.List(ctx, &list, client.InNamespace(secret.GetNamespace()), client.MatchingFields{IndexModelConfigSecret: secret.GetName()}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "failed to list model configs for a secret event", "secret", secret.GetName())
		return nil
	}
	out := make([]*v1alpha1.ModelConfig, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out
}
