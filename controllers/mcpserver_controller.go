package controllers

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/protocol/mcpclient"
)

// DefaultMCPDiscoveryInterval is how often a server's tools are listed again.
const DefaultMCPDiscoveryInterval = 5 * time.Minute

// MCPServerReconciler lists each MCPServer's tools into its status. Discovery runs outside the
// reconcile, in a goroutine per server bounded by the server's timeout: a reconcile starts it
// and returns, the result comes back as an event, and the next reconcile writes it. A slow or
// hanging server therefore never holds a worker, nor delays any other object.
type MCPServerReconciler struct {
	client.Client
	Recorder events.EventRecorder
	// Interval is how often tools are listed again (default DefaultMCPDiscoveryInterval).
	Interval time.Duration
	// HTTPClient makes the discovery connections (egress-guarded; see NewManager).
	HTTPClient *http.Client
	// Version is sent to servers as the client's version.
	Version string

	discoveries discoverer[*mcpclient.Discovery]
}

// +kubebuilder:rbac:groups=agentry.dev,resources=mcpservers,verbs=get;list;watch
// +kubebuilder:rbac:groups=agentry.dev,resources=mcpservers/status,verbs=get;update;patch

// Reconcile starts or reads the discovery of one MCPServer and writes its status.
func (r *MCPServerReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return reconcileCheck(ctx, r.Client, r.Recorder, &r.discoveries, checked[*mcpclient.Discovery, *v1alpha1.MCPServer]{
		action: "Discover", pending: "listing the server's tools", interval: r.interval(),
		headers: func(m *v1alpha1.MCPServer) *v1alpha1.LocalObjectReference { return m.Spec.HeadersSecretRef },
		status: func(m *v1alpha1.MCPServer) (*[]metav1.Condition, *int64) {
			return &m.Status.Conditions, &m.Status.ObservedGeneration
		},
		check: func(m *v1alpha1.MCPServer, headers map[string]string) func(context.Context) (*mcpclient.Discovery, error) {
			server := mcpclient.FromSpec(m.Spec, headers, r.HTTPClient, r.Version)
			allow := append([]string(nil), m.Spec.Tools...)
			return func(ctx context.Context) (*mcpclient.Discovery, error) { return mcpclient.Discover(ctx, server, allow) }
		},
		classify: mcpclient.Classify,
		apply:    r.apply,
	}, req, &v1alpha1.MCPServer{})
}

func readyCondition(gen int64, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: v1alpha1.ConditionReady, ObservedGeneration: gen, Status: status, Reason: reason, Message: msg}
}

func (r *MCPServerReconciler) interval() time.Duration {
	if r.Interval <= 0 {
		return DefaultMCPDiscoveryInterval
	}
	return r.Interval
}

// headersFrom reads a headers Secret: its data (for the discovery only, never written anywhere)
// and resourceVersion. A missing Secret is a verdict, not an error.
func headersFrom(ctx context.Context, c client.Client, namespace string, ref *v1alpha1.LocalObjectReference) (map[string]string, string, *mcpclient.Error, error) {
	if ref == nil {
		return nil, "", nil, nil
	}
	var s corev1.Secret
	err := c.Get(ctx, types.NamespacedName{Namespace: namespace, Name: ref.Name}, &s)
	if apierrors.IsNotFound(err) {
		return nil, "", &mcpclient.Error{Reason: v1alpha1.ReasonSecretNotFound,
			Message: fmt.Sprintf("headers Secret %q not found in namespace %q; create it (keys are header names, e.g. Authorization) or change spec.headersSecretRef", ref.Name, namespace)}, nil
	}
	if err != nil {
		return nil, "", nil, fmt.Errorf("failed to get secret %q: %w", ref.Name, err)
	}
	h := make(map[string]string, len(s.Data))
	for k, v := range s.Data {
		h[k] = strings.TrimSpace(string(v))
	}
	return h, s.ResourceVersion, nil, nil
}

// apply writes a finished discovery into the status and returns the Ready condition.
func (r *MCPServerReconciler) apply(m *v1alpha1.MCPServer, d *discovery[*mcpclient.Discovery]) metav1.Condition {
	if d.err != nil {
		// The tools of the last good discovery stay: agents keep them through an outage.
		return readyCondition(m.Generation, metav1.ConditionFalse, d.err.Reason, d.err.Message)
	}
	m.Status.Tools = d.result.Tools
	m.Status.ToolCount = int32(len(d.result.Tools))
	at := metav1.NewTime(d.at.Truncate(time.Second))
	m.Status.LastDiscoveryTime = &at
	msg := fmt.Sprintf("%d tools listed", len(d.result.Tools))
	if len(d.result.Missing) > 0 {
		msg += fmt.Sprintf("; spec.tools names tools the server does not offer: %s", strings.Join(d.result.Missing, ", "))
	}
	return readyCondition(m.Generation, metav1.ConditionTrue, v1alpha1.ReasonDiscovered, msg)
}

// SetupWithManager watches MCPServers, their headers Secrets (by metadata) and the results of
// discoveries.
func (r *MCPServerReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.discoveries.newObject = func() client.Object { return &v1alpha1.MCPServer{} }
	if err := r.discoveries.setup(mgr); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.MCPServer{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(mcpServersBySecret(mgr.GetClient()))).
		WatchesRawSource(r.discoveries.source()).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		Complete(r)
}
