package controllers

import (
	"context"
	"fmt"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
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
	return reconcileCheck(ctx, r.Client, r.Recorder, &r.cards, checked[*v1alpha1.RemoteAgentCard, *v1alpha1.RemoteAgent]{
		action: "ReadCard", pending: "reading the agent's card", interval: r.interval(),
		headers: func(ra *v1alpha1.RemoteAgent) *v1alpha1.LocalObjectReference { return ra.Spec.HeadersSecretRef },
		status: func(ra *v1alpha1.RemoteAgent) (*[]metav1.Condition, *int64) {
			return &ra.Status.Conditions, &ra.Status.ObservedGeneration
		},
		check: func(ra *v1alpha1.RemoteAgent, headers map[string]string) func(context.Context) (*v1alpha1.RemoteAgentCard, error) {
			spec := ra.Spec
			return func(ctx context.Context) (*v1alpha1.RemoteAgentCard, error) {
				ctx, cancel := context.WithTimeout(ctx, spec.EffectiveTimeout())
				defer cancel()
				return readCard(ctx, r.HTTPClient, spec.URL, headers)
			}
		},
		classify: classifyCardError,
		apply:    applyCard,
	}, req, &v1alpha1.RemoteAgent{})
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
