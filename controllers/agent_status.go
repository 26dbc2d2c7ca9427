package controllers

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers/render"
)

// authRequired reports an Agent that asks to be public (an Ingress or a publicURL) without
// endpoint auth and without saying that this is intended: it is refused, because anyone who
// finds the URL could spend its model budget and call its tools.
func authRequired(a *v1alpha1.Agent) bool {
	ep := a.Spec.Endpoint
	return ep != nil && (ep.Ingress != nil || ep.PublicURL != "") && ep.Auth == nil && !ep.AllowUnauthenticated
}

// exposure computes the Exposed condition, the endpoints and the Deployment URL. ing is the
// Ingress the operator keeps (nil when none).
func exposure(a *v1alpha1.Agent, cfg render.Config, ing *networkingv1.Ingress) (metav1.Condition, *v1alpha1.AgentEndpoints, string) {
	id := a.EffectiveAgentID()
	ep := &v1alpha1.AgentEndpoints{Internal: render.InternalURL(a, cfg), A2AInternal: render.A2AInternalURL(a, cfg)}
	cond := metav1.Condition{Type: v1alpha1.ConditionExposed, ObservedGeneration: a.Generation}

	base := ""
	spec := a.Spec.Endpoint
	switch {
	case authRequired(a):
		// No Ingress and no public URL: a platform must not be pointed at an open endpoint.
		cond.Status, cond.Reason = metav1.ConditionFalse, v1alpha1.ReasonAuthRequired
		cond.Message = "a public endpoint (spec.endpoint.ingress or publicURL) needs authentication: set spec.endpoint.auth.headersSecretRef " +
			"to a Secret with the headers the platform sends (e.g. Authorization), spec.endpoint.auth.jwt to the issuer and audiences of the bearer tokens it accepts, " +
			"or spec.endpoint.auth.serviceAccounts to the in-cluster callers it accepts, " +
			"or set spec.endpoint.allowUnauthenticated: true to publish it without auth; " +
			"until then no Ingress is created and no deploymentURL is reported (in-cluster: " + ep.Internal + ")"
		return cond, ep, ""
	case spec != nil && spec.PublicURL != "":
		base = strings.TrimRight(spec.PublicURL, "/")
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, v1alpha1.ReasonPublicURLSet, "public URL set by spec.endpoint.publicURL: "+base
	case spec != nil && spec.Ingress != nil:
		host, _, tls := render.IngressSettings(a, cfg)
		if host == "" {
			cond.Status, cond.Reason = metav1.ConditionFalse, v1alpha1.ReasonNotExposed
			cond.Message = "spec.endpoint.ingress has no host and the operator has no default Ingress host; set spec.endpoint.ingress.host"
			break
		}
		if ing == nil {
			cond.Status, cond.Reason = metav1.ConditionFalse, v1alpha1.ReasonNotExposed
			cond.Message = "the Ingress is not in place; see the Ready condition"
			break
		}
		scheme := "http"
		if tls != "" {
			scheme = "https"
		}
		base = scheme + "://" + host
		cond.Status, cond.Reason = metav1.ConditionTrue, v1alpha1.ReasonIngressReady
		cond.Message = fmt.Sprintf("Ingress %q routes %s/api/agents/%s", ing.Name, base, id)
		if addr := ingressAddress(ing); addr != "" {
			cond.Message += " (load balancer " + addr + ")"
		} else {
			cond.Message += " (no load balancer address reported yet)"
		}
	default:
		cond.Status, cond.Reason = metav1.ConditionFalse, v1alpha1.ReasonNotExposed
		cond.Message = "reachable inside the cluster only at " + ep.Internal + "; set spec.endpoint.ingress or spec.endpoint.publicURL to expose it to a chat platform"
	}
	if base != "" && strings.HasPrefix(base, "http://") {
		cond.Status, cond.Reason = metav1.ConditionFalse, v1alpha1.ReasonHTTPSRequired
		cond.Message = "chat platforms require HTTPS but the public URL is " + base + "; set spec.endpoint.ingress.tlsSecretName (or an https:// publicURL)"
	}
	url := ""
	if base != "" {
		ep.Generate = fmt.Sprintf("%s/api/agents/%s/generate", base, id)
		ep.AGUI = fmt.Sprintf("%s/api/agents/%s/ag-ui", base, id)
		ep.A2A = fmt.Sprintf("%s/a2a/%s", base, id)
		url = ep.AGUI
		if a.EffectivePlatformProvider() == v1alpha1.PlatformProviderMastra {
			url = ep.Generate
		}
	}
	return cond, ep, url
}

func ingressAddress(ing *networkingv1.Ingress) string {
	for _, lb := range ing.Status.LoadBalancer.Ingress {
		if lb.Hostname != "" {
			return lb.Hostname
		}
		if lb.IP != "" {
			return lb.IP
		}
	}
	return ""
}

// availability computes the Available condition from the Deployment.
func availability(a *v1alpha1.Agent, d *appsv1.Deployment) (metav1.Condition, int32) {
	cond := metav1.Condition{Type: v1alpha1.ConditionAvailable, ObservedGeneration: a.Generation}
	if d == nil {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, v1alpha1.ReasonDeploymentProgressing, "the runtime Deployment is not in place yet"
		return cond, 0
	}
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	avail := d.Status.AvailableReplicas
	msg := fmt.Sprintf("%d/%d replicas available", avail, want)
	switch {
	case want == 0:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, v1alpha1.ReasonDeploymentUnavailable, "scaled to 0 replicas (spec.runtime.replicas)"
	case avail > 0 && d.Status.ObservedGeneration >= d.Generation:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, v1alpha1.ReasonDeploymentAvailable, msg
	case avail > 0:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, v1alpha1.ReasonDeploymentProgressing, msg+"; rolling out a new version"
	default:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, v1alpha1.ReasonDeploymentUnavailable, msg+"; check the pods of Deployment "+d.Name
	}
	return cond, d.Status.ReadyReplicas
}

// readiness summarises the other conditions: the platform can call the agent now. Problems
// that have no condition of their own (others) come first, and the first one gives the reason.
func readiness(a *v1alpha1.Agent, conds []metav1.Condition, others []problem) metav1.Condition {
	c := metav1.Condition{Type: v1alpha1.ConditionReady, ObservedGeneration: a.Generation, Status: metav1.ConditionTrue, Reason: v1alpha1.ReasonReady,
		Message: "the agent is available at its Deployment URL"}
	var why []string
	reason := v1alpha1.ReasonNotReady
	for _, p := range others {
		why = append(why, p.message)
	}
	if len(others) > 0 {
		reason = others[0].reason
	}
	for _, cond := range conds {
		if cond.Status != metav1.ConditionTrue {
			why = append(why, fmt.Sprintf("%s is %s (%s)", cond.Type, cond.Status, cond.Reason))
		}
	}
	if len(why) > 0 {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, reason, strings.Join(why, "; ")
	}
	return c
}

// storageKind names the memory backend for status, also when the URL is in a Secret (only
// its scheme is read).
func storageKind(a *v1alpha1.Agent, secrets map[string]map[string][]byte) string {
	m := a.Spec.Memory
	if m == nil {
		return ""
	}
	url := m.URL
	if ref := m.URLSecretRef; ref != nil {
		url = string(secrets[ref.Name][ref.Key])
	}
	switch {
	case strings.HasPrefix(url, "file:"):
		return "sqlite"
	case strings.HasPrefix(url, "postgres"):
		return "postgres"
	case strings.HasPrefix(url, "memory://"):
		return "memory"
	default:
		return "unknown"
	}
}
