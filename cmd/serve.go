package cmd

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"

	"github.com/agentry-dev/agentry/internal/platform/logwarn"
	"github.com/agentry-dev/agentry/internal/protocol/manifest/decode"
	"github.com/agentry-dev/agentry/runtime/memlimit"
	"github.com/agentry-dev/agentry/runtime/registry"
	"github.com/agentry-dev/agentry/runtime/secrets"
	"github.com/agentry-dev/agentry/runtime/server"
)

type serveOptions struct {
	config       string
	addr         string
	secretsDir   string
	prevalidated bool
	http         httpFlags
}

func newServeCommand(g *globalFlags) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve --config PATH",
		Short: "Serve the agents of a manifest file or directory over HTTP",
		Long: `Serve the Agents in a file or directory of Agentry manifests (Agent, Tool,
FrontendAction and MCPServer documents, multi-document YAML) under /api/agents/{agentId}/.
The tools of an MCPServer without status.tools are listed from the server at start-up.

The model API key comes from OPENAI_API_KEY, or from <secrets-dir>/<secret>/<key> for the
Secret an Agent's spec.model.apiKeySecretRef names. OPENAI_BASE_URL points agents whose
manifest sets no spec.model.baseURL at another OpenAI-compatible endpoint.

Manifests are validated and defaulted with the CRDs' schemas and CEL rules, as the API server
does. --prevalidated is for the config the operator renders from objects the API server has
validated: it is decoded strictly into the Go types without running the schemas again.`,
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
			loader, err := configLoader(o.prevalidated)
			if err != nil {
				return err
			}
			setMemoryLimit(log, os.Getenv)
			return serveAgents(cmd.Context(), log, loader, []string{o.config}, o.addr,
				registry.Options{Getenv: os.Getenv, Secrets: secrets.Dir(o.secretsDir), DiscoverMCP: !o.prevalidated, Version: Version}, srvOpts,
				func(addr net.Addr, reg *registry.Registry) {
					log.Info("serving agents", "addr", addr.String(), "agents", reg.IDs())
				})
		},
	}
	cmd.Flags().StringVarP(&o.config, "config", "c", envOr("AGENTRY_CONFIG", ""), "manifest file or directory")
	cmd.Flags().StringVar(&o.addr, "addr", envOr("AGENTRY_ADDR", server.DefaultAddr), "listen address")
	cmd.Flags().StringVar(&o.secretsDir, "secrets-dir", envOr("AGENTRY_SECRETS_DIR", secrets.DefaultDir), "directory of mounted Secrets (<dir>/<secret>/<key>)")
	cmd.Flags().BoolVar(&o.prevalidated, "prevalidated", os.Getenv(decode.PrevalidatedEnv) == "true",
		"the config was rendered by the operator from objects the API server validated: decode it strictly instead of running the CRD schemas and CEL rules again")
	o.http.register(cmd.Flags())
	return cmd
}

// configLoader is the loader of serve's config: the CRDs' schemas and CEL rules for
// hand-written manifests, a strict decode for what the operator rendered.
func configLoader(prevalidated bool) (*decode.Loader, error) {
	if prevalidated {
		return decode.NewLoader(decode.Prevalidated{}), nil
	}
	return crdLoader()
}

// serveAgents loads the manifests, listens and serves until ctx ends; announce runs once the
// address is known.
func serveAgents(ctx context.Context, log logr.Logger, loader *decode.Loader, paths []string, addr string, regOpts registry.Options, srvOpts server.Options, announce func(net.Addr, *registry.Registry)) error {
	// An agentRef asks an agent of this runtime at its own address, known once it listens.
	var self atomic.Value
	regOpts.SelfURL = func() string { s, _ := self.Load().(string); return s }
	reg, err := loadRegistry(ctx, log, loader, paths, regOpts)
	if err != nil {
		return err
	}
	defer reg.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("failed to listen on %q: %w", addr, err)
	}
	self.Store(loopbackURL(ln.Addr()))
	announce(ln.Addr(), reg)
	// Start-up (decoding the config, compiling schemas and CEL programs) leaves a few MiB of
	// garbage the heap would keep until load grows it: collect it once and return it to the OS,
	// beside the listener, so an idle pod holds only what it uses (docs/runtime-footprint.md).
	go debug.FreeOSMemory()
	srvOpts.Registry, srvOpts.Logger = reg, log
	return ignoreCanceled(server.New(srvOpts).Serve(ctx, ln))
}

// loadRegistry reads, validates and compiles the manifests, logging every warning.
func loadRegistry(ctx context.Context, log logr.Logger, loader *decode.Loader, paths []string, opts registry.Options) (*registry.Registry, error) {
	set, err := loader.LoadPaths(ctx, paths...)
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
		logwarn.Warn(log, w.Message, "agent", w.Agent)
	}
	for _, id := range reg.IDs() {
		if e, _ := reg.Get(id); e.Memory != nil {
			log.Info("conversation memory", "agent", id, "storage", e.Memory.Kind(), "lastMessages", e.LastMessages)
		}
	}
	if len(reg.IDs()) == 0 {
		return nil, fmt.Errorf("no Agent found in %q", strings.Join(paths, ", "))
	}
	return reg, nil
}

// setMemoryLimit derives GOMEMLIMIT from the container's memory limit (see runtime/memlimit).
func setMemoryLimit(log logr.Logger, getenv func(string) string) {
	if limit := memlimit.Apply(getenv); limit > 0 {
		log.Info("memory limit", "goMemLimitMiB", limit>>20, "percentOfContainerLimit", memlimit.Percent)
	}
}

// loopbackURL is the base URL at which this process reaches its own listener: loopback when it
// listens on every address.
func loopbackURL(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return "http://" + a.String()
	}
	ip := tcp.IP
	if ip == nil || ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return "http://" + net.JoinHostPort(ip.String(), strconv.Itoa(tcp.Port))
}
