package cli

import (
	"context"
	"fmt"
	"net"
	"os"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"

	"github.com/agentry-dev/agentry/internal/manifest"
	"github.com/agentry-dev/agentry/runtime/registry"
	"github.com/agentry-dev/agentry/runtime/secrets"
	"github.com/agentry-dev/agentry/runtime/server"
)

type serveOptions struct {
	config     string
	addr       string
	secretsDir string
	http       httpFlags
}

func newServeCommand(g *globalFlags) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve --config PATH",
		Short: "Serve the agents of a manifest file or directory over HTTP",
		Long: `Serve the Agents in a file or directory of Agentry manifests (Agent, Tool and
FrontendAction documents, multi-document YAML) under /api/agents/{agentId}/.

The model API key comes from OPENAI_API_KEY, or from <secrets-dir>/<secret>/<key> for the
Secret an Agent's spec.model.apiKeySecretRef names. OPENAI_BASE_URL points agents whose
manifest sets no spec.model.baseURL at another OpenAI-compatible endpoint.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			if o.config == "" {
				return fmt.Errorf("--config is required: a manifest file or directory")
			}
			srvOpts, err := o.http.options()
			if err != nil {
				return err
			}
			srvOpts.Secrets = secrets.Dir(o.secretsDir)
			return serveAgents(cmd.Context(), log, o.config, o.addr,
				registry.Options{Getenv: os.Getenv, Secrets: secrets.Dir(o.secretsDir)}, srvOpts,
				func(addr net.Addr, reg *registry.Registry) {
					log.Info("serving agents", "addr", addr.String(), "agents", reg.IDs())
				})
		},
	}
	cmd.Flags().StringVarP(&o.config, "config", "c", envOr("AGENTRY_CONFIG", ""), "manifest file or directory")
	cmd.Flags().StringVar(&o.addr, "addr", envOr("AGENTRY_ADDR", server.DefaultAddr), "listen address")
	cmd.Flags().StringVar(&o.secretsDir, "secrets-dir", envOr("AGENTRY_SECRETS_DIR", secrets.DefaultDir), "directory of mounted Secrets (<dir>/<secret>/<key>)")
	o.http.register(cmd.Flags())
	return cmd
}

// serveAgents loads the manifests, listens and serves until ctx ends; announce runs once the
// address is known.
func serveAgents(ctx context.Context, log logr.Logger, path, addr string, regOpts registry.Options, srvOpts server.Options, announce func(net.Addr, *registry.Registry)) error {
	reg, err := loadRegistry(ctx, log, path, regOpts)
	if err != nil {
		return err
	}
	defer reg.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("failed to listen on %q: %w", addr, err)
	}
	announce(ln.Addr(), reg)
	srvOpts.Registry, srvOpts.Logger = reg, log
	return ignoreCanceled(server.New(srvOpts).Serve(ctx, ln))
}

// loadRegistry reads, validates and compiles the manifests, logging every warning.
func loadRegistry(ctx context.Context, log logr.Logger, path string, opts registry.Options) (*registry.Registry, error) {
	loader, err := manifest.NewLoader()
	if err != nil {
		return nil, err
	}
	set, err := loader.LoadPath(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("invalid configuration:\n%w", err)
	}
	for _, ig := range set.Ignored {
		log.V(1).Info("ignoring a document that is not an Agentry object", "file", ig.File, "kind", ig.Kind, "name", ig.Name)
	}
	reg, warnings, err := registry.Build(ctx, set, opts)
	if err != nil {
		return nil, fmt.Errorf("invalid configuration:\n%w", err)
	}
	for _, w := range warnings {
		log.Info("WARNING: "+w.Message, "agent", w.Agent)
	}
	for _, id := range reg.IDs() {
		if e, _ := reg.Get(id); e.Memory != nil {
			log.Info("conversation memory", "agent", id, "storage", e.Memory.Kind(), "lastMessages", e.LastMessages)
		}
	}
	if len(reg.IDs()) == 0 {
		return nil, fmt.Errorf("no Agent found in %q", path)
	}
	return reg, nil
}
