package v1alpha1

import (
	"cmp"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ModelProvider selects the wire protocol used to reach the model.
// +kubebuilder:validation:Enum=openai;azure-openai
type ModelProvider string

const (
	// ModelProviderOpenAI is any endpoint that speaks OpenAI's Chat Completions API.
	ModelProviderOpenAI ModelProvider = "openai"
	// ModelProviderAzureOpenAI is an Azure OpenAI resource (spec.model.azure), reached through
	// openai-go's Azure support.
	ModelProviderAzureOpenAI ModelProvider = "azure-openai"
)

// ModelSpec selects a language model: inline, or by reference to a ModelConfig in the Agent's
// namespace (configRef), whose endpoint, credentials and defaults it then uses.
// +kubebuilder:validation:XValidation:rule="has(self.configRef) || has(self.name)",message="spec.model needs a name (the model id), or a configRef naming a ModelConfig"
// +kubebuilder:validation:XValidation:rule="!has(self.configRef) || (self.provider == 'openai' && !has(self.baseURL) && !has(self.apiKeySecretRef) && !has(self.azure))",message="with spec.model.configRef the provider, baseURL, apiKeySecretRef and azure come from the ModelConfig; remove them here (name, temperature, topP, maxTokens, timeout and maxRetries may override its defaults)"
// +kubebuilder:validation:XValidation:rule="self.provider != 'azure-openai' || (has(self.azure) && has(self.azure.endpoint) && has(self.azure.apiVersion))",message="provider azure-openai needs spec.model.azure.endpoint (https://<resource>.openai.azure.com) and spec.model.azure.apiVersion (e.g. 2024-10-21)"
// +kubebuilder:validation:XValidation:rule="self.provider == 'azure-openai' || !has(self.azure)",message="spec.model.azure applies to provider azure-openai only"
// +kubebuilder:validation:XValidation:rule="self.provider != 'azure-openai' || !has(self.baseURL)",message="provider azure-openai takes spec.model.azure.endpoint, not spec.model.baseURL"
type ModelSpec struct {
	// configRef names a ModelConfig in the Agent's namespace: the model's provider, endpoint,
	// credentials and default settings come from it, so many Agents share one and a change to
	// it (or its Secret) rolls exactly those Agents. Settings set here override its defaults.
	// +optional
	ConfigRef *LocalObjectReference `json:"configRef,omitempty"`

	// provider is the model API: `openai` is any OpenAI-compatible Chat Completions endpoint;
	// `azure-openai` an Azure OpenAI resource (spec.model.azure).
	// +optional
	// +kubebuilder:default=openai
	Provider ModelProvider `json:"provider,omitempty"`

	// name is the model id sent to the provider, e.g. gpt-4o-mini. Required unless configRef
	// is set (then it overrides the ModelConfig's model).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name,omitempty"`

	// baseURL overrides the provider's API base URL (e.g. http://vllm:8000/v1).
	// +optional
	// +kubebuilder:validation:Pattern=`^https?://[^\s]+$`
	// +kubebuilder:validation:MaxLength=2048
	BaseURL string `json:"baseURL,omitempty"`

	// apiKeySecretRef selects the Secret key holding the model API key. Leave it unset only
	// for endpoints that need no key.
	// +optional
	APIKeySecretRef *SecretKeyRef `json:"apiKeySecretRef,omitempty"`

	// The sampling and request settings (with configRef: over the ModelConfig's defaults).
	ModelSettings `json:",inline"`

	// azure says which Azure OpenAI deployment answers (provider azure-openai). Its credential
	// is an api-key (apiKeySecretRef) or a Microsoft Entra access token (azure.tokenSecretRef).
	// +optional
	Azure *AzureOpenAISpec `json:"azure,omitempty"`
}

// ModelSettings are a model's sampling and request settings: an Agent's own, or a
// ModelConfig's defaults for the Agents that use it.
type ModelSettings struct {
	// temperature is the sampling temperature as a decimal string between 0 and 2, e.g. "0.7".
	// +optional
	// +kubebuilder:validation:Pattern=`^(0|1)(\.[0-9]{1,3})?$|^2(\.0{1,3})?$`
	Temperature string `json:"temperature,omitempty"`

	// topP is nucleus sampling as a decimal string between 0 and 1, e.g. "0.9".
	// +optional
	// +kubebuilder:validation:Pattern=`^0(\.[0-9]{1,3})?$|^1(\.0{1,3})?$`
	TopP string `json:"topP,omitempty"`

	// maxTokens caps the tokens the model may generate per step.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxTokens *int32 `json:"maxTokens,omitempty"`

	// timeout bounds each model request (default 120s).
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// maxRetries is how often a request failing with 429 or 5xx is retried with backoff (default 2).
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	MaxRetries *int32 `json:"maxRetries,omitempty"`
}

// AzureOpenAISpec is an Azure OpenAI resource and deployment.
type AzureOpenAISpec struct {
	// endpoint is the resource's endpoint, e.g. https://my-resource.openai.azure.com.
	// +required
	// +kubebuilder:validation:Pattern=`^https://[^\s/]+(/[^\s]*)?$`
	// +kubebuilder:validation:MaxLength=2048
	Endpoint string `json:"endpoint,omitempty"`

	// deployment is the model deployment's name (default: spec.model.name).
	// +optional
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9._-]{1,64}$`
	Deployment string `json:"deployment,omitempty"`

	// apiVersion is the Azure OpenAI API version, e.g. 2024-10-21.
	// +required
	// +kubebuilder:validation:Pattern=`^[0-9]{4}-[0-9]{2}-[0-9]{2}(-preview)?$`
	APIVersion string `json:"apiVersion,omitempty"`

	// tokenSecretRef selects a Secret key holding a Microsoft Entra access token, sent instead
	// of an api-key (keep it fresh: a change of the Secret rolls the pods).
	// +optional
	TokenSecretRef *SecretKeyRef `json:"tokenSecretRef,omitempty"`
}

// Merged is the model an Agent that references this ModelConfig calls: the ModelConfig's
// provider, endpoint and credentials, its defaults under the Agent's own settings (own: the
// Agent's spec.model, whose endpoint fields CEL keeps empty). The result has no configRef, so
// the runtime reads it like an inline model.
func (c *ModelConfigSpec) Merged(own ModelSpec) ModelSpec {
	out := ModelSpec{
		Provider: c.Provider,
		Name:     cmp.Or(own.Name, c.Model),
		BaseURL:  c.BaseURL,
		ModelSettings: ModelSettings{
			Temperature: cmp.Or(own.Temperature, c.Temperature),
			TopP:        cmp.Or(own.TopP, c.TopP),
			MaxTokens:   firstSet(own.MaxTokens, c.MaxTokens),
			Timeout:     firstSet(own.Timeout, c.Timeout),
			MaxRetries:  firstSet(own.MaxRetries, c.MaxRetries),
		},
	}
	if c.APIKeySecretRef != nil {
		out.APIKeySecretRef = c.APIKeySecretRef.DeepCopy()
	}
	if c.Azure != nil {
		out.Azure = c.Azure.DeepCopy()
	}
	return out
}

func firstSet[T any](own, fallback *T) *T {
	if own != nil {
		v := *own
		return &v
	}
	if fallback != nil {
		v := *fallback
		return &v
	}
	return nil
}
