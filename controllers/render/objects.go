package render

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/agentry-dev/agentry/api/v1alpha1"
)

// document is an object as the runtime reads it: identity and spec, nothing the cluster added.
type document struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   map[string]string `json:"metadata"`
	Spec       any               `json:"spec"`
	Status     any               `json:"status,omitempty"`
}

func doc(kind, name, namespace string, spec any) document {
	return document{APIVersion: v1alpha1.GroupVersion.String(), Kind: kind, Metadata: map[string]string{"name": name, "namespace": namespace}, Spec: spec}
}

// ConfigYAML is the runtime config: the Agent (its tool map reduced to the entries that fire),
// its Tools, MCPServers and FrontendActions as multi-document YAML — the same documents
// `agentry serve` reads. An MCPServer carries the tools the operator discovered (status.tools
// only: its conditions and times change without changing what the pods offer). It never holds
// a Secret value; Secrets are referenced by name only.
func ConfigYAML(r Resolved) ([]byte, error) {
	spec := r.Agent.Spec.DeepCopy()
	spec.Tools = nil
	for _, t := range r.Tools {
		spec.Tools = append(spec.Tools, t.Entry)
	}
	spec.Tools = append(spec.Tools, r.MCP...)
	spec.FrontendActions = nil
	for _, f := range r.FrontendActions {
		spec.FrontendActions = append(spec.FrontendActions, v1alpha1.LocalObjectReference{Name: f.Name})
	}
	// The runtime section configures pods, not the agent; leave it out of the agent's config.
	spec.Runtime = nil
	docs := []document{doc("Agent", r.Agent.Name, r.Agent.Namespace, spec)}
	for _, t := range r.Tools {
		docs = append(docs, doc("Tool", t.Tool.Name, t.Tool.Namespace, t.Tool.Spec))
	}
	for _, m := range r.MCPServers {
		d := doc("MCPServer", m.Name, m.Namespace, m.Spec)
		d.Status = v1alpha1.MCPServerStatus{Tools: m.Status.Tools}
		docs = append(docs, d)
	}
	for _, f := range r.FrontendActions {
		docs = append(docs, doc("FrontendAction", f.Name, f.Namespace, f.Spec))
	}
	var buf bytes.Buffer
	buf.WriteString("# Rendered by the Agentry operator; do not edit.\n")
	for i, d := range docs {
		if i > 0 {
			buf.WriteString("---\n")
		}
		b, err := yaml.Marshal(d)
		if err != nil {
			return nil, fmt.Errorf("failed to render %s %q: %w", d.Kind, d.Metadata["name"], err)
		}
		buf.Write(b)
	}
	return buf.Bytes(), nil
}

func meta(a *v1alpha1.Agent, component string) metav1.ObjectMeta {
	labels := Labels(a.Name)
	labels[LabelComponent] = component
	return metav1.ObjectMeta{Name: ChildName(a.Name), Namespace: a.Namespace, Labels: labels}
}

// ConfigMapFor holds the rendered config.
func ConfigMapFor(a *v1alpha1.Agent, config []byte) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: meta(a, "config"),
		Data:       map[string]string{ConfigKey: string(config)},
	}
}

// ServiceFor is the ClusterIP Service in front of the runtime pods.
func ServiceFor(a *v1alpha1.Agent) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: meta(a, "runtime"),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: Labels(a.Name),
			Ports: []corev1.ServicePort{{
				Name: PortName, Port: RuntimePort, TargetPort: intstr.FromString(PortName), Protocol: corev1.ProtocolTCP,
			}},
		},
	}
}

// IngressFor routes the platform paths of the Agent (PlatformPaths and A2APaths, exact matches) to the
// Service, or returns nil when the Agent asks for no Ingress or no host is known
// (spec.endpoint.ingress.host, else the operator default). Whether the Agent may be public at
// all (auth) is the reconciler's decision.
func IngressFor(a *v1alpha1.Agent, cfg Config) *networkingv1.Ingress {
	ep := a.Spec.Endpoint
	if ep == nil || ep.Ingress == nil {
		return nil
	}
	host, class, tls := IngressSettings(a, cfg)
	if host == "" {
		return nil
	}
	id := a.EffectiveAgentID()
	routes := make([]string, 0, len(PlatformPaths)+len(A2APaths))
	for _, p := range PlatformPaths {
		routes = append(routes, "/api/agents/"+id+"/"+p)
	}
	for _, p := range A2APaths {
		routes = append(routes, fmt.Sprintf(p, id))
	}
	paths := make([]networkingv1.HTTPIngressPath, 0, len(routes))
	for _, r := range routes {
		paths = append(paths, networkingv1.HTTPIngressPath{
			Path:     r,
			PathType: ptr.To(networkingv1.PathTypeExact),
			Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
				Name: ChildName(a.Name), Port: networkingv1.ServiceBackendPort{Name: PortName},
			}},
		})
	}
	ing := &networkingv1.Ingress{
		ObjectMeta: meta(a, "ingress"),
		Spec: networkingv1.IngressSpec{
			Rules: []networkingv1.IngressRule{{
				Host:             host,
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: paths}},
			}},
		},
	}
	if len(ep.Ingress.Annotations) > 0 {
		ing.Annotations = map[string]string{}
		for k, v := range ep.Ingress.Annotations {
			ing.Annotations[k] = v
		}
	}
	if class != "" {
		ing.Spec.IngressClassName = ptr.To(class)
	}
	if tls != "" {
		ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{host}, SecretName: tls}}
	}
	return ing
}

// IngressSettings resolves host, class and TLS Secret: the Agent's, else the operator's default.
// The default TLS Secret applies only together with the default host it was made for.
func IngressSettings(a *v1alpha1.Agent, cfg Config) (host, class, tlsSecret string) {
	in := a.Spec.Endpoint.Ingress
	host, class, tlsSecret = in.Host, in.ClassName, in.TLSSecretName
	if host == "" {
		host = cfg.DefaultIngress.Host
		tlsSecret = cmp.Or(tlsSecret, cfg.DefaultIngress.TLSSecretName)
	}
	class = cmp.Or(class, cfg.DefaultIngress.ClassName)
	return host, class, tlsSecret
}

// SpecHash fingerprints what the operator wants of a child object, so that it writes only
// when that changes.
func SpecHash(obj any) string {
	b, _ := json.Marshal(obj)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:16]
}
