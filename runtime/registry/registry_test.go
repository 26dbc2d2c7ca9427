package registry

import (
	"testing"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

// TestAzureModelConfig: provider azure-openai becomes openai-go's Azure settings, the
// deployment defaulting to the model name, the token from the environment the operator sets
// or from the Secret `agentry serve` reads locally; a missing credential is required.
func TestAzureModelConfig(t *testing.T) {
	agent := func(az *v1alpha1.AzureOpenAISpec, key *v1alpha1.SecretKeyRef) *v1alpha1.Agent {
		a := &v1alpha1.Agent{}
		a.Spec.Model = v1alpha1.ModelSpec{Provider: v1alpha1.ModelProviderAzureOpenAI, Name: "gpt-4o", Azure: az, APIKeySecretRef: key}
		return a
	}
	env := map[string]string{}
	opts := Options{Getenv: func(k string) string { return env[k] }, Secrets: secrets.Static{"entra": {"token": "from-secret"}, "azkey": {"key": "k1"}}}

	cfg, err := modelConfig(agent(&v1alpha1.AzureOpenAISpec{Endpoint: "https://r.openai.azure.com", APIVersion: "2024-10-21"}, &v1alpha1.SecretKeyRef{Name: "azkey", Key: "key"}), opts)
	if err != nil || cfg.Azure == nil || cfg.Azure.Deployment != "gpt-4o" || cfg.Azure.Endpoint != "https://r.openai.azure.com" || cfg.APIKey != "k1" || cfg.Azure.Token != "" {
		t.Errorf("api-key: %+v %+v %v", cfg, cfg.Azure, err)
	}
	tokenRef := &v1alpha1.AzureOpenAISpec{Endpoint: "https://r.openai.azure.com", Deployment: "d", APIVersion: "2024-10-21", TokenSecretRef: &v1alpha1.SecretKeyRef{Name: "entra", Key: "token"}}
	if cfg, _ := modelConfig(agent(tokenRef, nil), opts); cfg.Azure.Token != "from-secret" || cfg.Azure.Deployment != "d" || cfg.KeyRequired {
		t.Errorf("token from the Secret: %+v", cfg.Azure)
	}
	env[llm.AzureTokenEnv] = "from-env"
	if cfg, _ := modelConfig(agent(tokenRef, nil), opts); cfg.Azure.Token != "from-env" {
		t.Errorf("token from the environment: %+v", cfg.Azure)
	}
	if cfg, _ := modelConfig(agent(&v1alpha1.AzureOpenAISpec{Endpoint: "https://r.openai.azure.com", APIVersion: "2024-10-21"}, nil), opts); !cfg.KeyRequired {
		t.Error("an Azure model without a credential does not require one")
	}
}
