package controllers

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers/render"
	"github.com/agentry-dev/agentry/internal/platform/telemetry"
)

var spans = telemetry.NewTracer("github.com/agentry-dev/agentry/controllers")

// AgentReconciler turns each Agent into a runtime ConfigMap, Deployment, Service and
// (optionally) Ingress, and reports in status what the user must know or do.
type AgentReconciler struct {
	client.Client
	// APIReader reads around the cache, when the cache is behind (an object we just created).
	APIReader client.Reader
	Scheme    *runtime.Scheme
	Recorder  events.EventRecorder
	Render    render.Config
	// MaxConcurrentReconciles defaults to 4.
	MaxConcurrentReconciles int
}

// +kubebuilder:rbac:groups=agentry.dev,resources=agents,verbs=get;list;watch
// +kubebuilder:rbac:groups=agentry.dev,resources=agents/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=agentry.dev,resources=agents/finalizers,verbs=update
// +kubebuilder:rbac:groups=agentry.dev,resources=tools;frontendactions,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps;services,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=networking.k8s.io,resources=ingresses,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile runs the sub-reconcilers in order and writes status once, only when it changed.
// API errors are returned (retried with backoff); problems the user must fix are conditions,
// and the watches on Tools, FrontendActions and Secrets bring the Agent back when they change.
func (r *AgentReconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, err error) {
	// One span per reconcile (when the operator exports traces): which Agent, and whether it failed.
	ctx, span := spans.Get().Start(ctx, "reconcile Agent", trace.WithAttributes(
		attribute.String("k8s.namespace.name", req.Namespace), attribute.String("agentry.agent", req.Name)))
	defer func() {
		if err != nil {
			span.SetStatus(codes.Error, "reconcile failed")
		}
		span.End()
	}()
	var agent v1alpha1.Agent
	if err := r.Get(ctx, req.NamespacedName, &agent); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !agent.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // owned objects are garbage-collected
	}
	original := agent.DeepCopy()
	result, recErr := r.reconcile(ctx, &agent)
	if recErr != nil {
		// Say why in Ready too, so `kubectl get agents` shows it while the retries go on.
		meta.SetStatusCondition(&agent.Status.Conditions, metav1.Condition{
			Type: v1alpha1.ConditionReady, Status: metav1.ConditionFalse, ObservedGeneration: agent.Generation,
			Reason: v1alpha1.ReasonReconcileFailed, Message: recErr.Error(),
		})
		agent.Status.ObservedGeneration = agent.Generation
	}
	if equality.Semantic.DeepEqual(original.Status, agent.Status) {
		return result, recErr
	}
	if err := r.Status().Patch(ctx, &agent, client.MergeFrom(original)); err != nil {
		if recErr != nil {
			return ctrl.Result{}, recErr
		}
		return ctrl.Result{}, fmt.Errorf("failed to patch status of agent %q: %w", agent.Name, err)
	}
	r.recordTransitions(original.Status.Conditions, &agent)
	return result, recErr
}

// conflictRetry is how often an Agent blocked by someone else's object looks again: that
// object carries none of our labels, so no watch of ours sees it go away.
const conflictRetry = time.Minute

// reconcile runs the sub-reconcilers and computes the status in place.
func (r *AgentReconciler) reconcile(ctx context.Context, agent *v1alpha1.Agent) (ctrl.Result, error) {
	tr, err := r.resolveTools(ctx, agent)
	if err != nil {
		return ctrl.Result{}, err
	}
	toolsCond := tr.cond
	firing := map[string]bool{}
	for _, t := range tr.tools {
		firing[t.Entry.Key] = true
	}
	for _, n := range tr.names {
		firing[n] = true
	}
	actions, actionsCond, err := r.resolveFrontendActions(ctx, agent, firing)
	if err != nil {
		return ctrl.Result{}, err
	}
	secretData, secretCond, secretProblems, err := r.resolveSecrets(ctx, agent, tr.referenced, tr.servers)
	if err != nil {
		return ctrl.Result{}, err
	}

	resolved := render.Resolved{Agent: agent, Tools: tr.tools, MCP: tr.mcp, MCPServers: tr.servers, FrontendActions: actions, SecretData: secretData}
	config, err := render.ConfigYAML(resolved)
	if err != nil {
		return ctrl.Result{}, err
	}
	hash := render.ConfigHash(config, secretData)

	children, conflictProblem, err := r.applyChildren(ctx, agent, resolved, config, hash)
	if err != nil {
		return ctrl.Result{}, err
	}
	exposedCond, endpoints, url := exposure(agent, r.Render, children.ingress)
	availableCond, readyReplicas := availability(agent, children.deployment)
	conds := []metav1.Condition{toolsCond, actionsCond, secretCond, exposedCond, availableCond}
	var result ctrl.Result
	if conflictProblem != nil {
		secretProblems = append([]problem{*conflictProblem}, secretProblems...)
		result.RequeueAfter = conflictRetry
	}
	readyCond := readiness(agent, conds, secretProblems)

	st := &agent.Status
	for _, c := range append(conds, readyCond) {
		meta.SetStatusCondition(&st.Conditions, c)
	}
	st.ObservedGeneration = agent.Generation
	st.AgentID = agent.EffectiveAgentID()
	st.Endpoints = endpoints
	st.DeploymentURL = url
	st.ReadyReplicas = readyReplicas
	st.ConfigHash = hash
	st.Storage = storageKind(agent, secretData)
	return result, nil
}

// children are the Agent's objects as they are in the cluster (nil: not there).
type children struct {
	deployment *appsv1.Deployment
	ingress    *networkingv1.Ingress
}

// applyChildren applies the ConfigMap, Deployment, Service and Ingress in that order and stops
// at the first object held by someone else: each depends on the one before (the pods mount
// the ConfigMap, the Service selects the pods, the Ingress routes to the Service), so the
// runtime never reads another owner's config and nothing public points at another owner's
// Service. A refused public endpoint (no auth) gets no Ingress, and an existing one is removed.
func (r *AgentReconciler) applyChildren(ctx context.Context, agent *v1alpha1.Agent, resolved render.Resolved, config []byte, hash string) (children, *problem, error) {
	var out children
	if _, p, err := r.apply(ctx, agent, render.ConfigMapFor(agent, config)); err != nil || p != nil {
		return out, p, err
	}
	dep, p, err := r.apply(ctx, agent, render.DeploymentFor(resolved, r.Render, hash))
	if err != nil || p != nil {
		return out, p, err
	}
	out.deployment = dep.(*appsv1.Deployment)
	if _, p, err := r.apply(ctx, agent, render.ServiceFor(agent)); err != nil || p != nil {
		return out, p, err
	}
	desired := render.IngressFor(agent, r.Render)
	if desired == nil || authRequired(agent) {
		return out, nil, r.deleteOwned(ctx, agent, &networkingv1.Ingress{})
	}
	ing, p, err := r.apply(ctx, agent, desired)
	if err != nil || p != nil {
		return out, p, err
	}
	out.ingress = ing.(*networkingv1.Ingress)
	return out, nil, nil
}

// storageKind names the memory backend for status, also when the URL is in a Secret (only
// its scheme is read).
func storageKind(a *v1alpha1.Agent, secrets map[string]map[string][]byte) string {
	m := a.Spec.Memory
	if m == nil {
		return ""
	}
	url := m.URL
	if ref := m.URLSecretRef; ref != nil {
		url = string(secrets[ref.Name][ref.Key])
	}
	switch {
	case strings.HasPrefix(url, "file:"):
		return "sqlite"
	case strings.HasPrefix(url, "postgres"):
		return "postgres"
	case strings.HasPrefix(url, "memory://"):
		return "memory"
	default:
		return "unknown"
	}
}

// recordTransitions emits an event for each condition whose status changed.
func (r *AgentReconciler) recordTransitions(before []metav1.Condition, a *v1alpha1.Agent) {
	if r.Recorder == nil {
		return
	}
	for _, c := range a.Status.Conditions {
		old := meta.FindStatusCondition(before, c.Type)
		if old != nil && old.Status == c.Status && old.Reason == c.Reason {
			continue
		}
		typ := corev1.EventTypeNormal
		if c.Status != metav1.ConditionTrue {
			typ = corev1.EventTypeWarning
		}
		r.Recorder.Eventf(a, nil, typ, c.Reason, c.Type, "%s", c.Message)
	}
}

// SetupWithManager watches Agents, what they own, and what they reference through the field
// indexes (SetupIndexes must run first).
func (r *AgentReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.MaxConcurrentReconciles == 0 {
		r.MaxConcurrentReconciles = 4
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.Agent{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&corev1.ConfigMap{}).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.Service{}).
		Owns(&networkingv1.Ingress{}).
		// Only spec changes of Tools and FrontendActions matter: the Agent checks them itself,
		// so their status updates need not wake it.
		Watches(&v1alpha1.Tool{}, handler.EnqueueRequestsFromMapFunc(agentsBy(mgr.GetClient(), IndexToolRefs)),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&v1alpha1.FrontendAction{}, handler.EnqueueRequestsFromMapFunc(agentsBy(mgr.GetClient(), IndexFrontendActionRefs)),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// An MCPServer matters through its spec and its discovered tools and readiness.
		Watches(&v1alpha1.MCPServer{}, handler.EnqueueRequestsFromMapFunc(agentsBy(mgr.GetClient(), IndexMCPServerRefs)),
			builder.WithPredicates(mcpServerChanged)).
		// Secrets by metadata only: a change bumps the resourceVersion, which is all the watch
		// needs; the few referenced Secrets are read from the API server (see NewManager), so
		// the data of every Secret in the cluster is never held in memory.
		WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(secretToAgents(mgr.GetClient()))).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.MaxConcurrentReconciles}).
		Complete(r)
}
