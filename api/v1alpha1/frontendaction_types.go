package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// FrontendActionSpec is the desired state of a FrontendAction.
type FrontendActionSpec struct {
	// name is the unique, code-friendly tool name; it must match exactly the tool name the
	// chat UI listens for.
	// +required
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_-]{1,64}$`
	Name string `json:"name"`

	// displayName is shown to users.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	DisplayName string `json:"displayName,omitempty"`

	// executionText is how the agent describes running the action.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	ExecutionText string `json:"executionText,omitempty"`

	// description says what the action does and when to use it; the model reads it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Description string `json:"description"`

	// parameters is the JSON Schema of the inputs the agent fills: an object with `type`,
	// `required` and `properties`, each property with `type` and `description`.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	Parameters *runtime.RawExtension `json:"parameters,omitempty"`
}

// FrontendActionStatus is the observed state of a FrontendAction.
type FrontendActionStatus struct {
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
// +kubebuilder:resource:shortName=fa,categories=agentry
// +kubebuilder:printcolumn:name="Action",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="Valid",type=string,JSONPath=`.status.conditions[?(@.type=="Valid")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// FrontendAction is a client-side tool: the agent fills its parameters and the chat UI runs it.
type FrontendAction struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the FrontendAction.
	// +required
	Spec FrontendActionSpec `json:"spec"`

	// status is the observed state of the FrontendAction.
	// +optional
	Status FrontendActionStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// FrontendActionList is a list of FrontendActions.
type FrontendActionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []FrontendAction `json:"items"`
}

func init() {
	SchemeBuilder.Register(&FrontendAction{}, &FrontendActionList{})
}
