//go:build !agentry_runtime

package cmd

import (
	"fmt"
	"net/netip"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/agentry-dev/agentry/controllers"
	"github.com/agentry-dev/agentry/controllers/render"
	"github.com/agentry-dev/agentry/internal/platform/cidr"
)

// DefaultImage is the published runtime image of this version: agentry built with
// -tags agentry_runtime, which serves the operator's rendered config and links nothing else
// (docs/runtime-footprint.md). Same version as the operator, so the two never drift apart.
func DefaultImage() string {
	tag := Version
	if tag == "" || tag == "dev" {
		tag = "latest"
	}
	return "ghcr.io/agentry-dev/agentry-runtime:" + tag
}

func newOperatorCommand(g *globalFlags) *cobra.Command {
	var o controllers.Options
	var namespaces, trustedProxies, corsOrigins string
	var cpuRequest, memoryRequest, memoryLimit string
	cmd := &cobra.Command{
		Use:   "operator",
		Short: "Run the Kubernetes operator that turns Agents into runtime Deployments",
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			ctrl.SetLogger(log)
			o.Namespaces = splitList(namespaces)
			if o.Render.TrustedProxies, err = parseCIDRs(trustedProxies); err != nil {
				return err
			}
			if r := o.Render.Tracing.SamplerRatio; r != "" {
				if v, err := strconv.ParseFloat(r, 64); err != nil || v < 0 || v > 1 {
					return fmt.Errorf("failed to parse --runtime-trace-sampling-ratio %q: want a number from 0 to 1", r)
				}
			}
			if o.Render.CORSOrigins, err = parseOrigins(corsOrigins); err != nil {
				return err
			}
			if o.Render.Resources, err = runtimeResources(cpuRequest, memoryRequest, memoryLimit); err != nil {
				return err
			}
			cfg, err := ctrl.GetConfig()
			if err != nil {
				return fmt.Errorf("failed to find a kubeconfig or in-cluster config: %w", err)
			}
			o.Version = Version
			// In a pod, MCP discovery never connects to the API server's Service address.
			if host := os.Getenv("KUBERNETES_SERVICE_HOST"); host != "" {
				if a, err := netip.ParseAddr(host); err == nil {
					o.MCPEgressDeny = append(o.MCPEgressDeny, a)
				}
			}
			mgr, err := controllers.NewManager(cmd.Context(), cfg, o)
			if err != nil {
				return err
			}
			scope := "all namespaces"
			if len(o.Namespaces) > 0 {
				scope = "namespaces " + strings.Join(o.Namespaces, ",")
			}
			log.Info("starting the operator", "watching", scope, "runtimeImage", o.Render.RuntimeImage)
			return ignoreCanceled(mgr.Start(cmd.Context()))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Render.RuntimeImage, "runtime-image", envOr("AGENTRY_RUNTIME_IMAGE", DefaultImage()), "image of the agent runtime pods")
	f.StringVar(&o.Render.ImagePullPolicy, "runtime-image-pull-policy", envOr("AGENTRY_RUNTIME_IMAGE_PULL_POLICY", "IfNotPresent"), "pull policy of the runtime image")
	f.StringVar(&namespaces, "watch-namespaces", os.Getenv("AGENTRY_WATCH_NAMESPACES"), "comma-separated namespaces to watch (default: all)")
	f.StringVar(&o.Render.DefaultIngress.ClassName, "default-ingress-class", os.Getenv("AGENTRY_DEFAULT_INGRESS_CLASS"), "IngressClass for Agents that set none")
	f.StringVar(&o.Render.DefaultIngress.Host, "default-ingress-host", os.Getenv("AGENTRY_DEFAULT_INGRESS_HOST"), "Ingress host for Agents that set none")
	f.StringVar(&o.Render.DefaultIngress.TLSSecretName, "default-ingress-tls-secret", os.Getenv("AGENTRY_DEFAULT_INGRESS_TLS_SECRET"), "TLS Secret for the default Ingress host")
	f.StringVar(&o.Render.ClusterDomain, "cluster-domain", envOr("AGENTRY_CLUSTER_DOMAIN", "cluster.local"), "cluster DNS domain for in-cluster URLs")
	f.StringVar(&trustedProxies, "runtime-trusted-proxies", os.Getenv("AGENTRY_RUNTIME_TRUSTED_PROXIES"), "comma-separated CIDRs whose X-Forwarded-For the agent runtimes trust, e.g. the Ingress controller's pod network (default: the runtime's, loopback only)")
	f.StringVar(&o.Render.Tracing.Endpoint, "runtime-otlp-endpoint", os.Getenv("AGENTRY_RUNTIME_OTLP_ENDPOINT"), "OTLP/HTTP endpoint the runtime pods export traces to (default: none, tracing off)")
	f.StringVar(&o.Render.Tracing.HeadersSecret, "runtime-otlp-headers-secret", os.Getenv("AGENTRY_RUNTIME_OTLP_HEADERS_SECRET"), "Secret (in each Agent's namespace; optional) whose key --runtime-otlp-headers-key holds the runtime pods' OTEL_EXPORTER_OTLP_HEADERS")
	f.StringVar(&o.Render.Tracing.HeadersKey, "runtime-otlp-headers-key", envOr("AGENTRY_RUNTIME_OTLP_HEADERS_KEY", "headers"), "key of --runtime-otlp-headers-secret")
	f.StringVar(&o.Render.Tracing.SamplerRatio, "runtime-trace-sampling-ratio", os.Getenv("AGENTRY_RUNTIME_TRACE_SAMPLING_RATIO"), "share of traces the runtime pods keep when they start one (0 to 1, parent-based; default: all)")
	f.BoolVar(&o.Render.Tracing.CaptureContent, "runtime-trace-capture-content", false, "record prompts and completions on the runtime pods' spans (off by default: conversations are the users' data)")
	f.StringVar(&corsOrigins, "runtime-cors-origins", os.Getenv("AGENTRY_RUNTIME_CORS_ORIGINS"), "comma-separated browser origins allowed to call agents that set no spec.endpoint.corsOrigins (default: none)")
	f.StringVar(&cpuRequest, "runtime-cpu-request", envOr("AGENTRY_RUNTIME_CPU_REQUEST", render.DefaultCPURequest), "CPU request of the runtime pods of Agents that set no spec.runtime.resources")
	f.StringVar(&memoryRequest, "runtime-memory-request", envOr("AGENTRY_RUNTIME_MEMORY_REQUEST", render.DefaultMemoryRequest), "memory request of the runtime pods of Agents that set no spec.runtime.resources")
	f.StringVar(&memoryLimit, "runtime-memory-limit", envOr("AGENTRY_RUNTIME_MEMORY_LIMIT", render.DefaultMemoryLimit), "memory limit of the runtime pods of Agents that set no spec.runtime.resources (their GOMEMLIMIT is 90% of it)")
	f.StringVar(&o.MetricsAddr, "metrics-bind-address", ":8443", "metrics address (0 disables)")
	f.BoolVar(&o.MetricsSecure, "metrics-secure", true, "serve metrics over HTTPS to callers the API server authenticates and authorises for GET /metrics; false: plain HTTP to anyone who can connect")
	f.StringVar(&o.MetricsCertDir, "metrics-cert-dir", "", "directory with tls.crt and tls.key for the metrics server (default: a self-signed certificate)")
	f.StringVar(&o.ProbeAddr, "health-probe-bind-address", ":8081", "health probe address")
	f.BoolVar(&o.LeaderElection, "leader-elect", false, "elect a leader, for more than one operator replica")
	f.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", os.Getenv("POD_NAMESPACE"), "namespace of the leader election Lease")
	f.IntVar(&o.MaxConcurrentReconciles, "max-concurrent-reconciles", 4, "Agents reconciled in parallel")
	f.DurationVar(&o.MCPDiscoveryInterval, "mcp-discovery-interval", controllers.DefaultMCPDiscoveryInterval, "how often the tools of every MCPServer are listed again (also on any change to the MCPServer or its headers Secret)")
	return cmd
}

func init() {
	extraCommands = append(extraCommands, newOperatorCommand)
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// parseCIDRs checks --runtime-trusted-proxies at start, so a typo stops the operator instead
// of reaching every runtime pod.
func parseCIDRs(s string) ([]string, error) {
	list := splitList(s)
	if _, err := cidr.Parse(list); err != nil {
		return nil, fmt.Errorf("invalid --runtime-trusted-proxies (CIDRs or addresses, e.g. 10.0.0.0/8): %w", err)
	}
	return list, nil
}

// parseOrigins checks --runtime-cors-origins the way the CRD checks spec.endpoint.corsOrigins.
func parseOrigins(s string) ([]string, error) {
	list := splitList(s)
	for _, o := range list {
		if !originPattern.MatchString(o) {
			return nil, fmt.Errorf("failed to parse --runtime-cors-origins entry %q: want scheme://host[:port] (no path) or *", o)
		}
	}
	return list, nil
}

var originPattern = regexp.MustCompile(`^(\*|https?://[^\s/]+)$`)

// runtimeResources checks the runtime's default resources at start, as the API server would
// check them in every Deployment.
func runtimeResources(cpuRequest, memoryRequest, memoryLimit string) (*corev1.ResourceRequirements, error) {
	r := &corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
	for _, q := range []struct {
		flag, value string
		list        corev1.ResourceList
		name        corev1.ResourceName
	}{
		{"--runtime-cpu-request", cpuRequest, r.Requests, corev1.ResourceCPU},
		{"--runtime-memory-request", memoryRequest, r.Requests, corev1.ResourceMemory},
		{"--runtime-memory-limit", memoryLimit, r.Limits, corev1.ResourceMemory},
	} {
		if strings.TrimSpace(q.value) == "" {
			continue
		}
		v, err := resource.ParseQuantity(q.value)
		if err != nil || v.Sign() <= 0 {
			return nil, fmt.Errorf("failed to parse %s %q as a positive quantity (e.g. 50m, 40Mi)", q.flag, q.value)
		}
		q.list[q.name] = v
	}
	if req, lim := r.Requests[corev1.ResourceMemory], r.Limits[corev1.ResourceMemory]; !req.IsZero() && !lim.IsZero() && req.Cmp(lim) > 0 {
		return nil, fmt.Errorf("--runtime-memory-request %s exceeds --runtime-memory-limit %s", req.String(), lim.String())
	}
	return r, nil
}
