package controllers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers/render"
	"github.com/agentry-dev/agentry/internal/protocol/manifest"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// problem is a reason and a message a user can act on.
type problem struct{ reason, message string }

// conditionFrom is True with okReason when there are no problems, else False with the first
// problem's reason and every problem's message.
func conditionFrom(typ string, gen int64, okReason, okMessage string, problems []problem) metav1.Condition {
	c := metav1.Condition{Type: typ, ObservedGeneration: gen, Status: metav1.ConditionTrue, Reason: okReason, Message: okMessage}
	if len(problems) == 0 {
		return c
	}
	msgs := make([]string, 0, len(problems))
	for _, p := range problems {
		msgs = append(msgs, p.message)
	}
	c.Status, c.Reason, c.Message = metav1.ConditionFalse, problems[0].reason, strings.Join(msgs, "; ")
	return c
}

// toolResolution is what an Agent's tool map resolves to.
type toolResolution struct {
	// tools are the entries with a Tool that fire; referenced every Tool found.
	tools      []render.ResolvedTool
	referenced []*v1alpha1.Tool
	// mcp are the MCP entries that offer at least one tool, servers the servers they use and
	// names the names the model sees for them.
	mcp     []v1alpha1.AgentTool
	servers []*v1alpha1.MCPServer
	names   []string
}

// resolveTools finds each tool-map entry's Tool or MCP server. An entry fires only when the
// Tool exists, is valid and its spec.id equals the key exactly (for MCP: the server offers the
// tool and prefix + toolName equals the key); every other entry is reported, never fixed.
func (r *AgentReconciler) resolveTools(ctx context.Context, s *agentState) error {
	a := s.agent
	var resolved []render.ResolvedTool
	var found []*v1alpha1.Tool
	var problems []problem
	for _, entry := range a.Spec.Tools {
		if entry.ToolRef == nil {
			continue
		}
		var t v1alpha1.Tool
		err := r.Get(ctx, types.NamespacedName{Namespace: a.Namespace, Name: entry.ToolRef.Name}, &t)
		if apierrors.IsNotFound(err) {
			problems = append(problems, problem{v1alpha1.ReasonToolNotFound,
				fmt.Sprintf("tool key %q refers to Tool %q, which does not exist in namespace %q; create it or fix spec.tools", entry.Key, entry.ToolRef.Name, a.Namespace)})
			continue
		}
		if err != nil {
			return fmt.Errorf("failed to get tool %q: %w", entry.ToolRef.Name, err)
		}
		found = append(found, &t)
		if t.Spec.ID != entry.Key {
			problems = append(problems, problem{v1alpha1.ReasonToolIDMismatch,
				fmt.Sprintf("tool key %q differs from the spec.id %q of Tool %q, so the tool will not fire; make the key equal the id exactly", entry.Key, t.Spec.ID, t.Name)})
			continue
		}
		if _, errs := tools.Compile(&t, tools.Options{}); len(errs) > 0 {
			problems = append(problems, problem{v1alpha1.ReasonToolInvalid,
				fmt.Sprintf("Tool %q is invalid (%s), so it will not fire", t.Name, errs.ToAggregate().Error())})
			continue
		}
		resolved = append(resolved, render.ResolvedTool{Entry: entry, Tool: &t})
	}
	res := &toolResolution{tools: resolved, referenced: found}
	askProblems, err := r.resolveAgentRefs(ctx, a, res)
	if err != nil {
		return err
	}
	problems = append(problems, askProblems...)
	mcpProblems, err := r.resolveMCP(ctx, a, res)
	if err != nil {
		return err
	}
	problems = append(problems, mcpProblems...)
	msg := fmt.Sprintf("%d of %d tools resolved", len(res.tools)+len(res.mcp), len(a.Spec.Tools))
	if len(res.names) > 0 {
		msg += fmt.Sprintf(" (%d MCP tools: %s)", len(res.names), strings.Join(res.names, ", "))
	}
	cond := conditionFrom(v1alpha1.ConditionToolsResolved, a.Generation, v1alpha1.ReasonResolved, msg, problems)
	if len(problems) > 0 && len(res.names) > 0 {
		// What still works is as useful to the reader as what does not.
		cond.Message += fmt.Sprintf("; the model is offered the other tools, including MCP tools %s", strings.Join(res.names, ", "))
	}
	s.tools, s.conditions = res, append(s.conditions, cond)
	s.resolved.Tools, s.resolved.MCP, s.resolved.MCPServers = res.tools, res.mcp, res.servers
	return nil
}

// resolveFrontendActions finds each referenced FrontendAction; missing, invalid and
// clashing-with-a-server-tool actions are left out and reported.
func (r *AgentReconciler) resolveFrontendActions(ctx context.Context, s *agentState) error {
	a := s.agent
	toolKeys := map[string]bool{}
	for _, t := range s.tools.tools {
		toolKeys[t.Entry.Key] = true
	}
	for _, n := range s.tools.names {
		toolKeys[n] = true
	}
	var resolved []*v1alpha1.FrontendAction
	var problems []problem
	for _, ref := range a.Spec.FrontendActions {
		var f v1alpha1.FrontendAction
		err := r.Get(ctx, types.NamespacedName{Namespace: a.Namespace, Name: ref.Name}, &f)
		if apierrors.IsNotFound(err) {
			problems = append(problems, problem{v1alpha1.ReasonFrontendActionNotFound,
				fmt.Sprintf("FrontendAction %q does not exist in namespace %q; create it or fix spec.frontendActions", ref.Name, a.Namespace)})
			continue
		}
		if err != nil {
			return fmt.Errorf("failed to get frontend action %q: %w", ref.Name, err)
		}
		if f.Spec.Parameters != nil {
			if errs := tools.ValidateParameters(f.Spec.Parameters.Raw, field.NewPath("spec", "parameters")); len(errs) > 0 {
				problems = append(problems, problem{v1alpha1.ReasonFrontendActionInvalid,
					fmt.Sprintf("FrontendAction %q is invalid (%s); it is not offered to the model", f.Name, errs.ToAggregate().Error())})
				continue
			}
		}
		if toolKeys[f.Spec.Name] {
			problems = append(problems, problem{v1alpha1.ReasonNameConflict,
				fmt.Sprintf("FrontendAction %q has the name %q of a server tool; rename one of them (the server tool wins)", f.Name, f.Spec.Name)})
			continue
		}
		resolved = append(resolved, &f)
	}
	msg := fmt.Sprintf("%d of %d frontend actions resolved", len(resolved), len(a.Spec.FrontendActions))
	s.resolved.FrontendActions = resolved
	s.conditions = append(s.conditions, conditionFrom(v1alpha1.ConditionFrontendActionsResolved, a.Generation, v1alpha1.ReasonResolved, msg, problems))
	return nil
}

// resolveSecrets reads every Secret the Agent's pods need. The model's credential gets its own
// condition (unless resolveModel already said its ModelConfig is missing); the other Secrets
// (auth headers, tool and MCP headers, memory URL) are reported through Ready. Secret data is
// kept for hashing only.
func (r *AgentReconciler) resolveSecrets(ctx context.Context, s *agentState) error {
	a := s.agent
	data := map[string]map[string][]byte{}
	missing := map[string]bool{}
	// The merged model (s.resolved.Agent) names the ModelConfig's Secret, in the same namespace.
	for _, name := range render.ReferencedSecrets(s.resolved.Agent, s.tools.referenced, s.tools.servers) {
		var secret corev1.Secret
		err := r.Get(ctx, types.NamespacedName{Namespace: a.Namespace, Name: name}, &secret)
		if apierrors.IsNotFound(err) {
			missing[name] = true
			continue
		}
		if err != nil {
			return fmt.Errorf("failed to get secret %q: %w", name, err)
		}
		data[name] = secret.Data
	}
	s.resolved.SecretData = data
	if !s.modelMissing {
		where := "spec.model"
		if ref := a.Spec.Model.ConfigRef; ref != nil {
			where = fmt.Sprintf("the spec of ModelConfig %q", ref.Name)
		}
		cond := modelCredential(s.resolved.Agent.Spec.Model, a.Namespace, where, data, missing)
		cond.Type, cond.ObservedGeneration = v1alpha1.ConditionModelSecretResolved, a.Generation
		s.conditions = append(s.conditions, cond)
	}
	s.problems = append(s.problems, secretProblems(a, s.tools, data, missing)...)
	if ep := a.Spec.Endpoint; ep != nil && ep.Auth != nil && ep.Auth.JWT != nil {
		if err := manifest.JWTConfig(ep.Auth.JWT).Check(); err != nil {
			// The runtime would refuse every bearer token (500); say which setting to fix.
			s.problems = append(s.problems, problem{v1alpha1.ReasonAuthInvalid, "spec.endpoint.auth.jwt: " + err.Error()})
		}
	}
	return nil
}

// modelCredential is the status, reason and message of a model's credential, the API key or on
// Azure an Entra token instead; where says whose fields the message names ("spec.model" of an
// Agent, or a ModelConfig's spec).
func modelCredential(m v1alpha1.ModelSpec, namespace, where string, data map[string]map[string][]byte, missing map[string]bool) metav1.Condition {
	var cond metav1.Condition
	ref, field, what := m.APIKeySecretRef, where+".apiKeySecretRef", "your API key"
	azure := m.Provider == v1alpha1.ModelProviderAzureOpenAI
	if az := m.Azure; azure && az != nil && az.TokenSecretRef != nil {
		ref, field, what = az.TokenSecretRef, where+".azure.tokenSecretRef", "a Microsoft Entra access token"
	}
	switch {
	case ref == nil && azure:
		cond.Status, cond.Reason = metav1.ConditionFalse, v1alpha1.ReasonCredentialsRequired
		cond.Message = fmt.Sprintf("provider azure-openai needs a credential: %s.apiKeySecretRef (the resource's api-key) or %s.azure.tokenSecretRef (a Microsoft Entra access token)", where, where)
	case ref == nil:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, v1alpha1.ReasonNotRequired, where+".apiKeySecretRef is not set: the model endpoint is called without a key"
	case missing[ref.Name]:
		cond.Status, cond.Reason = metav1.ConditionFalse, v1alpha1.ReasonSecretNotFound
		cond.Message = fmt.Sprintf("Secret %q not found in namespace %q; create it (kubectl create secret generic %s --from-literal=%s=<%s>) or change %s.name", ref.Name, namespace, ref.Name, ref.Key, what, field)
	case len(data[ref.Name][ref.Key]) == 0:
		cond.Status, cond.Reason = metav1.ConditionFalse, v1alpha1.ReasonSecretKeyMissing
		cond.Message = fmt.Sprintf("Secret %q has no key %q; add it or change %s.key", ref.Name, ref.Key, field)
	default:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, v1alpha1.ReasonResolved, fmt.Sprintf("Secret %q has key %q", ref.Name, ref.Key)
	}
	return cond
}

// secretProblems are the problems of the Secrets other than the model's credential.
func secretProblems(a *v1alpha1.Agent, tools *toolResolution, data map[string]map[string][]byte, missing map[string]bool) []problem {
	var others []problem
	if m := a.Spec.Memory; m != nil && m.URLSecretRef != nil {
		url := string(data[m.URLSecretRef.Name][m.URLSecretRef.Key])
		switch {
		case missing[m.URLSecretRef.Name]:
			others = append(others, problem{v1alpha1.ReasonSecretNotFound, fmt.Sprintf("memory Secret %q not found; create it or change spec.memory.urlSecretRef", m.URLSecretRef.Name)})
		case url == "":
			others = append(others, problem{v1alpha1.ReasonSecretKeyMissing, fmt.Sprintf("memory Secret %q has no key %q", m.URLSecretRef.Name, m.URLSecretRef.Key)})
		case strings.HasPrefix(url, "file:") && a.Spec.Runtime != nil && a.Spec.Runtime.Replicas != nil && *a.Spec.Runtime.Replicas > 1:
			// The CEL rule cannot see a URL kept in a Secret; say it here.
			others = append(others, problem{v1alpha1.ReasonMemoryNotShared, fmt.Sprintf("memory Secret %q holds a file: store, which lives on one pod's disk; use a postgres:// store to run more than one replica", m.URLSecretRef.Name)})
		}
	}
	if ep := a.Spec.Endpoint; ep != nil && ep.Auth != nil && ep.Auth.HeadersSecretRef != nil {
		name := ep.Auth.HeadersSecretRef.Name
		if missing[name] {
			others = append(others, problem{v1alpha1.ReasonSecretNotFound, fmt.Sprintf("auth headers Secret %q not found; create it or change spec.endpoint.auth.headersSecretRef", name)})
		} else {
			others = append(others, authSecretProblems(name, data[name])...)
		}
	}
	for _, t := range tools.referenced {
		if ref := t.Spec.Execute.HeadersSecret(); ref != nil && missing[ref.Name] {
			others = append(others, problem{v1alpha1.ReasonSecretNotFound, fmt.Sprintf("headers Secret %q of %s not found", ref.Name, toolOrigin(t))})
		}
	}
	for _, m := range tools.servers {
		if ref := m.Spec.HeadersSecretRef; ref != nil && missing[ref.Name] {
			others = append(others, problem{v1alpha1.ReasonSecretNotFound, fmt.Sprintf("headers Secret %q of MCPServer %q not found", ref.Name, m.Name)})
		}
	}
	return others
}

// authSecretProblems reports an auth headers Secret the runtime would refuse: no keys, or a key
// with an empty value (which an absent header would match). The runtime fails closed on both;
// this says which Secret and key to fix, never a value.
func authSecretProblems(name string, data map[string][]byte) []problem {
	if len(data) == 0 {
		return []problem{{v1alpha1.ReasonAuthSecretInvalid, fmt.Sprintf(
			"auth headers Secret %q has no keys, so the runtime refuses every request; add the headers the platform sends (key: header name, value: header value)", name)}}
	}
	var empty []string
	for k, v := range data {
		if len(strings.TrimSpace(string(v))) == 0 {
			empty = append(empty, k)
		}
	}
	if len(empty) == 0 {
		return nil
	}
	sort.Strings(empty)
	return []problem{{v1alpha1.ReasonAuthSecretInvalid, fmt.Sprintf(
		"auth headers Secret %q has an empty value for key %s, so the runtime refuses every request; set a value or remove the key",
		name, strings.Join(quoteAll(empty), ", "))}}
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}
