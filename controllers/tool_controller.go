package controllers

import (
	"context"
	"strings"

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

// toolReasons are the Valid reasons by the field of a Tool's first error.
var toolReasons = map[string]string{
	"spec.inputSchema": v1alpha1.ReasonInvalidSchema, "spec.outputSchema": v1alpha1.ReasonInvalidSchema,
	"spec.execute.cel": v1alpha1.ReasonInvalidCEL, "spec.execute.http": v1alpha1.ReasonInvalidHTTP,
}

// Reconcile validates one Tool.
func (r *ToolReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var t v1alpha1.Tool
	if err := r.Get(ctx, req.NamespacedName, &t); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	original := t.DeepCopy()
	_, errs := tools.Compile(&t, tools.Options{})
	meta.SetStatusCondition(&t.Status.Conditions, validCondition(t.Generation, errs, toolReasons))
	t.Status.ObservedGeneration = t.Generation
	return ctrl.Result{}, validPatcher(r.Client, r.Recorder).patch(ctx, original, &t)
}

// validPatcher writes the status of Tools and FrontendActions: a Validate event when Valid
// changes, also when only its message (the list of errors) does.
func validPatcher(c client.Client, rec events.EventRecorder) statusPatcher {
	return statusPatcher{client: c, recorder: rec, action: "Validate", messages: true}
}

// validCondition turns compile errors into the Valid condition of a Tool or FrontendAction; the
// reason comes from the first error's field.
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

// SetupWithManager watches Tools.
func (r *ToolReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.Tool{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r)
}
