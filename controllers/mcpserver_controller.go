package controllers

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/protocol/mcpclient"
)

// DefaultMCPDiscoveryInterval is how often a server's tools are listed again.
const DefaultMCPDiscoveryInterval = 5 * time.Minute

// maxConcurrentDiscoveries bounds the discoveries in flight (a goroutine and a connection
// each). Each ends within its server's timeout, so a hanging server holds one slot for that
// long and no reconcile at all; only more hanging servers than slots make others queue.
const maxConcurrentDiscoveries = 64

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

	mu      sync.Mutex
	state   map[types.NamespacedName]*discovery
	results chan event.GenericEvent
	slots   chan struct{}
	done    chan struct{} // closed when the manager stops
}

// discovery is the latest discovery of one server, running or done.
type discovery struct {
	// inputs identifies what it was started with: the generation and the headers Secret's
	// resourceVersion. A result for other inputs is stale.
	inputs  string
	running bool
	cancel  context.CancelFunc
	at      time.Time
	result  *mcpclient.Discovery
	err     *mcpclient.Error
}

// +kubebuilder:rbac:groups=agentry.dev,resources=mcpservers,verbs=get;list;watch
// +kubebuilder:rbac:groups=agentry.dev,resources=mcpservers/status,verbs=get;update;patch

// Reconcile starts or reads the discovery of one MCPServer and writes its status.
func (r *MCPServerReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var m v1alpha1.MCPServer
	if err := r.Get(ctx, req.NamespacedName, &m); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	original := m.DeepCopy()
	headers, secretVersion, secretErr, err := r.headers(ctx, &m)
	if err != nil {
		return ctrl.Result{}, err
	}
	inputs := fmt.Sprintf("%d/%s", m.Generation, secretVersion)

	var requeue time.Duration
	var cond metav1.Condition
	switch d := r.current(req.NamespacedName); {
	case secretErr != nil:
		r.forget(req.NamespacedName)
		cond = readyCondition(m.Generation, metav1.ConditionFalse, secretErr.Reason, secretErr.Message)
	case d != nil && d.inputs == inputs && !d.running && time.Since(d.at) < r.interval():
		cond = r.apply(&m, d)
		requeue = r.interval() - time.Since(d.at)
	case d != nil && d.inputs == inputs && d.running:
		return ctrl.Result{}, nil // its result will wake us
	default:
		r.start(req.NamespacedName, &m, headers, inputs)
		if ready := meta.FindStatusCondition(m.Status.Conditions, v1alpha1.ConditionReady); ready != nil && ready.ObservedGeneration == m.Generation {
			return ctrl.Result{}, nil // keep the last verdict until the new one comes
		}
		cond = readyCondition(m.Generation, metav1.ConditionUnknown, v1alpha1.ReasonDiscovering, "listing the server's tools")
	}
	meta.SetStatusCondition(&m.Status.Conditions, cond)
	m.Status.ObservedGeneration = m.Generation
	if err := (statusPatcher{client: r.Client, recorder: r.Recorder, action: "Discover"}).patch(ctx, original, &m); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: requeue}, nil
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

// headers reads the headers Secret: its data (for the discovery only, never written anywhere)
// and resourceVersion. A missing Secret is a verdict, not an error.
func (r *MCPServerReconciler) headers(ctx context.Context, m *v1alpha1.MCPServer) (map[string]string, string, *mcpclient.Error, error) {
	ref := m.Spec.HeadersSecretRef
	if ref == nil {
		return nil, "", nil, nil
	}
	var s corev1.Secret
	err := r.Get(ctx, types.NamespacedName{Namespace: m.Namespace, Name: ref.Name}, &s)
	if apierrors.IsNotFound(err) {
		return nil, "", &mcpclient.Error{Reason: v1alpha1.ReasonSecretNotFound,
			Message: fmt.Sprintf("headers Secret %q not found in namespace %q; create it (keys are header names, e.g. Authorization) or change spec.headersSecretRef", ref.Name, m.Namespace)}, nil
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

func (r *MCPServerReconciler) current(key types.NamespacedName) *discovery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state[key]
}

func (r *MCPServerReconciler) forget(key types.NamespacedName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d := r.state[key]; d != nil && d.cancel != nil {
		d.cancel()
	}
	delete(r.state, key)
}

// start runs a discovery in the background, replacing one with other inputs.
func (r *MCPServerReconciler) start(key types.NamespacedName, m *v1alpha1.MCPServer, headers map[string]string, inputs string) {
	ctx, cancel := context.WithCancel(context.Background())
	d := &discovery{inputs: inputs, running: true, cancel: cancel}
	r.mu.Lock()
	if old := r.state[key]; old != nil && old.cancel != nil {
		old.cancel()
	}
	r.state[key] = d
	r.mu.Unlock()
	server := mcpclient.FromSpec(m.Spec, headers, r.HTTPClient, r.Version)
	allow := append([]string(nil), m.Spec.Tools...)
	go func() {
		defer cancel()
		select {
		case r.slots <- struct{}{}:
			defer func() { <-r.slots }()
		case <-ctx.Done():
			return
		}
		res, err := mcpclient.Discover(ctx, server, allow)
		if ctx.Err() != nil {
			return // replaced or deleted
		}
		r.mu.Lock()
		d.running, d.at, d.result = false, time.Now(), res
		if err != nil {
			d.err = mcpclient.Classify(err)
		}
		r.mu.Unlock()
		obj := &v1alpha1.MCPServer{}
		obj.Namespace, obj.Name = key.Namespace, key.Name
		select {
		case r.results <- event.GenericEvent{Object: obj}:
		case <-r.done:
		}
	}()
}

// apply writes a finished discovery into the status and returns the Ready condition.
func (r *MCPServerReconciler) apply(m *v1alpha1.MCPServer, d *discovery) metav1.Condition {
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
	r.state = map[types.NamespacedName]*discovery{}
	r.results = make(chan event.GenericEvent, 64)
	r.slots = make(chan struct{}, maxConcurrentDiscoveries)
	r.done = make(chan struct{})
	// On shutdown, discoveries in flight are canceled and none waits to report.
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		<-ctx.Done()
		r.mu.Lock()
		for _, d := range r.state {
			if d.cancel != nil {
				d.cancel()
			}
		}
		r.mu.Unlock()
		close(r.done)
		return nil
	})); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.MCPServer{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(mcpServersBySecret(mgr.GetClient()))).
		WatchesRawSource(source.Channel(r.results, &handler.EnqueueRequestForObject{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		Complete(r)
}
