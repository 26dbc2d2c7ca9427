package registry

import (
	"context"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/protocol/manifest"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

// TestAzureModelConfig: provider azure-openai becomes openai-go's Azure settings, the
// deployment defaulting to the model name, the token from the environment the operator sets
// or from the Secret `agentry serve` reads locally; a missing credential is required.
func TestAzureModelConfig(t *testing.T) {
	agent := func(az *v1alpha1.AzureOpenAISpec, key *v1alpha1.SecretKeyRef) v1alpha1.ModelSpec {
		return v1alpha1.ModelSpec{Provider: v1alpha1.ModelProviderAzureOpenAI, Name: "gpt-4o", Azure: az, APIKeySecretRef: key}
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

// TestModelConfigReference: an Agent with spec.model.configRef calls the ModelConfig's
// endpoint with its key and defaults, its own settings over them; a reference to a
// ModelConfig that is not in the manifests stops the build, naming it; the CRDs' CEL rules
// refuse an Agent that sets both a reference and endpoint fields, and one that sets neither a
// name nor a reference.
func TestModelConfigReference(t *testing.T) {
	ctx := context.Background()
	loader, err := manifest.NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	const shared = `
apiVersion: agentry.dev/v1alpha1
kind: ModelConfig
metadata: {name: shared}
spec:
  model: base-model
  baseURL: http://models.example:8000/v1
  apiKeySecretRef: {name: model-key, key: apiKey}
  temperature: "0.2"
  maxTokens: 300
`
	agents := `
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: plain}
spec:
  instructions: hi
  model: {configRef: {name: shared}}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: own}
spec:
  instructions: hi
  model: {configRef: {name: shared}, name: other-model, temperature: "0.9"}
`
	set := &manifest.Set{}
	if err := loader.Decode(ctx, "m.yaml", []byte(shared+agents), set); err != nil {
		t.Fatal(err)
	}
	plain, err := modelOf(set, set.Agent("default", "plain"))
	if err != nil || plain.Name != "base-model" || plain.BaseURL != "http://models.example:8000/v1" || plain.Temperature != "0.2" ||
		plain.APIKeySecretRef == nil || plain.APIKeySecretRef.Name != "model-key" || plain.MaxTokens == nil || *plain.MaxTokens != 300 || plain.ConfigRef != nil {
		t.Errorf("plain: %+v %v", plain, err)
	}
	own, err := modelOf(set, set.Agent("default", "own"))
	if err != nil || own.Name != "other-model" || own.Temperature != "0.9" || own.BaseURL != "http://models.example:8000/v1" || *own.MaxTokens != 300 {
		t.Errorf("own settings: %+v %v", own, err)
	}
	opts := Options{Secrets: secrets.Static{"model-key": {"apiKey": "k"}}}
	reg, _, err := Build(ctx, set, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	if e, _ := reg.Get("own"); e.Agent.Model.ModelID() != "other-model" || e.Agent.Provider != "openai" {
		t.Errorf("built agent: %q %q", e.Agent.Model.ModelID(), e.Agent.Provider)
	}

	missing := &manifest.Set{}
	if err := loader.Decode(ctx, "m.yaml", []byte(agents), missing); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Build(ctx, missing, opts); err == nil || !strings.Contains(err.Error(), `ModelConfig "shared" does not exist`) {
		t.Errorf("missing ModelConfig: %v", err)
	}
	for doc, want := range map[string]string{
		`{configRef: {name: shared}, baseURL: "http://x:1/v1"}`: "come from the ModelConfig",
		`{temperature: "0.3"}`: "needs a name",
	} {
		bad := "apiVersion: agentry.dev/v1alpha1\nkind: Agent\nmetadata: {name: bad}\nspec:\n  instructions: hi\n  model: " + doc + "\n"
		if err := loader.Decode(ctx, "bad.yaml", []byte(bad), &manifest.Set{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
}
