package agentref

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/agentry-dev/agentry/api/v1alpha1"
)

// The kinds of failure a caller may need to tell apart with errors.Is: a bad reference is the
// configuration's fault, a missing Agent the cluster's, a not-ready Agent may heal itself, and
// an invalid endpoint means the status holds something that is not an http(s) base URL.
var (
	ErrInvalidRef      = errors.New("invalid agent reference")
	ErrAgentNotFound   = errors.New("agent not found")
	ErrAgentNotReady   = errors.New("agent not ready")
	ErrInvalidEndpoint = errors.New("invalid agent endpoint")
)

// ReasonEndpointPending is NotReadyError.Reason when the operator has not reported the Agent's
// in-cluster endpoint yet (no Ready condition explains that case).
const ReasonEndpointPending = "EndpointPending"

// Resolver finds the URL the chat service POSTs to for an Agent reference "namespace/name":
// the AG-UI endpoint (.../ag-ui), or with generate the Mastra-style JSON endpoint (.../generate).
type Resolver interface {
	Resolve(ctx context.Context, ref string, route Route) (string, error)
}

// Route is the endpoint of an Agent a provider calls.
type Route string

// The routes: AG-UI, Mastra's generate, and the A2A JSON-RPC endpoint.
const (
	RouteAGUI     Route = "ag-ui"
	RouteGenerate Route = "generate"
	RouteA2A      Route = "a2a"
)

// refError keeps the human message separate from the kind, so messages read naturally
// ("agent default/chef not found") while errors.Is still works.
type refError struct {
	kind error
	msg  string
}

func (e *refError) Error() string { return e.msg }
func (e *refError) Unwrap() error { return e.kind }

// NotReadyError says why an Agent cannot be called yet; errors.Is(err, ErrAgentNotReady)
// holds. Reason is the CamelCase reason of the condition that blocks it.
type NotReadyError struct {
	Ref    string
	Reason string
	// Detail is the operator's condition message: names of Secrets and keys at most, never
	// their values.
	Detail string
}

func (e *NotReadyError) Error() string {
	return fmt.Sprintf("agent %s is not ready (%s): %s", e.Ref, e.Reason, e.Detail)
}

func (e *NotReadyError) Unwrap() error { return ErrAgentNotReady }

// ParseRef splits "namespace/name". The namespace must be a DNS-1123 label and the name a
// DNS-1123 subdomain, as the API server requires of an Agent, so a reference that can never
// match fails when the configuration is saved rather than at the first message.
func ParseRef(ref string) (namespace, name string, err error) {
	bad := func(format string, args ...any) error {
		return &refError{kind: ErrInvalidRef, msg: fmt.Sprintf("failed to parse agent reference %q: ", ref) + fmt.Sprintf(format, args...)}
	}
	switch {
	case ref == "":
		return "", "", &refError{kind: ErrInvalidRef, msg: "agent reference is empty: want namespace/name, e.g. default/chef"}
	case strings.Contains(ref, "://"):
		return "", "", bad("this is a URL; an agent reference is namespace/name, e.g. default/chef")
	}
	parts := strings.Split(ref, "/")
	switch {
	case len(parts) == 1:
		return "", "", bad("no namespace: want namespace/name, e.g. default/%s", ref)
	case len(parts) > 2:
		return "", "", bad("more than one %q: want namespace/name, e.g. default/chef", "/")
	case parts[0] == "":
		return "", "", bad("the namespace is empty: want namespace/name, e.g. default/chef")
	case parts[1] == "":
		return "", "", bad("the name is empty: want namespace/name, e.g. default/chef")
	}
	if errs := validation.IsDNS1123Label(parts[0]); len(errs) > 0 {
		return "", "", bad("namespace %q is not a DNS-1123 label: %s", parts[0], strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Subdomain(parts[1]); len(errs) > 0 {
		return "", "", bad("name %q is not a DNS-1123 subdomain: %s", parts[1], strings.Join(errs, "; "))
	}
	return parts[0], parts[1], nil
}

// StaticResolver maps references ("namespace/name") to in-cluster base URLs such as
// http://agentry-chef.default.svc.cluster.local:4111/api/agents/chef, for tests and for
// agentry dev, where there is no cluster to watch. It is read-only once built, so concurrent
// Resolve calls need no lock.
type StaticResolver map[string]string

// Resolve implements Resolver.
func (s StaticResolver) Resolve(_ context.Context, ref string, route Route) (string, error) {
	if _, _, err := ParseRef(ref); err != nil {
		return "", err
	}
	base, ok := s[ref]
	if !ok {
		return "", notFound(ref)
	}
	if base == "" {
		return "", &NotReadyError{Ref: ref, Reason: ReasonEndpointPending, Detail: "no in-cluster endpoint is configured"}
	}
	return endpointURL(ref, base, "", route)
}

func notFound(ref string) error {
	return &refError{kind: ErrAgentNotFound, msg: fmt.Sprintf("agent %s not found", ref)}
}

// endpointFor is the URL for an Agent as the cache holds it, or why it cannot be called.
func endpointFor(ref string, a *v1alpha1.Agent, route Route) (string, error) {
	if err := notReady(ref, a); err != nil {
		return "", err
	}
	return endpointURL(ref, a.Status.Endpoints.Internal, a.Status.Endpoints.A2AInternal, route)
}

// notReady applies the operator's Ready condition minus exposure. Ready also requires a public
// URL (Exposed), which an in-cluster caller does not use: an Agent reachable only inside the
// cluster is always Ready=False (NotReady, "Exposed is False (NotExposed)") and yet callable.
func notReady(ref string, a *v1alpha1.Agent) error {
	if a.Status.Endpoints == nil || a.Status.Endpoints.Internal == "" {
		return &NotReadyError{Ref: ref, Reason: ReasonEndpointPending,
			Detail: "the operator has not reported its in-cluster endpoint (status.endpoints.internal) yet"}
	}
	ready := meta.FindStatusCondition(a.Status.Conditions, v1alpha1.ConditionReady)
	if ready == nil || ready.Status == metav1.ConditionTrue {
		return nil
	}
	// Any reason but NotReady is a problem without a condition of its own (a Secret, a
	// conflicting object, a failed reconcile), which blocks in-cluster calls just the same.
	if ready.Reason != v1alpha1.ReasonNotReady {
		return &NotReadyError{Ref: ref, Reason: ready.Reason, Detail: ready.Message}
	}
	for _, c := range a.Status.Conditions {
		if c.Type == v1alpha1.ConditionReady || c.Type == v1alpha1.ConditionExposed || c.Status == metav1.ConditionTrue {
			continue
		}
		return &NotReadyError{Ref: ref, Reason: c.Reason, Detail: fmt.Sprintf("%s is %s: %s", c.Type, c.Status, c.Message)}
	}
	return nil
}

// endpointURL appends the route to the base URL (…/api/agents/{id}); the A2A endpoint is
// a2a when the operator reported it, else the runtime's /a2a/{id} beside the base. The URL is
// checked because the bridge sends the agent's auth headers to it: a malformed status must
// fail, not go somewhere unexpected.
func endpointURL(ref, base, a2a string, route Route) (string, error) {
	u, err := checkedURL(ref, base)
	if err != nil {
		return "", err
	}
	base = strings.TrimRight(base, "/")
	switch route {
	case RouteGenerate:
		return base + "/generate", nil
	case RouteA2A:
		if a2a != "" {
			if _, err := checkedURL(ref, a2a); err != nil {
				return "", err
			}
			return strings.TrimRight(a2a, "/"), nil
		}
		prefix, id, ok := strings.Cut(u.Path, "/api/agents/")
		if !ok || strings.Trim(id, "/") == "" {
			return "", &refError{kind: ErrInvalidEndpoint, msg: fmt.Sprintf("failed to find the A2A endpoint of agent %s beside %q", ref, base)}
		}
		u.Path = prefix + "/a2a/" + strings.Trim(id, "/")
		return u.String(), nil
	}
	return base + "/ag-ui", nil
}

func checkedURL(ref, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, &refError{kind: ErrInvalidEndpoint,
			msg: fmt.Sprintf("failed to use the in-cluster endpoint %q of agent %s: want an http(s) URL without query or fragment", raw, ref)}
	}
	return u, nil
}
