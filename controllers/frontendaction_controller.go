package controllers

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// FrontendActionReconciler sets a FrontendAction's Valid condition: its parameters are a
// JSON Schema of the documented shape.
type FrontendActionReconciler struct {
	client.Client
	Recorder events.EventRecorder
}

// +kubebuilder:rbac:groups=agentry.dev,resources=frontendactions,verbs=get;list;watch
// +kubebuilder:rbac:groups=agentry.dev,resources=frontendactions/status,verbs=get;update;patch

// Reconcile validates one FrontendAction.
func (r *FrontendActionReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var f v1alpha1.FrontendAction
	if err := r.Get(ctx, req.NamespacedName, &f); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	original := f.DeepCopy()
	var errs field.ErrorList
	if f.Spec.Parameters != nil {
		errs = tools.ValidateParameters(f.Spec.Parameters.Raw, field.NewPath("spec", "parameters"))
	}
	meta.SetStatusCondition(&f.Status.Conditions, validCondition(f.Generation, errs, nil))
	f.Status.ObservedGeneration = f.Generation
	return ctrl.Result{}, validPatcher(r.Client, r.Recorder).patch(ctx, original, &f)
}

// SetupWithManager watches FrontendActions.
func (r *FrontendActionReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.FrontendAction{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r)
}
