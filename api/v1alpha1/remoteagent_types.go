package v1alpha1

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultRemoteAgentTimeout bounds reading a RemoteAgent's card and each call of it when
// spec.timeout is unset: the other agent runs a model of its own.
const DefaultRemoteAgentTimeout = 60 * time.Second

// MaxRemoteAgentSkills is the most skills a RemoteAgent's status lists.
const MaxRemoteAgentSkills = 64

// RemoteAgentSpec is the desired state of a RemoteAgent.
type RemoteAgentSpec struct {
	// url is the agent's card (a URL ending in .json, e.g.
	// https://agents.example.com/.well-known/agent-card.json) or its base URL, under which the
	// card is at /.well-known/agent-card.json. Agents call the endpoint the card names.
	// +required
	// +kubebuilder:validation:Pattern=`^https?://[^\s]+$`
	// +kubebuilder:validation:MaxLength=2048
	URL string `json:"url"`

	// headersSecretRef names a Secret whose keys are header names and values header values
	// (e.g. Authorization: Bearer …), sent when reading the card and with every call. The
	// values reach agent pods as mounted files, never through a ConfigMap.
	// +optional
	HeadersSecretRef *LocalObjectReference `json:"headersSecretRef,omitempty"`

	// callerIdentity tells the remote agent who is asking, on each call of a verified caller.
	// +optional
	CallerIdentity *CallerIdentity `json:"callerIdentity,omitempty"`

	// timeout bounds reading the card and each call (default 60s).
	// +optional
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s') && duration(self) <= duration('30m')",message="timeout must be more than 0s and at most 30m"
	Timeout *metav1.Duration `json:"timeout,omitempty"`
}

// EffectiveTimeout is spec.timeout, defaulted.
func (s RemoteAgentSpec) EffectiveTimeout() time.Duration {
	if s.Timeout == nil || s.Timeout.Duration <= 0 {
		return DefaultRemoteAgentTimeout
	}
	return s.Timeout.Duration
}

// RemoteAgentCard is what the operator read of the agent's card.
type RemoteAgentCard struct {
	// name is the agent's name.
	// +optional
	Name string `json:"name,omitempty"`

	// description says what the agent does (the model reads it as the tool's description).
	// +optional
	Description string `json:"description,omitempty"`

	// url is the agent's JSON-RPC endpoint, as its card names it.
	// +optional
	URL string `json:"url,omitempty"`

	// protocolVersion is the A2A version the card says the agent speaks.
	// +optional
	ProtocolVersion string `json:"protocolVersion,omitempty"`

	// skills are the agent's skills (at most 64).
	// +optional
	// +listType=atomic
	Skills []RemoteAgentSkill `json:"skills,omitempty"`
}

// RemoteAgentSkill is one skill of a remote agent's card.
type RemoteAgentSkill struct {
	// id of the skill.
	// +optional
	ID string `json:"id,omitempty"`

	// name of the skill.
	// +optional
	Name string `json:"name,omitempty"`

	// description of the skill.
	// +optional
	Description string `json:"description,omitempty"`
}

// RemoteAgentStatus is the observed state of a RemoteAgent.
type RemoteAgentStatus struct {
	// observedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready (reasons Discovered, Discovering, Unreachable, TLSError, Unauthorized,
	// ProtocolError, Timeout, SecretNotFound).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// card is the card of the last successful read. It is kept while the agent is unreachable,
	// so agents keep using it through an outage.
	// +optional
	Card *RemoteAgentCard `json:"card,omitempty"`

	// lastDiscoveryTime is when the card was last read successfully.
	// +optional
	LastDiscoveryTime *metav1.Time `json:"lastDiscoveryTime,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=ragent,categories=agentry
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.spec.url`
// +kubebuilder:printcolumn:name="Agent",type=string,JSONPath=`.status.card.name`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Endpoint",type=string,JSONPath=`.status.card.url`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// RemoteAgent is an Agent2Agent agent outside Agentry that Agents may use as a tool.
type RemoteAgent struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the RemoteAgent.
	// +required
	Spec RemoteAgentSpec `json:"spec"`

	// status is the observed state of the RemoteAgent.
	// +optional
	Status RemoteAgentStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// RemoteAgentList is a list of RemoteAgents.
type RemoteAgentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RemoteAgent `json:"items"`
}

func init() {
	SchemeBuilder.Register(&RemoteAgent{}, &RemoteAgentList{})
}
