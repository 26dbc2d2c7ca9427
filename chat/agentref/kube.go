package agentref

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/platform/defaults"
)

// DefaultSyncTimeout bounds the first list of Agents in NewKubeResolver.
const DefaultSyncTimeout = time.Minute

// Options configure a KubeResolver.
type Options struct {
	// Namespaces limits the Agents the resolver sees; empty means all namespaces (which needs a
	// ClusterRoleBinding rather than RoleBindings).
	Namespaces []string
	// Logger receives watch failures; the zero value discards them.
	Logger logr.Logger
	// SyncTimeout bounds the initial sync (default DefaultSyncTimeout).
	SyncTimeout time.Duration
}

// KubeResolver resolves references from an informer cache of Agents, so a Resolve is a memory
// read and follows status changes as the watch delivers them, without polling the API server.
type KubeResolver struct {
	cache      cache.Cache
	namespaces []string
	stop       context.CancelFunc
}

var _ Resolver = (*KubeResolver)(nil)

// NewKubeResolver starts an informer cache of Agents and returns once it holds the first full
// list, so the first Resolve already sees every Agent. The cache runs until ctx is cancelled or
// Close is called. It fails fast, with the missing permission or CRD named, instead of waiting
// for a sync that cannot happen.
func NewKubeResolver(ctx context.Context, cfg *rest.Config, opts Options) (*KubeResolver, error) {
	defaults.Positive(&opts.SyncTimeout, DefaultSyncTimeout)
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("failed to build scheme %q: %w", v1alpha1.GroupVersion, err)
	}
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("failed to build HTTP client for %q: %w", cfg.Host, err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("failed to build REST mapper for %q: %w", cfg.Host, err)
	}
	if err := preflight(ctx, cfg, httpClient, mapper, scheme, opts.Namespaces); err != nil {
		return nil, err
	}

	log := opts.Logger
	cacheOpts := cache.Options{
		HTTPClient: httpClient, Scheme: scheme, Mapper: mapper,
		// Only Agents are ever read; a Get of another kind must not quietly start an informer.
		ReaderFailOnMissingInformer: true,
		DefaultTransform:            slim,
		DefaultWatchErrorHandler: func(_ context.Context, _ *toolscache.Reflector, err error) {
			// A closed or expired watch is routine: the reflector relists and carries on.
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
				log.V(1).Info("agent watch restarted", "reason", err.Error())
				return
			}
			log.Error(err, "failed to watch agents; resolving from the last known state until the watch recovers")
		},
	}
	if len(opts.Namespaces) > 0 {
		cacheOpts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range opts.Namespaces {
			cacheOpts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	c, err := cache.New(cfg, cacheOpts)
	if err != nil {
		return nil, fmt.Errorf("failed to create cache for %q: %w", "agents.agentry.dev", err)
	}
	if _, err := c.GetInformer(ctx, &v1alpha1.Agent{}, cache.BlockUntilSynced(false)); err != nil {
		return nil, fmt.Errorf("failed to create informer for %q: %w", "agents.agentry.dev", err)
	}
	runCtx, stop := context.WithCancel(ctx)
	go func() {
		if err := c.Start(runCtx); err != nil {
			log.Error(err, "agent cache stopped")
		}
	}()
	syncCtx, cancel := context.WithTimeout(runCtx, opts.SyncTimeout)
	defer cancel()
	if !c.WaitForCacheSync(syncCtx) {
		stop()
		return nil, fmt.Errorf("failed to sync cache of %q within %s: %w", "agents.agentry.dev", opts.SyncTimeout, context.Cause(syncCtx))
	}
	log.V(1).Info("agent cache synced", "namespaces", opts.Namespaces)
	return &KubeResolver{cache: c, namespaces: slices.Clone(opts.Namespaces), stop: stop}, nil
}

// Close stops the cache; Resolve then answers from the last known state.
func (r *KubeResolver) Close() { r.stop() }

// Resolve implements Resolver.
func (r *KubeResolver) Resolve(ctx context.Context, ref string, route Route) (string, error) {
	a, err := r.get(ctx, ref)
	if err != nil {
		return "", err
	}
	return endpointFor(ref, a, route)
}

// Audience is the Agent's spec.platform.audience (bridge.AudienceResolver): nil when it sets
// none or there is no such Agent, which no one can call anyway.
func (r *KubeResolver) Audience(ctx context.Context, ref string) ([]string, error) {
	a, err := r.get(ctx, ref)
	switch {
	case errors.Is(err, ErrAgentNotFound), errors.Is(err, ErrInvalidRef):
		return nil, nil
	case err != nil:
		return nil, err
	case a.Spec.Platform == nil:
		return nil, nil
	}
	return slices.Clone(a.Spec.Platform.Audience), nil
}

// get reads the Agent ref names from the cache.
func (r *KubeResolver) get(ctx context.Context, ref string) (*v1alpha1.Agent, error) {
	ns, name, err := ParseRef(ref)
	if err != nil {
		return nil, err
	}
	if len(r.namespaces) > 0 && !slices.Contains(r.namespaces, ns) {
		return nil, &refError{kind: ErrAgentNotFound, msg: fmt.Sprintf("agent %s not found: the chat service watches only the namespaces %s",
			ref, strings.Join(r.namespaces, ", "))}
	}
	var a v1alpha1.Agent
	if err := r.cache.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &a); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, notFound(ref)
		}
		return nil, fmt.Errorf("failed to get agent %q: %w", ref, err)
	}
	return &a, nil
}

// preflight lists Agents once per namespace, because an informer retries a forbidden or
// unknown resource forever and the caller would only ever see a sync timeout.
func preflight(ctx context.Context, cfg *rest.Config, hc *http.Client, mapper meta.RESTMapper, scheme *runtime.Scheme, namespaces []string) error {
	c, err := client.New(cfg, client.Options{HTTPClient: hc, Mapper: mapper, Scheme: scheme})
	if err != nil {
		return fmt.Errorf("failed to create client for %q: %w", cfg.Host, err)
	}
	if len(namespaces) == 0 {
		namespaces = []string{""}
	}
	for _, ns := range namespaces {
		err := c.List(ctx, &v1alpha1.AgentList{}, client.InNamespace(ns), client.Limit(1))
		where := "in all namespaces"
		if ns != "" {
			where = fmt.Sprintf("in namespace %q", ns)
		}
		switch {
		case err == nil:
		case meta.IsNoMatchError(err):
			return fmt.Errorf("failed to list agents %s: the Agent CRD (agents.agentry.dev) is not installed: %w", where, err)
		case apierrors.IsForbidden(err):
			return fmt.Errorf("failed to list agents %s: bind the ClusterRole agentry-chat-agent-reader (get, list, watch on agents.agentry.dev) to the chat service: %w", where, err)
		default:
			return fmt.Errorf("failed to list agents %s: %w", where, err)
		}
	}
	return nil
}

// slim keeps only what Resolve and Audience read: the cache then costs little per Agent even
// when specs carry 64 KiB of instructions or kubectl's last-applied annotation doubles them.
func slim(obj any) (any, error) {
	if a, ok := obj.(*v1alpha1.Agent); ok {
		a.ManagedFields = nil
		a.Annotations = nil
		var kept v1alpha1.AgentSpec
		if p := a.Spec.Platform; p != nil && len(p.Audience) > 0 {
			kept.Platform = &v1alpha1.PlatformSpec{Audience: p.Audience}
		}
		a.Spec = kept
	}
	return obj, nil
}
