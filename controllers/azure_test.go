package controllers

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/runtime/llm"
)

const azureAgent = `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: azure}
spec:
  instructions: hi
  model:
    provider: azure-openai
    name: gpt-4o
    azure: {endpoint: "https://my-resource.openai.azure.com", deployment: chef-gpt4o, apiVersion: "2024-10-21"%s}%s`

// TestAzureOpenAISettings: an Azure OpenAI model without a credential says plainly what to
// add; a token Secret reaches the pod as AGENTRY_AZURE_OPENAI_TOKEN from the Secret; the API
// refuses an Azure model without its endpoint or API version, or with a baseURL.
func TestAzureOpenAISettings(t *testing.T) {
	ns := "t-azure"
	create(t, ns, strings.Replace(azureAgent, "%s}%s", "}", 1))
	a := waitCondition(t, ns, "azure", v1alpha1.ConditionModelSecretResolved, metav1.ConditionFalse, v1alpha1.ReasonCredentialsRequired)
	if msg := condition(a, v1alpha1.ConditionModelSecretResolved).Message; !strings.Contains(msg, "spec.model.apiKeySecretRef") || !strings.Contains(msg, "spec.model.azure.tokenSecretRef") {
		t.Errorf("message %q does not name both credentials", msg)
	}

	tokenAgent := strings.Replace(strings.Replace(azureAgent, "name: azure}", "name: azure-token}", 1), "%s}%s", ", tokenSecretRef: {name: entra, key: token}}", 1)
	create(t, ns, tokenAgent)
	a = waitCondition(t, ns, "azure-token", v1alpha1.ConditionModelSecretResolved, metav1.ConditionFalse, v1alpha1.ReasonSecretNotFound)
	if msg := condition(a, v1alpha1.ConditionModelSecretResolved).Message; !strings.Contains(msg, "spec.model.azure.tokenSecretRef") {
		t.Errorf("message %q does not name the token reference", msg)
	}
	secret(t, ns, "entra", map[string]string{"token": "eyJ-entra"})
	waitCondition(t, ns, "azure-token", v1alpha1.ConditionModelSecretResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	dep := deployment(t, ns, "azure-token")
	if !fromSecret(dep.Spec.Template.Spec.Containers[0], llm.AzureTokenEnv, "entra", "token") {
		t.Errorf("the pod does not get %s from the Secret: %+v", llm.AzureTokenEnv, dep.Spec.Template.Spec.Containers[0].Env)
	}

	for name, doc := range map[string]string{
		"no endpoint":           strings.Replace(strings.Replace(azureAgent, `endpoint: "https://my-resource.openai.azure.com", `, "", 1), "%s}%s", "}", 1),
		"no version":            strings.Replace(strings.Replace(azureAgent, `, apiVersion: "2024-10-21"`, "", 1), "%s}%s", "}", 1),
		"baseURL":               strings.Replace(azureAgent, "%s}%s", "}\n    baseURL: https://example.com/v1", 1),
		"azure block on openai": strings.Replace(strings.Replace(azureAgent, "provider: azure-openai", "provider: openai", 1), "%s}%s", "}", 1),
	} {
		obj := decode(t, strings.Replace(doc, "name: azure}", "name: bad}", 1))
		obj.SetNamespace(ns)
		if err := k8s.Create(ctx, obj); err == nil || !strings.Contains(err.Error(), "azure") {
			t.Errorf("%s: accepted, or refused without saying why: %v", name, err)
		}
	}
}
