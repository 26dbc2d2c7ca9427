package controllers

import (
	"context"
	"fmt"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/agentry-dev/agentry/api/v1alpha1"
)

// DefaultRemoteAgentInterval is how often a remote agent's card is read again.
const DefaultRemoteAgentInterval = 5 * time.Minute

// RemoteAgentReconciler reads each RemoteAgent's card into its status, in the background like
// MCPServer discoveries (a hanging agent holds no worker) and again every Interval, so a card
// that changes reaches the Agents that use it.
type RemoteAgentReconciler struct {
	client.Client
	Recorder events.EventRecorder
	// Interval is how often cards are read again (default DefaultRemoteAgentInterval).
	Interval time.Duration
	// HTTPClient reads the cards (egress-guarded, no redirects; see NewManager).
	HTTPClient *http.Client

	cards discoverer[*v1alpha1.RemoteAgentCard]
}

// +kubebuilder:rbac:groups=agentry.dev,resources=remoteagents,verbs=get;list;watch
// +kubebuilder:rbac:groups=agentry.dev,resources=remoteagents/status,verbs=get;update;patch

// Reconcile starts or reads the card read of one RemoteAgent and writes its status.
func (r *RemoteAgentReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var ra v1alpha1.RemoteAgent
	if err := r.Get(ctx, req.NamespacedName, &ra); err != nil {
		if apierrors.IsNotFound(err) {
			r.cards.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	original := ra.DeepCopy()
	headers, secretVersion, secretErr, err := headersFrom(ctx, r.Client, ra.Namespace, ra.Spec.HeadersSecretRef)
	if err != nil {
		return ctrl.Result{}, err
	}
	inputs := fmt.Sprintf("%d/%s", ra.Generation, secretVersion)

	var requeue time.Duration
	var cond metav1.Condition
	step, d := r.cards.next(req.NamespacedName, inputs, r.interval())
	switch {
	case secretErr != nil:
		r.cards.forget(req.NamespacedName)
		cond = readyCondition(ra.Generation, metav1.ConditionFalse, secretErr.Reason, secretErr.Message)
	case step == stepApply:
		cond = applyCard(&ra, d)
		requeue = r.interval() - time.Since(d.at)
	case step == stepWait:
		return ctrl.Result{}, nil // its result will wake us
	default:
		spec := ra.Spec
		r.cards.start(req.NamespacedName, inputs, func(ctx context.Context) (*v1alpha1.RemoteAgentCard, error) {
			ctx, cancel := context.WithTimeout(ctx, spec.EffectiveTimeout())
			defer cancel()
			return readCard(ctx, r.HTTPClient, spec.URL, headers)
		}, classifyCardError)
		if ready := meta.FindStatusCondition(ra.Status.Conditions, v1alpha1.ConditionReady); ready != nil && ready.ObservedGeneration == ra.Generation {
			return ctrl.Result{}, nil // keep the last verdict until the new one comes
		}
		cond = readyCondition(ra.Generation, metav1.ConditionUnknown, v1alpha1.ReasonDiscovering, "reading the agent's card")
	}
	meta.SetStatusCondition(&ra.Status.Conditions, cond)
	ra.Status.ObservedGeneration = ra.Generation
	if err := (statusPatcher{client: r.Client, recorder: r.Recorder, action: "ReadCard"}).patch(ctx, original, &ra); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: requeue}, nil
}

func (r *RemoteAgentReconciler) interval() time.Duration {
	if r.Interval <= 0 {
		return DefaultRemoteAgentInterval
	}
	return r.Interval
}

// applyCard writes a finished read into the status and returns the Ready condition. A failed
// read keeps the last card: agents keep using the agent through an outage of its card.
func applyCard(ra *v1alpha1.RemoteAgent, d *discovery[*v1alpha1.RemoteAgentCard]) metav1.Condition {
	if d.err != nil {
		return readyCondition(ra.Generation, metav1.ConditionFalse, d.err.Reason, d.err.Message)
	}
	ra.Status.Card = d.result.DeepCopy()
	at := metav1.NewTime(d.at.Truncate(time.Second))
	ra.Status.LastDiscoveryTime = &at
	return readyCondition(ra.Generation, metav1.ConditionTrue, v1alpha1.ReasonDiscovered,
		fmt.Sprintf("card of %q read: endpoint %s, protocol %s, %d skills", d.result.Name, d.result.URL, d.result.ProtocolVersion, len(d.result.Skills)))
}

// SetupWithManager watches RemoteAgents, their headers Secrets (by metadata) and the results
// of card reads.
func (r *RemoteAgentReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.cards.newObject = func() client.Object { return &v1alpha1.RemoteAgent{} }
	if err := r.cards.setup(mgr); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.RemoteAgent{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(remoteAgentsBySecret(mgr.GetClient()))).
		WatchesRawSource(r.cards.source()).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		Complete(r)
}
