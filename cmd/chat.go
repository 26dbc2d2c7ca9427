//go:build !agentry_runtime

package cmd

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/agentry-dev/agentry/chat/agentref"
	chatapi "github.com/agentry-dev/agentry/chat/api"
	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/hub"
	"github.com/agentry-dev/agentry/chat/jwtsign"
	chatmetrics "github.com/agentry-dev/agentry/chat/metrics"
	"github.com/agentry-dev/agentry/chat/oidc"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/platform/cidr"
	"github.com/agentry-dev/agentry/internal/platform/egress"
	"github.com/agentry-dev/agentry/internal/platform/httpserve"
	"github.com/agentry-dev/agentry/internal/platform/jwtauth"
	"github.com/agentry-dev/agentry/internal/platform/logwarn"
	webapp "github.com/agentry-dev/agentry/ui/apps/web"
)

func init() { extraCommands = append(extraCommands, newChatCommand) }

// minAPIKeyLen keeps guessable REST API keys out of production.
const minAPIKeyLen = 16

type chatOptions struct {
	addr       string
	storage    string
	apiKeyFile string
	authKey    string
	appID      string
	// loginTokenTTL is the lifetime of a development login's token (0: until revoked);
	// loginTokenTTLErr is a bad AGENTRY_CHAT_LOGIN_TOKEN_TTL, reported by resolve.
	loginTokenTTL    time.Duration
	loginTokenTTLErr error
	// eventRetention is how long events are kept for resuming sockets (0: forever);
	// eventRetentionErr is a bad AGENTRY_CHAT_EVENT_RETENTION, reported by resolve.
	eventRetention    time.Duration
	eventRetentionErr error
	replicas          int
	mediaDir          string
	maxMediaBytes     int64
	rateLimit         float64 // requests per second per signed-in user; 0 = no limit
	rateBurst         int
	headersKeyFile    string
	// issuerURL makes the chat sign its users' tokens for agents with auth chat-jwt.
	issuerURL string
	// headers is the parsed headers key (set from headersKeyFile or the environment).
	headers []byte
	// development accepts http Deployment URLs (an agent on localhost or a trusted network).
	development bool
	// agentAllowNetworks are the internal networks agent Deployment URLs may reach; egress is
	// the policy resolve builds from them.
	agentAllowNetworks []string
	egress             egress.Policy
	// maxConnsPerIP caps one client address's connections (0: no cap).
	maxConnsPerIP int
	// trustedProxies may name the client in X-Forwarded-For (failed sign-in throttling).
	trustedProxies []string
	proxies        []netip.Prefix
	bridge         bridgeFlags
	// resolver resolves in-cluster Agent references (nil outside a cluster); it also reads
	// their manifests' audiences.
	resolver bridge.AudienceResolver
	// agentRefs watches Agents so configurations may name one (namespace/name).
	agentRefs       bool
	agentNamespaces []string
	// serviceAccount is the chat's own ServiceAccount (namespace/name); serviceTokens issue its
	// tokens for agents with auth service-account (nil: none).
	serviceAccount string
	serviceTokens  *agentref.ServiceAccountTokens
	// out receives the start-up banner (the command's stdout).
	out io.Writer
	// corsOrigins may call the API and open sockets from other origins.
	corsOrigins []string
	// web serves the embedded web app at / and /app-config.json.
	web bool
	// metricsAddr serves /metrics, /healthz and /readyz apart from the public port; "" = off.
	metricsAddr string
	// metricsAddrSet: the address was given (flag or environment), so failing to listen on it
	// is fatal; the default (:9090) only warns when taken (several local processes, tests).
	metricsAddrSet bool
	// sso is sign-in through an OpenID provider; ssoClient the discovered provider (nil: off).
	sso       ssoFlags
	ssoClient *oidc.Client
}

// bridgeFlags are the agent bridge's limits.
type bridgeFlags struct {
	idle, run, action time.Duration
}

func newChatCommand(g *globalFlags) *cobra.Command {
	cmd, _ := chatCommand(g)
	return cmd
}

// chatCommand returns the command and the options its flags fill (tests read them).
func chatCommand(g *globalFlags) (*cobra.Command, *chatOptions) {
	o := &chatOptions{}
	cmd := &cobra.Command{
		Use:   "chat",
		Short: "Serve the chat service (users, groups, messages, real-time events) under /chat/v1",
		Long: `Serve the self-hosted chat service under /chat/v1: REST routes and the WebSocket.

Credentials: the REST API key (--api-key-file or AGENTRY_CHAT_API_KEY) creates users and mints
their auth tokens; clients send Authorization: Bearer <token>. --auth-key enables the
development login as any uid: never use it in production.

Storage: file:PATH (SQLite, one replica) or postgres://… (several replicas).

The embedded web app is served at / (--web=false turns it off), its settings at
/app-config.json. Prometheus metrics, /healthz and /readyz are served on --metrics-addr
(default :9090), apart from the public port.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			apiKey, err := o.resolve(os.Getenv)
			if err != nil {
				return err
			}
			if o.headers, err = o.headersKey(os.Getenv); err != nil {
				return err
			}
			o.metricsAddrSet = cmd.Flags().Changed("metrics-addr") || os.Getenv("AGENTRY_CHAT_METRICS_ADDR") != ""
			if o.agentRefs {
				cfg, err := ctrl.GetConfig()
				if err != nil {
					return fmt.Errorf("failed to find a kubeconfig or in-cluster config for --agent-refs: %w", err)
				}
				res, err := agentref.NewKubeResolver(cmd.Context(), cfg, agentref.Options{Namespaces: o.agentNamespaces, Logger: log})
				if err != nil {
					return err
				}
				defer res.Close()
				o.resolver = res
				if o.serviceAccount != "" {
					if o.serviceTokens, err = agentref.NewServiceAccountTokens(cfg, o.serviceAccount); err != nil {
						return fmt.Errorf("invalid --service-account: %w", err)
					}
				}
			} else if o.serviceAccount != "" {
				return errors.New("--service-account needs --agent-refs: its tokens are for in-cluster Agents")
			}
			o.out = cmd.OutOrStdout()
			return runChat(cmd.Context(), log, o, apiKey)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", envOr("AGENTRY_CHAT_ADDR", ":8080"), "listen address")
	f.StringVar(&o.storage, "storage", envOr("AGENTRY_CHAT_STORAGE", "file:.agentry/chat.db"), "storage URL: file:PATH (SQLite) or postgres://…")
	f.StringVar(&o.apiKeyFile, "api-key-file", os.Getenv("AGENTRY_CHAT_API_KEY_FILE"), "file holding the REST API key (else AGENTRY_CHAT_API_KEY)")
	f.StringVar(&o.authKey, "auth-key", os.Getenv("AGENTRY_CHAT_AUTH_KEY"), "development only: enable login as any uid with this Auth Key")
	ttl, ttlErr := envDuration("AGENTRY_CHAT_LOGIN_TOKEN_TTL", chatapi.DefaultLoginTokenTTL)
	o.loginTokenTTLErr = ttlErr
	f.DurationVar(&o.loginTokenTTL, "login-token-ttl", ttl, "lifetime of a token from the development login (--auth-key); 0 = until revoked (env AGENTRY_CHAT_LOGIN_TOKEN_TTL)")
	retention, retentionErr := envDuration("AGENTRY_CHAT_EVENT_RETENTION", hub.DefaultRetention)
	o.eventRetentionErr = retentionErr
	f.DurationVar(&o.eventRetention, "event-retention", retention, "how long events are kept for clients resuming their socket (older ones are pruned; a client further behind reloads its lists); 0 = forever (env AGENTRY_CHAT_EVENT_RETENTION)")
	f.StringVar(&o.appID, "app-id", os.Getenv("AGENTRY_CHAT_APP_ID"), "App ID clients send on login (any when empty)")
	f.IntVar(&o.replicas, "replicas", envInt("AGENTRY_CHAT_REPLICAS", 1), "how many replicas serve this storage (SQLite allows one)")
	f.IntVar(&o.replicas, "replicas-hint", envInt("AGENTRY_CHAT_REPLICAS", 1), "alias of --replicas")
	_ = f.MarkHidden("replicas-hint")
	f.StringVar(&o.mediaDir, "media-dir", os.Getenv("AGENTRY_CHAT_MEDIA_DIR"), "directory of uploaded media, shared by every replica (default with file: storage: chat-media beside the database; required with PostgreSQL) (env AGENTRY_CHAT_MEDIA_DIR)")
	f.StringVar(&o.issuerURL, "issuer-url", os.Getenv("AGENTRY_CHAT_ISSUER_URL"), "the chat's public URL + /chat/v1 (e.g. https://chat.example.com/chat/v1): the chat then signs a short-lived token for the person behind each run of agents configured with auth chat-jwt, and serves its keys at <issuer-url>/.well-known/jwks.json (env AGENTRY_CHAT_ISSUER_URL)")
	f.StringVar(&o.headersKeyFile, "headers-key-file", os.Getenv("AGENTRY_CHAT_HEADERS_KEY_FILE"), "file holding the 32-byte key (hex or base64) agent headers are encrypted with (else AGENTRY_CHAT_HEADERS_KEY)")
	f.Int64Var(&o.maxMediaBytes, "max-media-bytes", chatapi.DefaultMaxMediaBytes, "largest media upload in bytes")
	f.Float64Var(&o.rateLimit, "rate-limit", envFloat("AGENTRY_CHAT_RATE_LIMIT", chatapi.DefaultRateLimit), "requests per second each signed-in user may make on this replica (429 past it); 0 = no limit; the REST API key is never limited (env AGENTRY_CHAT_RATE_LIMIT)")
	f.IntVar(&o.rateBurst, "rate-burst", envInt("AGENTRY_CHAT_RATE_BURST", chatapi.DefaultRateBurst), "requests a user may make at once before --rate-limit applies (env AGENTRY_CHAT_RATE_BURST)")
	f.BoolVar(&o.agentRefs, "agent-refs", os.Getenv("KUBERNETES_SERVICE_HOST") != "", "resolve agent configurations that name an in-cluster Agent (namespace/name); needs get/list/watch on agents (default: on inside a cluster)")
	f.StringSliceVar(&o.corsOrigins, "cors-origins", splitList(os.Getenv("AGENTRY_CHAT_CORS_ORIGINS")), "browser origins (https://app.example.com, or *) allowed to use the API and the WebSocket from another origin (default: none, same origin only)")
	f.StringVar(&o.metricsAddr, "metrics-addr", envOr("AGENTRY_CHAT_METRICS_ADDR", ":9090"), "listen address of /metrics, /healthz and /readyz, apart from the public port (empty: off)")
	f.BoolVar(&o.web, "web", envBool("AGENTRY_CHAT_WEB", true), "serve the embedded web app at / (and /app-config.json)")
	f.StringVar(&o.serviceAccount, "service-account", os.Getenv("AGENTRY_CHAT_SERVICE_ACCOUNT"), "this chat's ServiceAccount (namespace/name): agents configured with auth service-account get its token (audience agentry.dev/agents/<namespace>/<name>), requested through the TokenRequest API; needs create on its serviceaccounts/token (env AGENTRY_CHAT_SERVICE_ACCOUNT)")
	f.StringSliceVar(&o.agentNamespaces, "agent-namespaces", nil, "namespaces whose Agents may be referenced (default: all)")
	f.StringSliceVar(&o.agentAllowNetworks, "agent-allow-networks", splitList(os.Getenv("AGENTRY_CHAT_AGENT_ALLOW_NETWORKS")), "internal networks (CIDRs, e.g. 127.0.0.0/8 or 10.96.0.0/12) that agent Deployment URLs and connection tests may reach; default none: public addresses only. Link-local and cloud metadata addresses and the cluster's API server are always refused; in-cluster Agents (agentRef) are always reachable (env AGENTRY_CHAT_AGENT_ALLOW_NETWORKS)")
	registerConnsPerIP(f, &o.maxConnsPerIP)
	o.sso.register(f)
	f.StringSliceVar(&o.trustedProxies, "trusted-proxies", splitList(os.Getenv("AGENTRY_CHAT_TRUSTED_PROXIES")), "CIDRs of proxies (e.g. the Ingress controller's pods) whose X-Forwarded-For names the client, for throttling failed sign-ins per address; loopback always is (env AGENTRY_CHAT_TRUSTED_PROXIES)")
	f.BoolVar(&o.development, "allow-http-agents", os.Getenv("AGENTRY_CHAT_ALLOW_HTTP_AGENTS") == "true", "accept http:// agent Deployment URLs (otherwise https only)")
	f.DurationVar(&o.bridge.idle, "agent-idle-timeout", 60*time.Second, "fail an agent run when its stream sends nothing for this long")
	f.DurationVar(&o.bridge.run, "agent-run-timeout", 5*time.Minute, "fail an agent run that takes longer than this in total (frontend actions included)")
	f.DurationVar(&o.bridge.action, "agent-action-timeout", 2*time.Minute, "answer a frontend action with an error when the user's app has not run it within this time")
	return cmd, o
}

func envBool(key string, def bool) bool {
	if b, err := strconv.ParseBool(os.Getenv(key)); err == nil {
		return b
	}
	return def
}

// envDuration is key's duration (e.g. 720h), def when unset; a value that does not parse is an
// error, not a silent default.
func envDuration(key string, def time.Duration) (time.Duration, error) {
	v := os.Getenv(key)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return def, fmt.Errorf("%s=%q is not a duration (e.g. 720h, or 0 for no expiry)", key, v)
	}
	return d, nil
}

func envFloat(key string, def float64) float64 {
	if f, err := strconv.ParseFloat(os.Getenv(key), 64); err == nil {
		return f
	}
	return def
}

// resolve checks the options and returns the API key; it refuses set-ups that would be unsafe
// or lose data (SQLite under several replicas: each would write its own file).
func (o *chatOptions) resolve(getenv func(string) string) (_ string, err error) {
	switch {
	case strings.HasPrefix(o.storage, "file:"):
		if o.replicas > 1 {
			return "", fmt.Errorf("--storage %s is SQLite, which one replica only may use, but --replicas is %d: use postgres:// storage for several replicas", o.storage, o.replicas)
		}
		if o.mediaDir == "" {
			// Beside the database, so one directory holds all of a chat's data.
			o.mediaDir = filepath.Join(filepath.Dir(strings.SplitN(strings.TrimPrefix(o.storage, "file:"), "?", 2)[0]), "chat-media")
		}
	case strings.HasPrefix(o.storage, "postgres://"), strings.HasPrefix(o.storage, "postgresql://"):
		if o.mediaDir == "" {
			return "", errors.New("--media-dir is required with PostgreSQL storage: a directory every replica shares (e.g. /var/lib/agentry-chat/media on a shared volume)")
		}
	default:
		return "", fmt.Errorf("unsupported --storage %q: use file:PATH or postgres://", store.Redact(o.storage))
	}
	if o.replicas < 1 {
		return "", fmt.Errorf("--replicas must be at least 1")
	}
	if o.rateLimit < 0 || o.rateBurst < 1 {
		return "", fmt.Errorf("--rate-limit must not be negative (0: no limit) and --rate-burst must be at least 1")
	}
	if o.maxMediaBytes <= 0 {
		return "", fmt.Errorf("--max-media-bytes must be positive")
	}
	if o.loginTokenTTLErr != nil {
		return "", o.loginTokenTTLErr
	}
	if o.loginTokenTTL < 0 {
		return "", fmt.Errorf("--login-token-ttl must not be negative (0: login tokens never expire)")
	}
	if o.eventRetentionErr != nil {
		return "", o.eventRetentionErr
	}
	if o.eventRetention < 0 {
		return "", fmt.Errorf("--event-retention must not be negative (0: events are kept forever)")
	}
	key := getenv("AGENTRY_CHAT_API_KEY")
	if o.apiKeyFile != "" {
		b, err := os.ReadFile(o.apiKeyFile)
		if err != nil {
			return "", fmt.Errorf("failed to read API key file %q: %w", o.apiKeyFile, err)
		}
		key = strings.TrimSpace(string(b))
		if key == "" {
			return "", fmt.Errorf("API key file %q is empty", o.apiKeyFile)
		}
	}
	if key != "" && len(key) < minAPIKeyLen {
		return "", fmt.Errorf("the REST API key is shorter than %d characters", minAPIKeyLen)
	}
	if o.authKey != "" && len(o.authKey) < minAPIKeyLen {
		return "", fmt.Errorf("the --auth-key is shorter than %d characters: even a development key must not be guessable", minAPIKeyLen)
	}
	if o.egress, err = agentEgress(o.agentAllowNetworks, getenv); err != nil {
		return "", err
	}
	if o.proxies, err = cidr.Parse(o.trustedProxies); err != nil {
		return "", fmt.Errorf("invalid --trusted-proxies: %w", err)
	}
	if key == "" && o.authKey == "" {
		return "", fmt.Errorf("no credentials: set the REST API key (--api-key-file or AGENTRY_CHAT_API_KEY), or --auth-key for development")
	}
	return key, nil
}

// agentEgress is what admin-configured agent URLs may reach: public addresses, plus the allowed
// internal networks; never the cluster's API server (the Service address the pod was given).
func agentEgress(allow []string, getenv func(string) string) (egress.Policy, error) {
	nets, err := cidr.Parse(allow)
	if err != nil {
		return egress.Policy{}, fmt.Errorf("invalid --agent-allow-networks: %w", err)
	}
	p := egress.Policy{Allow: nets}
	if a, err := netip.ParseAddr(getenv("KUBERNETES_SERVICE_HOST")); err == nil {
		p.Deny = append(p.Deny, a)
	}
	return p, nil
}

// headersKey reads the AES-256 key agent headers are encrypted with: --headers-key-file, else
// AGENTRY_CHAT_HEADERS_KEY; nil when neither is set (agents then cannot have headers).
func (o *chatOptions) headersKey(getenv func(string) string) ([]byte, error) {
	text, from := getenv("AGENTRY_CHAT_HEADERS_KEY"), "AGENTRY_CHAT_HEADERS_KEY"
	if o.headersKeyFile != "" {
		b, err := os.ReadFile(o.headersKeyFile)
		if err != nil {
			return nil, fmt.Errorf("failed to read headers key file %q: %w", o.headersKeyFile, err)
		}
		text, from = string(b), o.headersKeyFile
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, nil
	}
	return parseHeadersKey(text, from)
}

// parseHeadersKey accepts 32 bytes as 64 hex digits or base64.
func parseHeadersKey(text, from string) ([]byte, error) {
	if b, err := hex.DecodeString(text); err == nil && len(b) == 32 {
		return b, nil
	}
	if b, err := base64.StdEncoding.DecodeString(text); err == nil && len(b) == 32 {
		return b, nil
	}
	return nil, fmt.Errorf("the chat headers key from %s must be 32 bytes as 64 hex digits or base64 (openssl rand -hex 32)", from)
}

// runChat opens the store, starts the hub and serves until ctx ends.
func runChat(ctx context.Context, log logr.Logger, o *chatOptions, apiKey string) error {
	if o.headers == nil {
		logwarn.Warn(log, "no chat headers key is configured (--headers-key-file or AGENTRY_CHAT_HEADERS_KEY): agents cannot be given headers, and the chat signs no tokens")
	}
	var err error
	if o.ssoClient, err = o.sso.client(ctx, os.Getenv); err != nil {
		return err
	}
	st, err := store.OpenWith(ctx, o.storage, store.Options{HeadersKey: o.headers})
	if err != nil {
		return fmt.Errorf("failed to open chat storage %q: %w", store.Redact(o.storage), err)
	}
	defer st.Close()
	svc, err := newChatService(log, o, apiKey, st)
	if err != nil {
		return err
	}
	ln, mln, err := listenChat(log, o)
	if err != nil {
		return err
	}
	hubCtx, stopHub := context.WithCancel(context.Background())
	hubDone := make(chan error, 1)
	go func() { hubDone <- svc.hub.Run(hubCtx) }()
	log.Info("serving the chat service", "addr", ln.Addr().String(), "path", chatapi.Prefix, "storage", st.Kind(), "replicas", o.replicas)
	chatBanner(o.out, o, ln.Addr(), st.Kind(), apiKey != "")
	err = svc.serve(ctx, log, o, st, ln, mln)
	// Runs end with an error message while the store is still open.
	runsCtx, cancelRuns := context.WithTimeout(context.Background(), 10*time.Second)
	if berr := svc.bridge.Close(runsCtx); berr != nil {
		log.Error(berr, "agent runs did not stop in time")
	}
	cancelRuns()
	// Sockets are hijacked connections Shutdown does not wait for: the hub closes them.
	stopHub()
	if herr := <-hubDone; herr != nil && !errors.Is(herr, context.Canceled) {
		log.Error(herr, "chat hub stopped with an error")
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("failed to serve the chat service: %w", err)
	}
	return nil
}

// chatService is the chat service on its store: the hub, the agent bridge, the API, and the
// registry of their metrics.
type chatService struct {
	hub     *hub.Hub
	bridge  *bridge.Bridge
	api     *chatapi.API
	metrics *prometheus.Registry
}

func newChatService(log logr.Logger, o *chatOptions, apiKey string, st store.Store) (*chatService, error) {
	var signer *jwtsign.Signer
	if o.issuerURL != "" {
		if err := jwtauth.CheckURL("--issuer-url", o.issuerURL); err != nil {
			return nil, err
		}
		var err error
		if signer, err = jwtsign.New(context.Background(), st, strings.TrimRight(o.issuerURL, "/"), 0); err != nil {
			return nil, fmt.Errorf("failed to set up the chat's token signing (--issuer-url needs the headers key): %w", err)
		}
	}
	h := hub.New(hub.Options{Events: st, Authenticate: chatapi.Authenticator(st), Sessions: st, Logger: log, OriginPatterns: originPatterns(o.corsOrigins), Retention: o.eventRetention,
		Presence: st.SetPresence})
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m, err := chatmetrics.New(reg)
	if err != nil {
		return nil, err
	}
	if err := chatmetrics.RegisterHub(reg, h.Stats); err != nil {
		return nil, err
	}
	var brSigner bridge.Signer
	if signer != nil {
		brSigner = signer
	}
	var serviceTokens bridge.ServiceTokens
	serviceAccount := ""
	if o.serviceTokens != nil {
		serviceTokens, serviceAccount = o.serviceTokens, o.serviceAccount
	}
	br := bridge.New(bridge.Options{Store: st, Publisher: h, Logger: log, Resolver: o.resolver, Metrics: m, Egress: o.egress, Signer: brSigner, ServiceTokens: serviceTokens,
		IdleTimeout: o.bridge.idle, RunTimeout: o.bridge.run, ActionTimeout: o.bridge.action})
	h.Observe(br.OnEvent)
	h.OnReplay(br.Replay)
	a := chatapi.New(chatapi.Options{
		Store: st, Hub: h, APIKey: apiKey, AuthKey: o.authKey, AppID: o.appID, LoginTokenTTL: o.loginTokenTTL,
		MaxMediaBytes: o.maxMediaBytes, MediaDir: o.mediaDir, Logger: log, Bridge: br, RateLimit: o.rateLimit, RateBurst: o.rateBurst,
		Development: o.development, CORSOrigins: o.corsOrigins, Metrics: m, AgentEgress: o.egress,
		TrustedProxies: o.proxies, SSO: o.ssoClient, SessionTTL: o.sso.sessionTTL, SessionIdleTimeout: o.sso.sessionIdle, Signer: signer,
		ServiceAccount: serviceAccount,
	})
	return &chatService{hub: h, bridge: br, api: a, metrics: reg}, nil
}

// listenChat opens the public listener and the metrics listener (nil when off, or when the
// default address is taken).
func listenChat(log logr.Logger, o *chatOptions) (ln, mln net.Listener, err error) {
	ln, err = net.Listen("tcp", o.addr)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to listen on %q: %w", o.addr, err)
	}
	// Metrics and probes listen apart, so an Ingress in front of the public port never
	// exposes them.
	if o.metricsAddr != "" {
		if mln, err = net.Listen("tcp", o.metricsAddr); err != nil {
			if o.metricsAddrSet {
				_ = ln.Close()
				return nil, nil, fmt.Errorf("failed to listen on --metrics-addr %q: %w", o.metricsAddr, err)
			}
			logwarn.Warn(log, "serving no metrics: the default --metrics-addr is taken (set --metrics-addr, or --metrics-addr= to turn metrics off)", "addr", o.metricsAddr, "error", err.Error())
			mln = nil
		}
	}
	return ln, mln, nil
}

// serve serves the API (and the web app) on ln and the metrics on mln until ctx ends or a
// listener fails.
func (svc *chatService) serve(ctx context.Context, log logr.Logger, o *chatOptions, st store.Store, ln, mln net.Listener) (err error) {
	var mounts []func(*echo.Echo)
	if o.web {
		mounts = append(mounts, mountWeb(st, o.appID, o.authKey, false, o.ssoClient))
		if !webapp.Built() {
			log.Info("the web app is not built into this binary (make web, then rebuild): / answers how to build it")
		}
	}
	srv := httpserve.Server(svc.api.Handler(mounts...), httpserve.Limits{Uploads: chatapi.IsUpload, Timeout: chatapi.RequestTimeout, MaxConnsPerIP: connsPerIP(o.maxConnsPerIP)})
	ln = httpserve.LimitPerIP(ln, max(o.maxConnsPerIP, 0))
	errc := make(chan error, 2)
	var msrv *http.Server
	if mln != nil {
		log.Info("serving chat metrics and probes", "addr", mln.Addr().String(), "paths", "/metrics /healthz /readyz")
		msrv = &http.Server{Handler: metricsHandler(svc.metrics, st, log), ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := msrv.Serve(mln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("metrics listener: %w", err)
			}
		}()
	}
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err = <-errc:
		// One listener failed: stop the other before the hub and store close under it.
		_ = srv.Close()
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = srv.Shutdown(shutdownCtx)
		cancel()
	}
	if msrv != nil {
		_ = msrv.Close()
	}
	return err
}

// metricsHandler serves the private listener: Prometheus metrics, liveness and readiness
// (the store answers a ping).
func metricsHandler(reg *prometheus.Registry, st store.Store, log logr.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", httpserve.Healthz)
	mux.Handle("GET /readyz", httpserve.Readyz(func(ctx context.Context) []httpserve.Unavailable {
		if err := st.Ping(ctx); err != nil {
			log.Error(err, "readiness: chat storage is unavailable", "storage", st.Kind())
			return []httpserve.Unavailable{{Dependency: "storage", Kind: st.Kind()}}
		}
		return nil
	}, nil))
	return mux
}

// originPatterns turns CORS origins into the WebSocket's origin patterns (hosts): with some
// configured, a socket from another origin must be one of them. With none the socket checks
// no origin (see hub.Options.OriginPatterns: tokens come in the first frame, never from a
// cookie, so a foreign page gains nothing it could not do with its own token).
func originPatterns(origins []string) []string {
	if len(origins) == 0 {
		return nil
	}
	out := make([]string, 0, len(origins))
	for _, o := range origins {
		if o == "*" {
			return []string{"*"}
		}
		if u, err := url.Parse(o); err == nil && u.Host != "" {
			out = append(out, u.Host)
		}
	}
	return out
}
