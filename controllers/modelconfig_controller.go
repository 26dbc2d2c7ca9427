package controllers

import (
	"context"
	"fmt"
	"net/url"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/agentry-dev/agentry/api/v1alpha1"
)

// ModelConfigReconciler reports whether a ModelConfig can be used (its credential's Secret and
// key exist, its URL has a host) and how many Agents use it. Rolling those Agents is the Agent
// controller's part: it watches ModelConfigs and their Secrets itself.
type ModelConfigReconciler struct {
	client.Client
	Recorder events.EventRecorder
}

// +kubebuilder:rbac:groups=agentry.dev,resources=modelconfigs,verbs=get;list;watch
// +kubebuilder:rbac:groups=agentry.dev,resources=modelconfigs/status,verbs=get;update;patch

// Reconcile checks one ModelConfig and counts its Agents.
func (r *ModelConfigReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var mc v1alpha1.ModelConfig
	if err := r.Get(ctx, req.NamespacedName, &mc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	original := mc.DeepCopy()
	ready, err := r.readiness(ctx, &mc)
	if err != nil {
		return ctrl.Result{}, err
	}
	var agents v1alpha1.AgentList
	if err := r.List(ctx, &agents, client.InNamespace(mc.Namespace), client.MatchingFields{IndexModelConfigRefs: mc.Name}); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to list agents of model config %q: %w", mc.Name, err)
	}
	meta.SetStatusCondition(&mc.Status.Conditions, ready)
	mc.Status.ObservedGeneration = mc.Generation
	mc.Status.Agents = int32(len(agents.Items))
	return ctrl.Result{}, statusPatcher{client: r.Client, recorder: r.Recorder}.patch(ctx, original, &mc)
}

// readiness is Ready: the URL and then the credential, which the Agents' pods read from the
// ModelConfig's namespace. Only names and keys are read into messages, never a value.
func (r *ModelConfigReconciler) readiness(ctx context.Context, mc *v1alpha1.ModelConfig) (metav1.Condition, error) {
	cond := metav1.Condition{Type: v1alpha1.ConditionReady, ObservedGeneration: mc.Generation}
	if mc.Spec.BaseURL != "" {
		if u, err := url.Parse(mc.Spec.BaseURL); err != nil || u.Hostname() == "" {
			cond.Status, cond.Reason = metav1.ConditionFalse, v1alpha1.ReasonInvalidURL
			cond.Message = fmt.Sprintf("spec.baseURL %q is not a URL with a host, e.g. http://vllm.models:8000/v1", mc.Spec.BaseURL)
			return cond, nil
		}
	}
	data := map[string]map[string][]byte{}
	missing := map[string]bool{}
	for _, name := range modelConfigSecretNames(mc) {
		var secret corev1.Secret
		err := r.Get(ctx, types.NamespacedName{Namespace: mc.Namespace, Name: name}, &secret)
		if apierrors.IsNotFound(err) {
			missing[name] = true
			continue
		}
		if err != nil {
			return cond, fmt.Errorf("failed to get secret %q: %w", name, err)
		}
		data[name] = secret.Data
	}
	m := mc.Spec.Merged(v1alpha1.ModelSpec{})
	c := modelCredential(m, mc.Namespace, "spec", data, missing)
	cond.Status, cond.Reason, cond.Message = c.Status, c.Reason, c.Message
	return cond, nil
}

// SetupWithManager watches ModelConfigs, their Secrets (by metadata) and the Agents that name
// them (for the count).
func (r *ModelConfigReconciler) SetupWithManager(mgr ctrl.Manager) error {
	c := mgr.GetClient()
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.ModelConfig{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			var out []reconcile.Request
			for _, mc := range modelConfigsBySecret(ctx, c, o) {
				out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: mc.Namespace, Name: mc.Name}})
			}
			return out
		})).
		Watches(&v1alpha1.Agent{}, agentModelConfigs{}).
		Named("modelconfig").
		Complete(r)
}

// agentModelConfigs enqueues the ModelConfig an Agent names, and on an update the one it named
// before too: both counts change when an Agent moves from one to another.
type agentModelConfigs struct{}

type modelConfigQueue = workqueue.TypedRateLimitingInterface[reconcile.Request]

func (agentModelConfigs) add(q modelConfigQueue, o client.Object) {
	if a, ok := o.(*v1alpha1.Agent); ok && a.Spec.Model.ConfigRef != nil {
		q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: a.Namespace, Name: a.Spec.Model.ConfigRef.Name}})
	}
}

func (h agentModelConfigs) Create(_ context.Context, e event.CreateEvent, q modelConfigQueue) {
	h.add(q, e.Object)
}

func (h agentModelConfigs) Update(_ context.Context, e event.UpdateEvent, q modelConfigQueue) {
	if e.ObjectOld.GetGeneration() == e.ObjectNew.GetGeneration() {
		return // a status change: the reference is the same
	}
	h.add(q, e.ObjectOld)
	h.add(q, e.ObjectNew)
}

func (h agentModelConfigs) Delete(_ context.Context, e event.DeleteEvent, q modelConfigQueue) {
	h.add(q, e.Object)
}

func (agentModelConfigs) Generic(context.Context, event.GenericEvent, modelConfigQueue) {}
