package controllers

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// ToolReconciler sets a Tool's Valid condition: its schemas compile and its CEL expression
// compiles and type-checks (the same checks the runtime makes at start-up).
type ToolReconciler struct {
	client.Client
	Recorder events.EventRecorder
}

// +kubebuilder:rbac:groups=agentry.dev,resources=tools,verbs=get;list;watch
// +kubebuilder:rbac:groups=agentry.dev,resources=tools/status,verbs=get;update;patch

// Reconcile validates one Tool.
func (r *ToolReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var t v1alpha1.Tool
	if err := r.Get(ctx, req.NamespacedName, &t); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	original := t.DeepCopy()
	_, errs := tools.Compile(&t, tools.Options{})
	cond := validCondition(t.Generation, errs, map[string]string{
		"spec.inputSchema": v1alpha1.ReasonInvalidSchema, "spec.outputSchema": v1alpha1.ReasonInvalidSchema,
		"spec.execute.cel": v1alpha1.ReasonInvalidCEL, "spec.execute.http": v1alpha1.ReasonInvalidHTTP,
	})
	meta.SetStatusCondition(&t.Status.Conditions, cond)
	t.Status.ObservedGeneration = t.Generation
	return ctrl.Result{}, patchValidStatus(ctx, r.Client, r.Recorder, original, &t, original.Status.Conditions, t.Status.Conditions)
}

// validCondition turns compile errors into the Valid condition; the reason comes from the
// first error's field.
func validCondition(gen int64, errs field.ErrorList, reasons map[string]string) metav1.Condition {
	c := metav1.Condition{Type: v1alpha1.ConditionValid, ObservedGeneration: gen, Status: metav1.ConditionTrue, Reason: v1alpha1.ReasonValid, Message: "valid"}
	if len(errs) == 0 {
		return c
	}
	c.Status, c.Reason = metav1.ConditionFalse, v1alpha1.ReasonInvalidSchema
	for prefix, reason := range reasons {
		if strings.HasPrefix(errs[0].Field, prefix) {
			c.Reason = reason
		}
	}
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	c.Message = strings.Join(msgs, "; ")
	return c
}

// patchValidStatus writes status when it changed and records a Valid transition.
func patchValidStatus(ctx context.Context, c client.Client, rec events.EventRecorder, original, obj client.Object, before, after []metav1.Condition) error {
	if equality.Semantic.DeepEqual(before, after) && statusGen(original) == statusGen(obj) {
		return nil
	}
	if err := c.Status().Patch(ctx, obj, client.MergeFrom(original)); err != nil {
		return fmt.Errorf("failed to patch status of %T %q: %w", obj, obj.GetName(), err)
	}
	now := meta.FindStatusCondition(after, v1alpha1.ConditionValid)
	old := meta.FindStatusCondition(before, v1alpha1.ConditionValid)
	if rec != nil && now != nil && (old == nil || old.Status != now.Status || old.Message != now.Message) {
		typ := corev1.EventTypeNormal
		if now.Status != metav1.ConditionTrue {
			typ = corev1.EventTypeWarning
		}
		rec.Eventf(obj, nil, typ, now.Reason, "Validate", "%s", now.Message)
	}
	return nil
}

func statusGen(obj client.Object) int64 {
	switch o := obj.(type) {
	case *v1alpha1.Tool:
		return o.Status.ObservedGeneration
	case *v1alpha1.FrontendAction:
		return o.Status.ObservedGeneration
	}
	return 0
}

// SetupWithManager watches Tools.
func (r *ToolReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.Tool{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r)
}

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
	return ctrl.Result{}, patchValidStatus(ctx, r.Client, r.Recorder, original, &f, original.Status.Conditions, f.Status.Conditions)
}

// SetupWithManager watches FrontendActions.
func (r *FrontendActionReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.FrontendAction{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r)
}
