//go:build !agentry_runtime

package cmd

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	chatapi "github.com/agentry-dev/agentry/chat/api"
	"github.com/agentry-dev/agentry/internal/devkit/samplemcp"
	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/platform/httpserve"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/registry"
	"github.com/agentry-dev/agentry/runtime/secrets"
	"github.com/agentry-dev/agentry/runtime/server"
	webapp "github.com/agentry-dev/agentry/ui/apps/web"
)

// DevAddr is where agentry dev listens: loopback, port 4111.
const DevAddr = "127.0.0.1:4111"

type devOptions struct {
	memory     string
	dirs       []string
	sampleMCP  string
	addr       string
	modelAddr  string
	modelPace  time.Duration
	secretsDir string
	chat       string
	web        bool
	http       httpFlags
}

func init() { extraCommands = append(extraCommands, newDevCommand) }

func newDevCommand(g *globalFlags) *cobra.Command {
	o := &devOptions{}
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Serve every agent under a directory on localhost:4111, no cluster needed",
		Long: `Serve every Agent under the given directories (default config/samples and
config/samples-mcp) on port 4111 under /api.

With OPENAI_API_KEY set (and optionally OPENAI_BASE_URL) the agents call that endpoint.
Without a key, Agentry starts its scripted, OpenAI-compatible dev model on loopback and routes
the agents to it through the same client, so tools and frontend actions work offline.

With the default directories, it also serves the sample MCP server (kitchen unit conversions)
that config/samples-mcp's sous-chef agent uses, on --sample-mcp-addr (default 127.0.0.1:4112).`,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	cmd.Flags().StringSliceVar(&o.dirs, "dir", []string{"config/samples", "config/samples-mcp"}, "directories (or files) of manifests, comma-separated or repeated")
	cmd.Flags().StringVar(&o.sampleMCP, "sample-mcp-addr", samplemcp.DefaultAddr, "listen address of the sample MCP server, started with the default --dir (none: do not start it)")
	cmd.Flags().StringVar(&o.memory, "memory", "file:.agentry/memory.db", "conversation memory of agents that configure none (a storage URL, or none)")
	// Loopback only: on all interfaces, anyone on the network could spend the developer's model key.
	cmd.Flags().StringVar(&o.addr, "addr", DevAddr, "listen address (use :4111 to listen on every interface)")
	cmd.Flags().StringVar(&o.modelAddr, "model-addr", "127.0.0.1:0", "listen address of the scripted dev model")
	cmd.Flags().DurationVar(&o.modelPace, "model-pace", 30*time.Millisecond, "wait between the scripted dev model's streamed words, so answers stream visibly (0: at once)")
	cmd.Flags().StringVar(&o.secretsDir, "secrets-dir", ".agentry/secrets", "directory of local Secrets (<dir>/<secret>/<key>)")
	cmd.Flags().BoolVar(&o.web, "web", true, "serve the embedded chat web app at / (needs the chat service)")
	cmd.Flags().StringVar(&o.chat, "chat", "file:.agentry/chat.db", "storage of the chat service mounted at /chat/v1 (file:PATH, postgres://…, or none)")
	o.http.register(cmd.Flags())
	return cmd
}

// run serves the agents with what they need locally: the sample MCP server, the scripted model
// when no model key is set, and the chat service.
func (o *devOptions) run(cmd *cobra.Command, g *globalFlags) error {
	log, err := g.logger()
	if err != nil {
		return err
	}
	opts := registry.Options{Getenv: os.Getenv, Secrets: secrets.Dir(o.secretsDir), DiscoverMCP: true, Version: Version}
	if o.memory != "none" {
		opts.MemoryDefault = o.memory
	}
	out := cmd.OutOrStdout()
	// The sample MCP server runs with the samples that use it (the default directories);
	// it must be up before the agents load, as discovery runs then.
	if !cmd.Flags().Changed("dir") && o.sampleMCP != "none" {
		srv, url, err := samplemcp.Serve(o.sampleMCP, Version)
		if err != nil {
			fmt.Fprintf(out, "\n  The sample MCP server did not start (%v): the sous-chef agent's MCP tools are unavailable.\n", err)
		} else {
			defer srv.Close()
			fmt.Fprintf(out, "\n  Sample MCP server (kitchen unit conversions): %s\n", url)
		}
	}
	if os.Getenv(llm.APIKeyEnv) == "" {
		sm, err := scriptedmodel.Start(o.modelAddr, scriptedmodel.DevScript(), scriptedmodel.Options{Pace: o.modelPace})
		if err != nil {
			return err
		}
		defer sm.Close()
		opts.ModelOverride = &registry.ModelOverride{BaseURL: sm.URL()}
		fmt.Fprintf(out, "\n  No %s is set: the agents use Agentry's scripted dev model at %s.\n", llm.APIKeyEnv, sm.URL())
		fmt.Fprintf(out, "  It answers the samples' suggested prompts with real tool calls; set %s for a real model.\n", llm.APIKeyEnv)
	}
	srvOpts, err := o.http.options()
	if err != nil {
		return err
	}
	srvOpts.Secrets = secrets.Dir(o.secretsDir)
	var chat *devChat
	if o.chat != "none" {
		if chat, err = o.mountChat(cmd.Context(), log, &srvOpts); err != nil {
			return err
		}
		defer chat.close(log)
	}
	if loopbackListen(o.addr) {
		srvOpts.Mount = withLoopbackHosts(srvOpts.Mount)
	}
	loader, err := crdLoader()
	if err != nil {
		return err
	}
	return serveAgents(cmd.Context(), log, loader, o.dirs, o.addr, opts, srvOpts, o.announce(cmd.Context(), log, out, chat, srvOpts.Secrets))
}

// devIssuer is the chat's issuer URL on the dev server's address (loopback when it listens on
// every interface).
func devIssuer(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + chatapi.Prefix
}

// mountChat starts the chat service and mounts it beside the agents, with its uploads and its
// error shape for requests that time out.
func (o *devOptions) mountChat(ctx context.Context, log logr.Logger, srvOpts *server.Options) (*devChat, error) {
	dc, mount, err := startDevChat(ctx, log, o.chat, ".agentry", o.web, devIssuer(o.addr))
	if err != nil {
		return nil, err
	}
	srvOpts.Mount = mount
	srvOpts.Limits.Uploads = chatapi.IsUpload
	srvOpts.Limits.Timeout = func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, chatapi.Prefix+"/") {
			chatapi.RequestTimeout(w, r) // the chat's error shape; the runtime keeps its own
			return
		}
		httpserve.RequestTimeout(w, r)
	}
	return dc, nil
}

// announce prints the banner once the agents are served: their routes, the chat service (whose
// agent users it registers) and the web app.
func (o *devOptions) announce(ctx context.Context, log logr.Logger, out io.Writer, chat *devChat, sec secrets.Source) func(net.Addr, *registry.Registry) {
	return func(addr net.Addr, reg *registry.Registry) {
		base := "http://" + displayAddr(addr)
		// One write: a reader of the output never sees the table without its rows.
		var table strings.Builder
		fmt.Fprintf(&table, "\n  Agentry dev server: %s/api/agents\n", base)
		for _, id := range reg.IDs() {
			// The route a chat platform calls, as the Agent's spec.platform.provider says.
			route := "ag-ui"
			if e, ok := reg.Get(id); ok && e.Manifest.Spec.Platform != nil && e.Manifest.Spec.Platform.Provider == v1alpha1.PlatformProviderMastra {
				route = "generate"
			}
			fmt.Fprintf(&table, "    %-12s POST %s/api/agents/%s/%s\n", id, base, id, route)
		}
		fmt.Fprintf(&table, "    A2A: POST %s/a2a/<agent>, its card at %s/a2a/<agent>/.well-known/agent-card.json\n", base, base)
		_, _ = io.WriteString(out, table.String())
		if chat != nil {
			chat.registerAgents(ctx, log, base, reg, sec)
			fmt.Fprintf(out, "\n  Chat service: %s/chat/v1 (storage %s)\n", base, chat.store.Kind())
			fmt.Fprintf(out, "    App ID %s, Auth Key %s (development only); REST API key in .agentry/chat-api-key\n", DevChatAppID, DevChatAuthKey)
		}
		fmt.Fprintln(out)
		printWebBanner(out, base, chat != nil && o.web, webapp.Built())
	}
}

// printWebBanner ends the banner with the one URL to open: the web app.
func printWebBanner(out io.Writer, base string, serving, built bool) {
	switch {
	case !serving:
		return
	case built:
		fmt.Fprintf(out, "  ==> Open the web app: %s/\n", base)
		fmt.Fprintf(out, "      Log in as alice, bob, carol or admin (role admin: configures agents).\n\n")
	default:
		fmt.Fprintf(out, "  The web app is not built into this binary: run make dev (or make web, then go run . dev).\n\n")
	}
}

func displayAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	if tcp.IP == nil || tcp.IP.IsUnspecified() {
		return fmt.Sprintf("localhost:%d", tcp.Port)
	}
	return tcp.String()
}
