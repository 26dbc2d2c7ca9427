package registry

import (
	"fmt"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/protocol/manifest/decode"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// askLocal is the tool of an agentRef entry without an operator (agentry dev, serve): the named
// Agent of the same config, asked over A2A at this runtime's own address. A remoteAgentRef needs
// the operator, which reads the RemoteAgent's card. nil and why when the entry cannot fire.
func askLocal(set *decode.Set, m *v1alpha1.Agent, ref v1alpha1.AgentTool, opts Options) (*tools.Tool, string) {
	if ref.RemoteAgentRef != nil {
		return nil, fmt.Sprintf("tool key %q names RemoteAgent %q: only the operator reads remote agents' cards; outside Kubernetes use a Tool with execute.a2a", ref.Key, ref.RemoteAgentRef.Name)
	}
	ns := m.Namespace
	if ref.AgentRef.Namespace != "" {
		ns = ref.AgentRef.Namespace
	}
	target := set.Agent(ns, ref.AgentRef.Name)
	switch {
	case target == nil:
		return nil, fmt.Sprintf("tool key %q asks Agent %q, which is not in this config; the tool will not fire", ref.Key, ns+"/"+ref.AgentRef.Name)
	case target == m:
		return nil, fmt.Sprintf("tool key %q: the agent would ask itself; the tool will not fire", ref.Key)
	}
	var headers *v1alpha1.LocalObjectReference
	if ep := target.Spec.Endpoint; ep != nil && ep.Auth != nil {
		if ep.Auth.HeadersSecretRef == nil {
			return nil, fmt.Sprintf("tool key %q asks Agent %q, whose endpoint needs tokens an agentRef cannot send; the tool will not fire", ref.Key, target.Name)
		}
		headers = ep.Auth.HeadersSecretRef
	}
	spec := tools.AskAgent(m.Namespace, ref.Key, "agent", target.EffectiveDisplayName(), target.A2ADescription(),
		v1alpha1.A2AExecute{URL: tools.SelfURL + "/a2a/" + target.EffectiveAgentID(), HeadersSecretRef: headers}, ref.Timeout)
	t, errs := tools.Compile(spec, tools.Options{Secrets: opts.Secrets, HTTPClient: opts.HTTPClient, Self: opts.SelfURL})
	if len(errs) > 0 {
		return nil, fmt.Sprintf("tool key %q cannot ask Agent %q: %s", ref.Key, target.Name, errs.ToAggregate().Error())
	}
	return t, ""
}
