// Package render builds the objects the operator runs for an Agent — the runtime config
// ConfigMap, the Deployment, the Service and the Ingress — as pure functions of the Agent, what
// it references and the operator's settings, so they are tested without a cluster.
package render

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

// Runtime paths, ports and settings, shared with `agentry serve`.
const (
	ConfigDir   = "/etc/agentry/config"
	ConfigKey   = "agent.yaml"
	SecretsDir  = secrets.DefaultDir
	RuntimePort = 4111
	PortName    = "http"
)

// Labels and annotations the operator sets.
const (
	LabelAgent           = "agentry.dev/agent"
	LabelName            = "app.kubernetes.io/name"
	LabelInstance        = "app.kubernetes.io/instance"
	LabelManagedBy       = "app.kubernetes.io/managed-by"
	LabelComponent       = "app.kubernetes.io/component"
	AnnotationConfigHash = "agentry.dev/config-hash"
	AnnotationSpecHash   = "agentry.dev/spec-hash"
	ManagedBy            = "agentry-operator"
)

// IngressDefaults apply to Agents that ask for an Ingress without saying everything.
type IngressDefaults struct {
	ClassName     string
	Host          string
	TLSSecretName string
}

// Config is the operator's side of rendering.
type Config struct {
	// RuntimeImage runs `agentry serve` (default: the operator's own image).
	RuntimeImage    string
	ImagePullPolicy string
	// ClusterDomain builds in-cluster URLs (default cluster.local).
	ClusterDomain  string
	DefaultIngress IngressDefaults
	// TrustedProxies are CIDRs whose X-Forwarded-For the runtime believes (its
	// --trusted-proxies; empty: the runtime's default, loopback only).
	TrustedProxies []string
	// CORSOrigins are the browser origins allowed for Agents that set no
	// spec.endpoint.corsOrigins (the runtime's --cors-origins; empty: none).
	CORSOrigins []string
	// Resources of the runtime container of Agents that set no spec.runtime.resources
	// (nil: DefaultResources).
	Resources *corev1.ResourceRequirements
	// Tracing, when its Endpoint is set, makes every runtime pod export traces there.
	Tracing Tracing
}

// Tracing is what runtime pods get to export OpenTelemetry traces: the standard OTEL_*
// variables, so the runtime needs no flag of its own.
type Tracing struct {
	// Endpoint is the OTLP/HTTP base URL (OTEL_EXPORTER_OTLP_ENDPOINT).
	Endpoint string
	// HeadersSecret names a Secret in each Agent's namespace whose HeadersKey holds
	// OTEL_EXPORTER_OTLP_HEADERS (an API key for a hosted backend); optional.
	HeadersSecret, HeadersKey string
	// SamplerRatio is the share of traces kept for root spans (parent-based; "" keeps all).
	SamplerRatio string
	// CaptureContent records prompts and completions on spans (off: never).
	CaptureContent bool
}

// DefaultResources are the runtime container's requests and limits for Agents that set no
// spec.runtime.resources, sized from what `make bench` measures of one runtime pod
// (docs/runtime-footprint.md): the memory request covers the resident memory after 10,000
// generate requests (29 MiB) with a third to spare, the limit (unchanged) leaves room for long
// conversations and bursts of streams. The runtime's GOMEMLIMIT follows the limit
// (runtime/memlimit).
func DefaultResources() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(DefaultCPURequest), corev1.ResourceMemory: resource.MustParse(DefaultMemoryRequest)},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(DefaultMemoryLimit)},
	}
}

// The defaults of DefaultResources, as the operator's flags show them.
const (
	DefaultCPURequest    = "50m"
	DefaultMemoryRequest = "40Mi"
	DefaultMemoryLimit   = "256Mi"
)

func (c Config) resources() corev1.ResourceRequirements {
	if c.Resources != nil {
		return *c.Resources.DeepCopy()
	}
	return DefaultResources()
}

// TerminationGracePeriodSeconds leaves room for the pre-stop pause (PreStopSeconds), the
// runtime's drain of open streams on SIGTERM (25 s by default) and closing its stores before
// the kubelet kills it.
const TerminationGracePeriodSeconds = 35

// PreStopSeconds is how long a terminating runtime pod keeps serving before SIGTERM, while its
// endpoint is removed from Services (a native sleep: the image has no shell).
const PreStopSeconds = 5

// PlatformPaths are the only routes of an Agent the Ingress publishes: what a chat platform
// calls, including a Mastra client's answers to held tool calls. GET /api/agents/{id} (the
// instructions), tools/{id}/execute and the memory routes stay in the cluster.
var PlatformPaths = []string{"ag-ui", "generate", "stream", "approve-tool-call", "decline-tool-call"}

// A2APaths are the Agent2Agent routes an Ingress publishes (%s is the agent id): the JSON-RPC
// endpoint and its agent card at both paths the runtime serves it.
var A2APaths = []string{"/a2a/%s", "/a2a/%s/.well-known/agent-card.json", "/.well-known/%s/agent-card.json"}

// A2AInternalURL is the in-cluster A2A endpoint of the Agent.
func A2AInternalURL(a *v1alpha1.Agent, cfg Config) string {
	return fmt.Sprintf("http://%s.%s.svc.%s:%d/a2a/%s", ChildName(a.Name), a.Namespace, cfg.clusterDomain(), RuntimePort, a.EffectiveAgentID())
}

func (c Config) clusterDomain() string {
	if c.ClusterDomain == "" {
		return "cluster.local"
	}
	return c.ClusterDomain
}

// Resolved is an Agent with what the reconciler resolved for it.
type Resolved struct {
	Agent *v1alpha1.Agent
	// Tools are the entries that fire (key equals the Tool's id, the Tool exists and is valid),
	// with their Tools, in spec order.
	Tools []ResolvedTool
	// MCP are the entries with mcpServerRef that offer the model at least one tool, in spec
	// order, and MCPServers the servers they use (their status.tools is what the pods offer).
	MCP        []v1alpha1.AgentTool
	MCPServers []*v1alpha1.MCPServer
	// FrontendActions are the valid, non-conflicting referenced actions.
	FrontendActions []*v1alpha1.FrontendAction
	// SecretData holds the data of every referenced Secret, for the config hash only.
	SecretData map[string]map[string][]byte
}

// ResolvedTool is a firing tool-map entry.
type ResolvedTool struct {
	Entry v1alpha1.AgentTool
	Tool  *v1alpha1.Tool
}

// ChildName is the name of the Deployment, Service, ConfigMap and Ingress of an Agent: a
// DNS-1035 label of at most 63 characters, unique per Agent name.
func ChildName(agentName string) string {
	name := "agentry-" + agentName
	if len(name) <= 63 && !strings.Contains(agentName, ".") {
		return name
	}
	sum := sha256.Sum256([]byte(agentName))
	short := strings.ReplaceAll(agentName, ".", "-")
	if len(short) > 45 {
		short = short[:45]
	}
	return strings.TrimRight("agentry-"+short, "-") + "-" + hex.EncodeToString(sum[:])[:8]
}

// Labels are the selector labels of an Agent's pods and objects.
func Labels(agentName string) map[string]string {
	return map[string]string{
		LabelName:      "agentry-runtime",
		LabelInstance:  ChildName(agentName),
		LabelManagedBy: ManagedBy,
		LabelAgent:     labelValue(agentName),
	}
}

// labelValue fits a name into a label value (63 characters).
func labelValue(s string) string {
	if len(s) <= 63 {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return s[:54] + "-" + hex.EncodeToString(sum[:])[:8]
}

// MountedSecrets are the Secrets the runtime reads as files: endpoint auth headers, HTTP tool
// headers and MCP server headers. Sorted, without duplicates.
func MountedSecrets(r Resolved) []string {
	set := map[string]bool{}
	if ep := r.Agent.Spec.Endpoint; ep != nil && ep.Auth != nil && ep.Auth.HeadersSecretRef != nil {
		set[ep.Auth.HeadersSecretRef.Name] = true
	}
	for _, t := range r.Tools {
		if ref := t.Tool.Spec.Execute.HeadersSecret(); ref != nil {
			set[ref.Name] = true
		}
	}
	for _, m := range r.MCPServers {
		if ref := m.Spec.HeadersSecretRef; ref != nil {
			set[ref.Name] = true
		}
	}
	return sortedKeys(set)
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ReferencedSecrets are every Secret an Agent's pods need: the model key, the memory URL and
// the mounted ones.
func ReferencedSecrets(a *v1alpha1.Agent, tools []*v1alpha1.Tool, servers []*v1alpha1.MCPServer) []string {
	resolved := Resolved{Agent: a, MCPServers: servers}
	for _, t := range tools {
		resolved.Tools = append(resolved.Tools, ResolvedTool{Tool: t})
	}
	set := map[string]bool{}
	for _, n := range MountedSecrets(resolved) {
		set[n] = true
	}
	if ref := a.Spec.Model.APIKeySecretRef; ref != nil {
		set[ref.Name] = true
	}
	if az := a.Spec.Model.Azure; az != nil && az.TokenSecretRef != nil {
		set[az.TokenSecretRef.Name] = true
	}
	if m := a.Spec.Memory; m != nil && m.URLSecretRef != nil {
		set[m.URLSecretRef.Name] = true
	}
	return sortedKeys(set)
}

// ConfigHash hashes the rendered config and the referenced Secrets' data, so that any change
// to either rolls the pods. Only the hash leaves this function.
func ConfigHash(config []byte, secrets map[string]map[string][]byte) string {
	h := sha256.New()
	h.Write(config)
	names := make([]string, 0, len(secrets))
	for n := range secrets {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		keys := make([]string, 0, len(secrets[n]))
		for k := range secrets[n] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(h, "\x00%s\x00%s\x00%d\x00", n, k, len(secrets[n][k]))
			h.Write(secrets[n][k])
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// InternalURL is the in-cluster base of an Agent's routes.
func InternalURL(a *v1alpha1.Agent, cfg Config) string {
	return fmt.Sprintf("http://%s.%s.svc.%s:%d/api/agents/%s", ChildName(a.Name), a.Namespace, cfg.clusterDomain(), RuntimePort, a.EffectiveAgentID())
}
