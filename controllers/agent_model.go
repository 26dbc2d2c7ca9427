package controllers

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers/render"
)

// resolveModel merges the ModelConfig an Agent references into the Agent that is rendered
// (s.resolved.Agent), so the runtime reads one inline model and needs no ModelConfig of its
// own. A missing ModelConfig is ModelSecretResolved=False and nothing is rendered: the pods
// that run keep running as they are until it exists again.
func (r *AgentReconciler) resolveModel(ctx context.Context, s *agentState) error {
	a := s.agent
	ref := a.Spec.Model.ConfigRef
	if ref == nil {
		return nil
	}
	var mc v1alpha1.ModelConfig
	err := r.Get(ctx, types.NamespacedName{Namespace: a.Namespace, Name: ref.Name}, &mc)
	if apierrors.IsNotFound(err) {
		s.modelMissing = true
		s.conditions = append(s.conditions, metav1.Condition{
			Type: v1alpha1.ConditionModelSecretResolved, Status: metav1.ConditionFalse, ObservedGeneration: a.Generation,
			Reason:  v1alpha1.ReasonModelConfigNotFound,
			Message: fmt.Sprintf("ModelConfig %q does not exist in namespace %q; create it or fix spec.model.configRef.name (the pods that run are left as they are)", ref.Name, a.Namespace),
		})
		return nil
	}
	if err != nil {
		return fmt.Errorf("failed to get model config %q: %w", ref.Name, err)
	}
	merged := a.DeepCopy()
	merged.Spec.Model = mc.Spec.Merged(a.Spec.Model)
	s.resolved.Agent = merged
	return nil
}

// keepChildren is applyChildren for an Agent that cannot be rendered: it writes nothing and
// only reads the Deployment, so that Available still says what runs.
func (r *AgentReconciler) keepChildren(ctx context.Context, s *agentState) error {
	var dep appsv1.Deployment
	err := r.Get(ctx, types.NamespacedName{Namespace: s.agent.Namespace, Name: render.ChildName(s.agent.Name)}, &dep)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("failed to get deployment %q: %w", render.ChildName(s.agent.Name), err)
	}
	if metav1.IsControlledBy(&dep, s.agent) {
		s.children.deployment = &dep
	}
	return nil
}
