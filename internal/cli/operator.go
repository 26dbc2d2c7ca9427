package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/agentry-dev/agentry/controllers"
)

// DefaultImage is the published image of this version; the operator runs agents on its own
// image unless told otherwise, so operator and runtime versions never drift apart.
func DefaultImage() string {
	tag := Version
	if tag == "" || tag == "dev" {
		tag = "latest"
	}
	return "ghcr.io/agentry-dev/agentry:" + tag
}

func newOperatorCommand(g *globalFlags) *cobra.Command {
	var o controllers.Options
	var namespaces string
	cmd := &cobra.Command{
		Use:   "operator",
		Short: "Run the Kubernetes operator that turns Agents into runtime Deployments",
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			ctrl.SetLogger(log)
			for _, ns := range strings.Split(namespaces, ",") {
				if ns = strings.TrimSpace(ns); ns != "" {
					o.Namespaces = append(o.Namespaces, ns)
				}
			}
			cfg, err := ctrl.GetConfig()
			if err != nil {
				return fmt.Errorf("failed to find a kubeconfig or in-cluster config: %w", err)
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
	f.StringVar(&o.MetricsAddr, "metrics-bind-address", ":8080", "metrics address (0 disables)")
	f.StringVar(&o.ProbeAddr, "health-probe-bind-address", ":8081", "health probe address")
	f.BoolVar(&o.LeaderElection, "leader-elect", false, "elect a leader, for more than one operator replica")
	f.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", os.Getenv("POD_NAMESPACE"), "namespace of the leader election Lease")
	f.IntVar(&o.MaxConcurrentReconciles, "max-concurrent-reconciles", 4, "Agents reconciled in parallel")
	return cmd
}

func init() {
	extraCommands = append(extraCommands, newOperatorCommand)
}
