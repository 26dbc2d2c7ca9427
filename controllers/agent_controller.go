package controllers

import (
	"cmp"
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
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
// +kubebuilder:rbac:groups=agentry.dev,resources=tools;frontendactions;modelconfigs,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps;services,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=networking.k8s.io,resources=ingresses,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// agentState is what one reconcile learns about an Agent, filled by the steps in order.
type agentState struct {
	agent *v1alpha1.Agent
	tools *toolResolution
	// resolved is what the config is rendered from; its Agent carries the merged model when
	// spec.model.configRef names a ModelConfig, which modelMissing says is not there.
	resolved     render.Resolved
	modelMissing bool
	// conditions are ToolsResolved, FrontendActionsResolved and ModelSecretResolved, in that
	// order; problems are what Ready reports that has no condition of its own.
	conditions []metav1.Condition
	problems   []problem
	config     []byte
	hash       string
	children   children
	result     ctrl.Result
}

// agentStep is one sub-reconciler. What the user must fix is a condition or a problem and the
// steps go on (the watches bring the Agent back when it changes); an object in the way is a
// problem retried after conflictRetry; an error (an API call failed) stops the steps and is
// retried with backoff.
type agentStep func(ctx context.Context, s *agentState) error

// steps are the Agent's sub-reconcilers, in the order they run.
func (r *AgentReconciler) steps() []agentStep {
	return []agentStep{
		r.resolveTools,           // ToolsResolved: the Tools and MCP tools that fire
		r.resolveFrontendActions, // FrontendActionsResolved
		r.resolveModel,           // the ModelConfig of spec.model.configRef, merged
		r.resolveSecrets,         // ModelSecretResolved; the other Secrets' problems
		r.renderConfig,           // the runtime config and its hash
		r.applyChildren,          // ConfigMap, Deployment, Service, Ingress
		r.summarize,              // Exposed, Available, Ready and the rest of the status
	}
}

// Reconcile runs the steps over one state and writes the status once, when it changed, whatever
// the steps did: after an error only Ready changes (ReconcileFailed), and the error is returned.
func (r *AgentReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	ctx, end := startAgentSpan(ctx, req)
	defer func() { end(err) }()
	agent := &v1alpha1.Agent{}
	if err := r.Get(ctx, req.NamespacedName, agent); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !agent.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // owned objects are garbage-collected
	}
	original := agent.DeepCopy()
	defer func() {
		if err != nil {
			// Say why in Ready too, so `kubectl get agents` shows it while the retries go on.
			meta.SetStatusCondition(&agent.Status.Conditions, metav1.Condition{
				Type: v1alpha1.ConditionReady, Status: metav1.ConditionFalse, ObservedGeneration: agent.Generation,
				Reason: v1alpha1.ReasonReconcileFailed, Message: err.Error(),
			})
			agent.Status.ObservedGeneration = agent.Generation
		}
		patcher := statusPatcher{client: r.Client, recorder: r.Recorder}
		if perr := patcher.patch(ctx, original, agent); perr != nil && err == nil {
			result, err = ctrl.Result{}, perr
		}
	}()
	s := &agentState{agent: agent, resolved: render.Resolved{Agent: agent}}
	for _, step := range r.steps() {
		if err := step(ctx, s); err != nil {
			return ctrl.Result{}, err
		}
	}
	return s.result, nil
}

var spans = telemetry.NewTracer("github.com/agentry-dev/agentry/controllers")

// startAgentSpan starts the "reconcile Agent" span (exported when the operator exports traces):
// which Agent, and whether the reconcile failed (end takes its error).
func startAgentSpan(ctx context.Context, req ctrl.Request) (_ context.Context, end func(error)) {
	ctx, span := spans.Get().Start(ctx, "reconcile Agent", trace.WithAttributes(
		attribute.String("k8s.namespace.name", req.Namespace), attribute.String("agentry.agent", req.Name)))
	return ctx, func(err error) {
		if err != nil {
			span.SetStatus(codes.Error, "reconcile failed")
		}
		span.End()
	}
}

// renderConfig renders the runtime config and hashes it with the referenced Secrets' data.
func (r *AgentReconciler) renderConfig(_ context.Context, s *agentState) error {
	if s.modelMissing {
		return nil
	}
	config, err := render.ConfigYAML(s.resolved)
	if err != nil {
		return err
	}
	s.config, s.hash = config, render.ConfigHash(config, s.resolved.SecretData)
	return nil
}

// summarize computes Exposed, Available and Ready from what the steps found and puts every
// condition and the rest of the status on the Agent.
func (r *AgentReconciler) summarize(_ context.Context, s *agentState) error {
	a := s.agent
	exposedCond, endpoints, url := exposure(a, r.Render, s.children.ingress)
	availableCond, readyReplicas := availability(a, s.children.deployment)
	conds := append(s.conditions, exposedCond, availableCond)
	conds = append(conds, readiness(a, conds, s.problems))
	st := &a.Status
	for _, c := range conds {
		meta.SetStatusCondition(&st.Conditions, c)
	}
	st.ObservedGeneration = a.Generation
	st.AgentID = a.EffectiveAgentID()
	st.Endpoints = endpoints
	st.DeploymentURL = url
	st.ReadyReplicas = readyReplicas
	if !s.modelMissing { // nothing was rendered: the pods still run the last config
		st.ConfigHash = s.hash
	}
	st.Storage = storageKind(a, s.resolved.SecretData)
	st.Model = s.resolved.Agent.Spec.Model.Name
	return nil
}

// SetupWithManager watches Agents, what they own, and what they reference through the field
// indexes (SetupIndexes must run first).
func (r *AgentReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.MaxConcurrentReconciles = cmp.Or(r.MaxConcurrentReconciles, 4)
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
		// A ModelConfig's spec is part of its Agents' rendered model; its status is not.
		Watches(&v1alpha1.ModelConfig{}, handler.EnqueueRequestsFromMapFunc(agentsBy(mgr.GetClient(), IndexModelConfigRefs)),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// An MCPServer matters through its spec and its discovered tools and readiness.
		Watches(&v1alpha1.MCPServer{}, handler.EnqueueRequestsFromMapFunc(agentsBy(mgr.GetClient(), IndexMCPServerRefs)),
			builder.WithPredicates(mcpServerChanged)).
		// A RemoteAgent matters through its card and readiness; another Agent through its A2A
		// endpoint, readiness and auth (its askers render them).
		Watches(&v1alpha1.RemoteAgent{}, handler.EnqueueRequestsFromMapFunc(agentsBy(mgr.GetClient(), IndexRemoteAgentRefs)),
			builder.WithPredicates(remoteAgentChanged)).
		Watches(&v1alpha1.Agent{}, handler.EnqueueRequestsFromMapFunc(agentsAsking(mgr.GetClient())),
			builder.WithPredicates(askedAgentChanged)).
		// Secrets by metadata only: a change bumps the resourceVersion, which is all the watch
		// needs; the few referenced Secrets are read from the API server (see NewManager), so
		// the data of every Secret in the cluster is never held in memory.
		WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(secretToAgents(mgr.GetClient()))).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.MaxConcurrentReconciles}).
		Complete(r)
}
