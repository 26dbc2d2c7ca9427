package controllers

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers/render"
	"github.com/agentry-dev/agentry/runtime/llm"
)

// waitModelConfig waits until the ModelConfig's Ready has the status and reason for its
// generation, its message holds contains, and it counts agents Agents.
func waitModelConfig(t *testing.T, ns, name string, status metav1.ConditionStatus, reason string, agents int32, contains string) {
	t.Helper()
	eventually(t, fmt.Sprintf("ModelConfig %s/%s Ready=%s (%s), %d agents", ns, name, status, reason, agents), func() error {
		var mc v1alpha1.ModelConfig
		if err := k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &mc); err != nil {
			return err
		}
		c := meta.FindStatusCondition(mc.Status.Conditions, v1alpha1.ConditionReady)
		if c == nil || c.Status != status || c.Reason != reason || c.ObservedGeneration != mc.Generation || mc.Status.Agents != agents || !strings.Contains(c.Message, contains) {
			return fmt.Errorf("status %+v", mc.Status)
		}
		return nil
	})
}

// TestModelConfigSharedByAgents: Agents take their model from the ModelConfig they name, their
// own settings over its defaults; the ModelConfig says whether its credential exists and how
// many Agents use it; a missing ModelConfig is reported and nothing is deployed; and a key
// rotation in its Secret, or an edit of it, rolls exactly the Agents that use it.
func TestModelConfigSharedByAgents(t *testing.T) {
	ns := "t-modelconfig"
	create(t, ns, strings.Join([]string{
		modelConfigDoc("shared", "  model: base-model\n  baseURL: http://models.example:8000/v1\n  apiKeySecretRef: {name: model-key, key: apiKey}\n  temperature: \"0.2\""),
		modelConfigDoc("other", "  model: small-model\n  baseURL: http://other.example:8000/v1"),
		agentDoc("first", "  instructions: one\n  model: {configRef: {name: shared}}"),
		agentDoc("second", "  instructions: two\n  model: {configRef: {name: shared}, name: own-model, temperature: \"0.9\"}"),
		agentDoc("third", "  instructions: three\n  model: {configRef: {name: other}}"),
		agentDoc("orphan", "  instructions: four\n  model: {configRef: {name: later}}"),
	}, "\n---\n"))

	// No Secret yet: the ModelConfig and its Agents say which one to create, in which object.
	waitModelConfig(t, ns, "shared", metav1.ConditionFalse, v1alpha1.ReasonSecretNotFound, 2, `Secret "model-key" not found`)
	waitCondition(t, ns, "first", v1alpha1.ConditionModelSecretResolved, metav1.ConditionFalse, v1alpha1.ReasonSecretNotFound, `the spec of ModelConfig "shared".apiKeySecretRef.name`)
	waitModelConfig(t, ns, "other", metav1.ConditionTrue, v1alpha1.ReasonNotRequired, 1, "called without a key")
	orphan := waitCondition(t, ns, "orphan", v1alpha1.ConditionModelSecretResolved, metav1.ConditionFalse, v1alpha1.ReasonModelConfigNotFound, `ModelConfig "later" does not exist`)
	if c := condition(orphan, v1alpha1.ConditionReady); c.Status != metav1.ConditionFalse {
		t.Errorf("an Agent without its ModelConfig is Ready: %+v", c)
	}
	if err := k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: render.ChildName("orphan")}, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Errorf("an Agent without its ModelConfig got a config: %v", err)
	}

	secret(t, ns, "model-key", map[string]string{"apiKey": apiKey})
	waitModelConfig(t, ns, "shared", metav1.ConditionTrue, v1alpha1.ReasonResolved, 2, `Secret "model-key" has key "apiKey"`)
	waitCondition(t, ns, "first", v1alpha1.ConditionModelSecretResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	waitCondition(t, ns, "second", v1alpha1.ConditionModelSecretResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	first, firstDep := waitRolled(t, ns, "first")
	second, _ := waitRolled(t, ns, "second")
	third, thirdDep := waitRolled(t, ns, "third")
	if first.Status.Model != "base-model" || second.Status.Model != "own-model" || third.Status.Model != "small-model" {
		t.Errorf("status.model: %q %q %q", first.Status.Model, second.Status.Model, third.Status.Model)
	}
	if !fromSecret(firstDep.Spec.Template.Spec.Containers[0], llm.APIKeyEnv, "model-key", "apiKey") {
		t.Errorf("the ModelConfig's key does not reach the pods: %+v", firstDep.Spec.Template.Spec.Containers[0].Env)
	}
	reg, _, data := renderedRegistry(t, ns, "second")
	if e, _ := reg.Get("second"); e.Agent.Model.ModelID() != "own-model" {
		t.Errorf("second calls %q", e.Agent.Model.ModelID())
	}
	_ = reg.Close()
	for _, want := range []string{"baseURL: http://models.example:8000/v1", `temperature: "0.9"`, "name: model-key"} {
		if !strings.Contains(data, want) {
			t.Errorf("the rendered config lacks %q:\n%s", want, data)
		}
	}
	if strings.Contains(data, "configRef") || strings.Contains(data, apiKey) {
		t.Errorf("the rendered config holds a configRef or the key:\n%s", data)
	}

	// A key rotation rolls the two Agents that use the ModelConfig, not the third.
	modify(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "model-key"}}, false, func(s *corev1.Secret) { s.StringData = map[string]string{"apiKey": "sk-rotated"} })
	for _, a := range []*v1alpha1.Agent{first, second} {
		eventually(t, a.Name+" to roll on the key rotation", func() error {
			if h := deployment(t, ns, a.Name).Spec.Template.Annotations[render.AnnotationConfigHash]; h == a.Status.ConfigHash {
				return fmt.Errorf("hash still %s", h)
			}
			return nil
		})
	}
	// Another endpoint for the one Agent on "other": only it rolls.
	modify(t, &v1alpha1.ModelConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "other"}}, false, func(mc *v1alpha1.ModelConfig) {
		mc.Spec.BaseURL = "http://moved.example:8000/v1"
	})
	eventually(t, "third to roll on its ModelConfig's edit", func() error {
		if h := deployment(t, ns, "third").Spec.Template.Annotations[render.AnnotationConfigHash]; h == third.Status.ConfigHash {
			return fmt.Errorf("hash still %s", h)
		}
		return nil
	})
	if _, _, data := renderedRegistry(t, ns, "third"); !strings.Contains(data, "http://moved.example:8000/v1") {
		t.Errorf("third's config lacks the new URL:\n%s", data)
	}
	if d := deployment(t, ns, "third"); d.Generation == thirdDep.Generation {
		t.Error("third's Deployment did not change")
	}
	rolledFirst, _ := waitRolled(t, ns, "first")
	if _, _, data := renderedRegistry(t, ns, "first"); strings.Contains(data, "moved.example") {
		t.Error("first got the other ModelConfig's URL")
	}
	if d := deployment(t, ns, "first"); d.Spec.Template.Annotations[render.AnnotationConfigHash] != rolledFirst.Status.ConfigHash {
		t.Error("first rolled again on another ModelConfig's edit")
	}

	// The missing ModelConfig arrives: the orphan is deployed. An Agent moving from one
	// ModelConfig to another changes both counts.
	create(t, ns, modelConfigDoc("later", "  model: late-model\n  baseURL: http://late.example:8000/v1"))
	waitRolled(t, ns, "orphan")
	updateAgent(t, ns, "second", func(a *v1alpha1.Agent) { a.Spec.Model.ConfigRef.Name = "other" })
	waitModelConfig(t, ns, "shared", metav1.ConditionTrue, v1alpha1.ReasonResolved, 1, "")
	waitModelConfig(t, ns, "other", metav1.ConditionTrue, v1alpha1.ReasonNotRequired, 2, "")

	// A key the Secret lacks.
	modify(t, &v1alpha1.ModelConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shared"}}, false, func(mc *v1alpha1.ModelConfig) {
		mc.Spec.APIKeySecretRef.Key = "token"
	})
	waitModelConfig(t, ns, "shared", metav1.ConditionFalse, v1alpha1.ReasonSecretKeyMissing, 1, `Secret "model-key" has no key "token"`)
	waitCondition(t, ns, "first", v1alpha1.ConditionModelSecretResolved, metav1.ConditionFalse, v1alpha1.ReasonSecretKeyMissing, `no key "token"`)
	noEventHolds(t, ns, "shared", apiKey)
}
