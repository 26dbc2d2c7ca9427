package controllers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers/render"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// maxAgentRefWalk bounds the Agents read to find a loop of agentRefs.
const maxAgentRefWalk = 32

// resolveAgentRefs turns agentRef and remoteAgentRef entries into Tools with execute.a2a, as the
// runtime runs them: the other Agent's in-cluster A2A endpoint, or the endpoint a RemoteAgent's
// card names, described from that agent. An entry that cannot work (not found, not allowed, a
// loop, no endpoint yet) is left out and reported; a RemoteAgent whose card cannot be read now
// keeps the card read last, and that is reported.
func (r *AgentReconciler) resolveAgentRefs(ctx context.Context, a *v1alpha1.Agent, res *toolResolution) ([]problem, error) {
	var problems []problem
	for _, entry := range a.Spec.Tools {
		var t *v1alpha1.Tool
		var p []problem
		var err error
		switch {
		case entry.AgentRef != nil:
			t, p, err = r.askAgent(ctx, a, entry)
		case entry.RemoteAgentRef != nil:
			t, p, err = r.askRemoteAgent(ctx, a, entry)
		default:
			continue
		}
		if err != nil {
			return nil, err
		}
		problems = append(problems, p...)
		if t == nil {
			continue
		}
		if _, errs := tools.Compile(t, tools.Options{}); len(errs) > 0 {
			problems = append(problems, problem{v1alpha1.ReasonToolInvalid, fmt.Sprintf("tool key %q cannot ask its agent (%s)", entry.Key, errs.ToAggregate().Error())})
			continue
		}
		e := v1alpha1.AgentTool{Key: entry.Key, ToolRef: &v1alpha1.LocalObjectReference{Name: t.Name}, RequireApproval: entry.RequireApproval, ApprovalTimeout: entry.ApprovalTimeout}
		res.tools = append(res.tools, render.ResolvedTool{Entry: e, Tool: t})
		res.referenced = append(res.referenced, t)
	}
	return problems, nil
}

// askAgent is the Tool of an agentRef entry.
func (r *AgentReconciler) askAgent(ctx context.Context, a *v1alpha1.Agent, entry v1alpha1.AgentTool) (*v1alpha1.Tool, []problem, error) {
	ref := entry.AgentRef
	ns := a.Namespace
	if ref.Namespace != "" {
		ns = ref.Namespace
	}
	name := ns + "/" + ref.Name
	if ns == a.Namespace && ref.Name == a.Name {
		return nil, []problem{{v1alpha1.ReasonAgentRefLoop, fmt.Sprintf("tool key %q: the agent would ask itself", entry.Key)}}, nil
	}
	var target v1alpha1.Agent
	err := r.Get(ctx, types.NamespacedName{Namespace: ns, Name: ref.Name}, &target)
	if apierrors.IsNotFound(err) {
		return nil, []problem{{v1alpha1.ReasonAgentNotFound, fmt.Sprintf("tool key %q asks Agent %q, which does not exist; create it or fix spec.tools", entry.Key, name)}}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("failed to get agent %q: %w", name, err)
	}
	if ns != a.Namespace && !refsAllowed(&target, a.Namespace) {
		return nil, []problem{{v1alpha1.ReasonAgentRefNotAllowed, fmt.Sprintf("tool key %q asks Agent %q, which does not allow Agents of namespace %q (its spec.endpoint.allowAgentRefsFrom)", entry.Key, name, a.Namespace)}}, nil
	}
	if path, err := r.refLoop(ctx, a, &target); err != nil {
		return nil, nil, err
	} else if path != "" {
		return nil, []problem{{v1alpha1.ReasonAgentRefLoop, fmt.Sprintf("tool key %q: agents would ask each other in a loop (%s)", entry.Key, path)}}, nil
	}
	var headers *v1alpha1.LocalObjectReference
	if ep := target.Spec.Endpoint; ep != nil && ep.Auth != nil {
		switch {
		case ep.Auth.HeadersSecretRef != nil && ns == a.Namespace:
			headers = ep.Auth.HeadersSecretRef
		default:
			return nil, []problem{{v1alpha1.ReasonAuthRequired, fmt.Sprintf("tool key %q asks Agent %q, whose endpoint needs credentials an agentRef cannot send (only the headers Secret of an Agent in the same namespace); use a Tool with execute.a2a and a headers Secret of its own", entry.Key, name)}}, nil
		}
	}
	url := ""
	if target.Status.Endpoints != nil {
		url = target.Status.Endpoints.A2AInternal
	}
	if url == "" {
		return nil, []problem{{v1alpha1.ReasonAgentNotReady, fmt.Sprintf("tool key %q asks Agent %q, which has no A2A endpoint yet", entry.Key, name)}}, nil
	}
	// Whether its pods are ready now is not the asker's problem: its Service routes to them once
	// they are, and a call meanwhile is a result the model sees.
	return tools.AskAgent(a.Namespace, entry.Key, "agent", target.EffectiveDisplayName(), target.A2ADescription(),
		v1alpha1.A2AExecute{URL: url, HeadersSecretRef: headers}, entry.Timeout), nil, nil
}

// askRemoteAgent is the Tool of a remoteAgentRef entry.
func (r *AgentReconciler) askRemoteAgent(ctx context.Context, a *v1alpha1.Agent, entry v1alpha1.AgentTool) (*v1alpha1.Tool, []problem, error) {
	name := entry.RemoteAgentRef.Name
	var ra v1alpha1.RemoteAgent
	err := r.Get(ctx, types.NamespacedName{Namespace: a.Namespace, Name: name}, &ra)
	if apierrors.IsNotFound(err) {
		return nil, []problem{{v1alpha1.ReasonRemoteAgentNotFound, fmt.Sprintf("tool key %q names RemoteAgent %q, which does not exist in namespace %q; create it or fix spec.tools", entry.Key, name, a.Namespace)}}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("failed to get remote agent %q: %w", name, err)
	}
	ready := meta.FindStatusCondition(ra.Status.Conditions, v1alpha1.ConditionReady)
	why := "its card has not been read yet"
	if ready != nil && ready.Status == metav1.ConditionFalse {
		why = fmt.Sprintf("%s: %s", ready.Reason, ready.Message)
	}
	card := ra.Status.Card
	if card == nil {
		return nil, []problem{{v1alpha1.ReasonRemoteAgentNotReady, fmt.Sprintf("tool key %q: RemoteAgent %q is not ready (%s)", entry.Key, name, why)}}, nil
	}
	var problems []problem
	if ready == nil || ready.Status != metav1.ConditionTrue {
		problems = append(problems, problem{v1alpha1.ReasonRemoteAgentNotReady, fmt.Sprintf("RemoteAgent %q is not ready (%s); the card read last is still used", name, why)})
	}
	timeout := entry.Timeout
	if timeout == nil {
		timeout = &metav1.Duration{Duration: ra.Spec.EffectiveTimeout()}
	}
	return tools.AskAgent(a.Namespace, entry.Key, "remote agent", card.Name, card.Description,
		v1alpha1.A2AExecute{URL: card.URL, HeadersSecretRef: ra.Spec.HeadersSecretRef, CallerIdentity: ra.Spec.CallerIdentity}, timeout), problems, nil
}

// refsAllowed: the target lets Agents of namespace name it.
func refsAllowed(target *v1alpha1.Agent, namespace string) bool {
	ep := target.Spec.Endpoint
	return ep != nil && (slices.Contains(ep.AllowAgentRefsFrom, namespace) || slices.Contains(ep.AllowAgentRefsFrom, "*"))
}

// refLoop follows the agentRefs from target and returns the path back to a ("a → b → a"), ""
// when there is none within maxAgentRefWalk Agents.
func (r *AgentReconciler) refLoop(ctx context.Context, a, target *v1alpha1.Agent) (string, error) {
	self := a.Namespace + "/" + a.Name
	type node struct {
		agent *v1alpha1.Agent
		path  []string
	}
	queue := []node{{target, []string{self, target.Namespace + "/" + target.Name}}}
	seen := map[string]bool{self: true, target.Namespace + "/" + target.Name: true}
	for read := 0; len(queue) > 0 && read < maxAgentRefWalk; read++ {
		n := queue[0]
		queue = queue[1:]
		for _, key := range referencedAgentKeys(n.agent) {
			path := append(slices.Clone(n.path), key)
			if key == self {
				return strings.Join(path, " → "), nil
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			ns, name, _ := strings.Cut(key, "/")
			var next v1alpha1.Agent
			err := r.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &next)
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				return "", fmt.Errorf("failed to get agent %q: %w", key, err)
			}
			queue = append(queue, node{&next, path})
		}
	}
	return "", nil
}

// toolOrigin names where a Tool came from in a message: a Tool, or an entry asking an agent.
func toolOrigin(t *v1alpha1.Tool) string {
	if strings.HasPrefix(t.Name, tools.AskToolPrefix) {
		return fmt.Sprintf("the agent tool %q", t.Spec.ID)
	}
	return fmt.Sprintf("Tool %q", t.Name)
}

// remoteAgentChanged lets through RemoteAgent updates that change what its askers render or
// report: the spec, the card, the Ready condition's status and reason.
var remoteAgentChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*v1alpha1.RemoteAgent)
		n, ok2 := e.ObjectNew.(*v1alpha1.RemoteAgent)
		if !ok1 || !ok2 {
			return true
		}
		return o.Generation != n.Generation || !equality.Semantic.DeepEqual(o.Status.Card, n.Status.Card) ||
			readyChanged(o.Status.Conditions, n.Status.Conditions)
	},
}

// askedAgentChanged lets through Agent updates that change what the Agents asking it render or
// report: its spec (auth, who may ask, description), its A2A endpoint and its readiness.
var askedAgentChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*v1alpha1.Agent)
		n, ok2 := e.ObjectNew.(*v1alpha1.Agent)
		if !ok1 || !ok2 {
			return true
		}
		return o.Generation != n.Generation || a2aInternal(o) != a2aInternal(n) || readyChanged(o.Status.Conditions, n.Status.Conditions)
	},
}

func a2aInternal(a *v1alpha1.Agent) string {
	if a.Status.Endpoints == nil {
		return ""
	}
	return a.Status.Endpoints.A2AInternal
}

// readyChanged: the Ready condition appeared, went, or changed its status or reason.
func readyChanged(old, new []metav1.Condition) bool {
	or, nr := meta.FindStatusCondition(old, v1alpha1.ConditionReady), meta.FindStatusCondition(new, v1alpha1.ConditionReady)
	if (or == nil) != (nr == nil) {
		return true
	}
	return or != nil && (or.Status != nr.Status || or.Reason != nr.Reason)
}
