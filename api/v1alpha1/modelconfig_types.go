package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ModelConfigSpec is a model endpoint many Agents share: provider, model, URL, credentials
// and default settings. Agents use it through spec.model.configRef.
// +kubebuilder:validation:XValidation:rule="self.provider != 'azure-openai' || (has(self.azure) && has(self.azure.endpoint) && has(self.azure.apiVersion))",message="provider azure-openai needs spec.azure.endpoint (https://<resource>.openai.azure.com) and spec.azure.apiVersion (e.g. 2024-10-21)"
// +kubebuilder:validation:XValidation:rule="self.provider == 'azure-openai' || !has(self.azure)",message="spec.azure applies to provider azure-openai only"
// +kubebuilder:validation:XValidation:rule="self.provider != 'azure-openai' || !has(self.baseURL)",message="provider azure-openai takes spec.azure.endpoint, not spec.baseURL"
type ModelConfigSpec struct {
	// provider is the model API: `openai` is any OpenAI-compatible Chat Completions endpoint;
	// `azure-openai` an Azure OpenAI resource (spec.azure).
	// +optional
	// +kubebuilder:default=openai
	Provider ModelProvider `json:"provider,omitempty"`

	// model is the model id sent to the provider, e.g. gpt-4o-mini (an Agent's
	// spec.model.name overrides it).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Model string `json:"model"`

	// baseURL overrides the provider's API base URL (e.g. http://vllm.models:8000/v1).
	// +optional
	// +kubebuilder:validation:Pattern=`^https?://[^\s]+$`
	// +kubebuilder:validation:MaxLength=2048
	BaseURL string `json:"baseURL,omitempty"`

	// apiKeySecretRef selects the key of a Secret in this namespace holding the API key. Leave
	// it unset only for endpoints that need no key. A change of the Secret rolls the Agents
	// that use this ModelConfig.
	// +optional
	APIKeySecretRef *SecretKeyRef `json:"apiKeySecretRef,omitempty"`

	// The default sampling and request settings of the Agents that use this ModelConfig.
	ModelSettings `json:",inline"`

	// azure says which Azure OpenAI deployment answers (provider azure-openai).
	// +optional
	Azure *AzureOpenAISpec `json:"azure,omitempty"`
}

// ModelConfigStatus is the observed state of a ModelConfig.
type ModelConfigStatus struct {
	// observedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready (the credential's Secret and key exist and the URL is valid).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// agents is how many Agents in this namespace reference this ModelConfig.
	// +optional
	Agents int32 `json:"agents"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=mc,categories=agentry
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.provider`
// +kubebuilder:printcolumn:name="Model",type=string,JSONPath=`.spec.model`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Agents",type=integer,JSONPath=`.status.agents`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// ModelConfig is a model endpoint with its credentials and default settings, shared by the
// Agents that name it in spec.model.configRef.
type ModelConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the ModelConfig.
	// +required
	Spec ModelConfigSpec `json:"spec"`

	// status is the observed state of the ModelConfig.
	// +optional
	Status ModelConfigStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ModelConfigList is a list of ModelConfigs.
type ModelConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ModelConfig `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ModelConfig{}, &ModelConfigList{})
}
