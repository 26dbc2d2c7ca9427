package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ToolSpec is the desired state of a Tool.
type ToolSpec struct {
	// id is the tool's unique id: the function name the model sees. An Agent's tool-map key
	// must equal it exactly, otherwise the tool does not fire.
	// +required
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_-]{1,64}$`
	ID string `json:"id"`

	// description says what the tool does and when to use it; the model reads it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Description string `json:"description"`

	// inputSchema is the JSON Schema (an object schema) of the tool's input, kept verbatim.
	// The runtime validates every call against it before executing.
	// +required
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	InputSchema *runtime.RawExtension `json:"inputSchema"`

	// outputSchema is the JSON Schema of the tool's output, kept verbatim. The runtime
	// validates every result against it.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	OutputSchema *runtime.RawExtension `json:"outputSchema,omitempty"`

	// execute says how the tool runs: exactly one of cel, http or a2a.
	// +required
	Execute ToolExecute `json:"execute"`
}

// ToolExecute says how a tool runs.
// +kubebuilder:validation:XValidation:rule="(has(self.cel) ? 1 : 0) + (has(self.http) ? 1 : 0) + (has(self.a2a) ? 1 : 0) == 1",message="execute must set exactly one of cel, http or a2a"
type ToolExecute struct {
	// cel is a CEL expression over `input` (the validated input object) that returns the
	// output object. It runs sandboxed with a cost limit.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=65536
	CEL string `json:"cel,omitempty"`

	// http POSTs the validated input as JSON to a URL or an in-cluster Service and uses the
	// JSON response as the output.
	// +optional
	HTTP *HTTPExecute `json:"http,omitempty"`

	// a2a asks another agent over the Agent2Agent protocol: the input's message (a string field
	// named message, else the input as JSON) is sent with message/send and the agent's answer is
	// the output ({"answer": "..."}). A chain of agents asking agents ends at depth 4.
	// +optional
	A2A *A2AExecute `json:"a2a,omitempty"`

	// timeout bounds one execution (default 10s for http, 60s for a2a, 1s for cel).
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`
}

// HeadersSecret is the Secret holding the headers an http or a2a tool sends (nil: none).
func (e ToolExecute) HeadersSecret() *LocalObjectReference {
	switch {
	case e.HTTP != nil:
		return e.HTTP.HeadersSecretRef
	case e.A2A != nil:
		return e.A2A.HeadersSecretRef
	}
	return nil
}

// HTTPExecute calls an HTTP endpoint.
// +kubebuilder:validation:XValidation:rule="has(self.url) != has(self.service)",message="http needs exactly one of url or service"
type HTTPExecute struct {
	// url is the endpoint, e.g. https://tools.example.com/weather.
	// +optional
	// +kubebuilder:validation:Pattern=`^https?://[^\s]+$`
	// +kubebuilder:validation:MaxLength=2048
	URL string `json:"url,omitempty"`

	// service is an in-cluster Service to call instead of a URL.
	// +optional
	Service *ServiceReference `json:"service,omitempty"`

	// headersSecretRef names a Secret whose keys are header names and values header values,
	// sent with every call.
	// +optional
	HeadersSecretRef *LocalObjectReference `json:"headersSecretRef,omitempty"`

	// callerIdentity tells the tool who is asking, when the agent verified it (a bearer JWT).
	// +optional
	CallerIdentity *CallerIdentity `json:"callerIdentity,omitempty"`
}

// A2AExecute calls an Agent2Agent agent.
type A2AExecute struct {
	// url is the agent's A2A endpoint, e.g. http://agentry-chef.default.svc.cluster.local:4111/a2a/chef
	// (an Agent's status.endpoints.a2aInternal).
	// +required
	// +kubebuilder:validation:Pattern=`^https?://[^\s]+$`
	// +kubebuilder:validation:MaxLength=2048
	URL string `json:"url"`

	// headersSecretRef names a Secret whose keys are header names and values header values,
	// sent with every call (the other agent's auth).
	// +optional
	HeadersSecretRef *LocalObjectReference `json:"headersSecretRef,omitempty"`

	// callerIdentity tells the other agent who is asking, when this agent verified it.
	// +optional
	CallerIdentity *CallerIdentity `json:"callerIdentity,omitempty"`
}

// ServiceReference addresses an HTTP endpoint of a Service.
type ServiceReference struct {
	// name of the Service.
	// +required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`

	// namespace of the Service; defaults to the Tool's namespace.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// port of the Service (default 80).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`

	// path of the request, e.g. /weather (default /).
	// +optional
	// +kubebuilder:validation:Pattern=`^/[^\s]*$`
	Path string `json:"path,omitempty"`
}

// ToolStatus is the observed state of a Tool.
type ToolStatus struct {
	// observedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Valid.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=agentry
// +kubebuilder:printcolumn:name="Tool ID",type=string,JSONPath=`.spec.id`
// +kubebuilder:printcolumn:name="Valid",type=string,JSONPath=`.status.conditions[?(@.type=="Valid")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Tool is a server-side tool an Agent can call.
type Tool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the Tool.
	// +required
	Spec ToolSpec `json:"spec"`

	// status is the observed state of the Tool.
	// +optional
	Status ToolStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ToolList is a list of Tools.
type ToolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Tool `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Tool{}, &ToolList{})
}
