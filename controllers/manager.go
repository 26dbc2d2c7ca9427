package controllers

import (
	"cmp"
	"context"
	"crypto/tls"
	"fmt"
	"net/netip"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers/render"
	"github.com/agentry-dev/agentry/internal/platform/egress"
)

// Options configure the operator.
type Options struct {
	Render render.Config
	// Namespaces limits the operator to these namespaces (namespace-scoped mode); empty
	// means all.
	Namespaces  []string
	MetricsAddr string
	// MetricsSecure serves metrics over HTTPS, only to callers the API server authenticates
	// (TokenReview) and authorises for GET /metrics (SubjectAccessReview).
	MetricsSecure bool
	// MetricsCertDir holds tls.crt and tls.key for the metrics server; empty: a self-signed
	// certificate generated at start.
	MetricsCertDir          string
	ProbeAddr               string
	LeaderElection          bool
	LeaderElectionNamespace string
	MaxConcurrentReconciles int
	// SkipNameValidation allows more than one manager per process (tests).
	SkipNameValidation bool
	// MCPDiscoveryInterval is how often MCP servers' tools are listed again.
	MCPDiscoveryInterval time.Duration
	// MCPEgressDeny are addresses MCP discovery never connects to (the cluster's API server);
	// link-local and cloud metadata addresses are always refused.
	MCPEgressDeny []netip.Addr
	// Version is the operator's version, sent to MCP servers.
	Version string
}

// NewScheme has the built-in types and Agentry's.
func NewScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(v1alpha1.AddToScheme(s))
	return s
}

// NewManager builds a manager with the indexes and the four reconcilers.
func NewManager(ctx context.Context, cfg *rest.Config, opts Options) (ctrl.Manager, error) {
	scheme := NewScheme()
	if cfg.QPS == 0 {
		// As ctrl.GetConfig does: no client-side throttling, the API server's priority and
		// fairness decides.
		cfg = rest.CopyConfig(cfg)
		cfg.QPS = -1
	}
	// Cache only the operator's own children of these kinds, not every ConfigMap, Deployment,
	// Service and Ingress of the cluster.
	owned := cache.ByObject{Label: labels.SelectorFromSet(labels.Set{render.LabelManagedBy: render.ManagedBy})}
	cacheOpts := cache.Options{
		ByObject: map[client.Object]cache.ByObject{
			&corev1.ConfigMap{}:     owned,
			&appsv1.Deployment{}:    owned,
			&corev1.Service{}:       owned,
			&networkingv1.Ingress{}: owned,
		},
		// Nothing reads managedFields; they are often the biggest part of an object.
		DefaultTransform: cache.TransformStripManagedFields(),
	}
	if len(opts.Namespaces) > 0 {
		cacheOpts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range opts.Namespaces {
			cacheOpts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	opts.MetricsAddr = cmp.Or(opts.MetricsAddr, "0")
	opts.ProbeAddr = cmp.Or(opts.ProbeAddr, "0")
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme,
		Cache:  cacheOpts,
		// Secrets are read from the API server, never cached: a cached Get would start an
		// informer holding the data of every Secret the operator may list. The Agent
		// controller watches Secrets by metadata only.
		Client:                        client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}},
		Metrics:                       metricsOptions(opts),
		HealthProbeBindAddress:        opts.ProbeAddr,
		LeaderElection:                opts.LeaderElection,
		LeaderElectionID:              "agentry-operator.agentry.dev",
		LeaderElectionNamespace:       opts.LeaderElectionNamespace,
		LeaderElectionReleaseOnCancel: true,
		GracefulShutdownTimeout:       ptrDuration(15 * time.Second),
		Controller:                    ctrlconfig.Controller{SkipNameValidation: &opts.SkipNameValidation},
	})
	if err != nil {
		return nil, fmt.Errorf("failed to create manager: %w", err)
	}
	if err := SetupIndexes(ctx, mgr); err != nil {
		return nil, fmt.Errorf("failed to set up field indexes: %w", err)
	}
	if err := (&AgentReconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: scheme, Recorder: mgr.GetEventRecorder("agentry-operator"),
		Render: opts.Render, MaxConcurrentReconciles: opts.MaxConcurrentReconciles,
	}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the Agent controller: %w", err)
	}
	if err := (&ToolReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("agentry-operator")}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the Tool controller: %w", err)
	}
	if err := (&FrontendActionReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("agentry-operator")}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the FrontendAction controller: %w", err)
	}
	if err := (&ModelConfigReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("agentry-operator")}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the ModelConfig controller: %w", err)
	}
	mcpClient := egress.Policy{AllowInternal: true, Deny: opts.MCPEgressDeny}.Client(10 * time.Second)
	if err := (&MCPServerReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("agentry-operator"),
		Interval: opts.MCPDiscoveryInterval, HTTPClient: mcpClient, Version: opts.Version}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the MCPServer controller: %w", err)
	}
	// Remote agents' cards through the same guard: no metadata address, not the API server,
	// no redirect.
	if err := (&RemoteAgentReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("agentry-operator"),
		Interval: opts.MCPDiscoveryInterval, HTTPClient: mcpClient}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the RemoteAgent controller: %w", err)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return nil, err
	}
	return mgr, nil
}

func ptrDuration(d time.Duration) *time.Duration { return &d }

// metricsOptions serves metrics as kubebuilder does: with MetricsSecure, over HTTPS and only
// to callers the API server authenticates and authorises for GET /metrics (the operator needs
// to create TokenReviews and SubjectAccessReviews for that).
func metricsOptions(opts Options) metricsserver.Options {
	o := metricsserver.Options{BindAddress: opts.MetricsAddr}
	if !opts.MetricsSecure {
		return o
	}
	o.SecureServing = true
	o.FilterProvider = filters.WithAuthenticationAndAuthorization
	o.CertDir = opts.MetricsCertDir
	// HTTP/2 stays off: its stream-reset attacks (CVE-2023-44487, CVE-2023-39325) reach an
	// endpoint before authentication.
	o.TLSOpts = []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }}
	return o
}
