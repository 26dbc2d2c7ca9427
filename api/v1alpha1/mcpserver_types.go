package v1alpha1

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// MCPTransport is how the runtime and the operator talk to an MCP server.
// +kubebuilder:validation:Enum=streamable-http;sse
type MCPTransport string

const (
	// MCPTransportStreamableHTTP is the MCP streamable HTTP transport (protocol 2025-03-26 and later).
	MCPTransportStreamableHTTP MCPTransport = "streamable-http"
	// MCPTransportSSE is the HTTP+SSE transport of older servers (protocol 2024-11-05).
	MCPTransportSSE MCPTransport = "sse"
)

// DefaultMCPTimeout bounds discovery and each tool call when spec.timeout is unset.
const DefaultMCPTimeout = 30 * time.Second

// MaxMCPTools is the most tools one MCPServer lists in its status.
const MaxMCPTools = 256

// MCPServerSpec is the desired state of an MCPServer.
type MCPServerSpec struct {
	// url is the server's MCP endpoint, e.g. http://github-mcp.tools.svc:8080/mcp.
	// +required
	// +kubebuilder:validation:Pattern=`^https?://[^\s]+$`
	// +kubebuilder:validation:MaxLength=2048
	URL string `json:"url"`

	// transport is streamable-http (default) or sse for servers that only speak the older
	// HTTP+SSE transport.
	// +optional
	// +kubebuilder:default=streamable-http
	Transport MCPTransport `json:"transport,omitempty"`

	// headersSecretRef names a Secret whose keys are header names and values header values
	// (e.g. Authorization: Bearer …), sent with every request to the server. The values
	// reach agent pods as mounted files, never through a ConfigMap.
	// +optional
	HeadersSecretRef *LocalObjectReference `json:"headersSecretRef,omitempty"`

	// callerIdentity tells the server who is asking, on each tool call of a verified caller.
	// +optional
	CallerIdentity *CallerIdentity `json:"callerIdentity,omitempty"`

	// timeout bounds connecting and listing tools, and each tool call (default 30s).
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// tools, when set, is the allow-list of the server's tool names agents may use; other
	// tools are neither listed in status nor offered to models.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=128
	Tools []string `json:"tools,omitempty"`
}

// MCPToolInfo is one tool a server offers, as discovered.
type MCPToolInfo struct {
	// name is the tool's name on the server.
	// +required
	Name string `json:"name"`

	// description says what the tool does (the model reads it).
	// +optional
	Description string `json:"description,omitempty"`

	// inputSchema is the tool's JSON Schema of its arguments, kept verbatim.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	InputSchema *runtime.RawExtension `json:"inputSchema,omitempty"`
}

// MCPServerStatus is the observed state of an MCPServer.
type MCPServerStatus struct {
	// observedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready (reasons Discovered, Unreachable, TLSError, Unauthorized,
	// ProtocolError, Timeout).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// tools are the (allowed) tools of the last successful discovery. They are kept while the
	// server is unreachable, so agents keep their tools through an outage.
	// +optional
	// +listType=map
	// +listMapKey=name
	Tools []MCPToolInfo `json:"tools,omitempty"`

	// toolCount is len(tools), for kubectl get.
	// +optional
	ToolCount int32 `json:"toolCount,omitempty"`

	// lastDiscoveryTime is when the tools were last listed successfully.
	// +optional
	LastDiscoveryTime *metav1.Time `json:"lastDiscoveryTime,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=mcp,categories=agentry
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.spec.url`
// +kubebuilder:printcolumn:name="Transport",type=string,JSONPath=`.spec.transport`,priority=1
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Tools",type=integer,JSONPath=`.status.toolCount`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// MCPServer is a Model Context Protocol server whose tools Agents may use.
type MCPServer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the MCPServer.
	// +required
	Spec MCPServerSpec `json:"spec"`

	// status is the observed state of the MCPServer.
	// +optional
	Status MCPServerStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// MCPServerList is a list of MCPServers.
type MCPServerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MCPServer `json:"items"`
}

func init() {
	SchemeBuilder.Register(&MCPServer{}, &MCPServerList{})
}
