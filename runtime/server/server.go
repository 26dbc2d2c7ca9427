// Package server is the runtime's HTTP API on echo: the Mastra-compatible agent routes under
// /api, health and metrics.
package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"k8s.io/client-go/rest"

	"github.com/agentry-dev/agentry/internal/platform/defaults"
	"github.com/agentry-dev/agentry/internal/platform/egress"
	"github.com/agentry-dev/agentry/internal/platform/httpserve"
	"github.com/agentry-dev/agentry/internal/platform/ratelimit"
	"github.com/agentry-dev/agentry/runtime/memory"
	"github.com/agentry-dev/agentry/runtime/metrics"
	"github.com/agentry-dev/agentry/runtime/registry"
	"github.com/agentry-dev/agentry/runtime/runlog"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

// DefaultAddr is where the runtime listens (Mastra's local development port).
const DefaultAddr = ":4111"

// DefaultMaxBodyBytes limits request bodies unless an agent sets its own limit.
const DefaultMaxBodyBytes = 1 << 20

// DefaultDrainTimeout is how long open streams may run on after a shutdown signal before
// they are ended with RUN_ERROR (the rendered Deployment's grace period leaves room for it).
const DefaultDrainTimeout = 25 * time.Second

// DefaultKeepAlive is the interval of SSE comment frames on an otherwise idle stream: proxies
// commonly cut streams that send nothing for 60 s, and a tool or model step can take longer.
const DefaultKeepAlive = 15 * time.Second

// Options configure a Server.
type Options struct {
	Registry *registry.Registry
	Logger   logr.Logger
	// MaxBodyBytes limits request bodies (default DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// CORSOrigins are the browser origins allowed to call agents that set no
	// spec.endpoint.corsOrigins ("*" for any). Default: none, so browsers on other origins are
	// refused.
	CORSOrigins []string
	// TrustedProxies are the networks whose X-Forwarded-For is believed. Default: loopback only.
	TrustedProxies []netip.Prefix
	// RateLimitKeys bounds the rate limiter's table (default ratelimit.DefaultMaxKeys).
	RateLimitKeys int
	// DrainTimeout is how long streams may finish on their own at shutdown (default
	// DefaultDrainTimeout).
	DrainTimeout time.Duration
	// KeepAlive is the SSE comment-frame interval (default DefaultKeepAlive).
	KeepAlive time.Duration
	// Secrets resolves endpoint auth Secrets (headersSecretRef).
	Secrets secrets.Source
	// Mount adds routes of other services beside the runtime's (agentry dev mounts the chat
	// service); they bring their own auth.
	Mount func(*echo.Echo)
	// Limits are the connection's timeouts and the per-address connection cap (Serve).
	Limits httpserve.Limits
	// Version is the runtime's version (the agent card's version).
	Version string
	// RunTimeout bounds a run, followed or not (default DefaultRunTimeout).
	RunTimeout time.Duration
	// Runs bound the runs' event logs kept for clients that re-attach (zero: runlog's defaults).
	Runs runlog.Limits
	// ClusterConfig finds the API server whose ServiceAccount tokens agents with
	// spec.endpoint.auth.serviceAccounts accept (in a pod: its own; nil: none).
	ClusterConfig func() (*rest.Config, error)
}

// Server serves the runtime API.
type Server struct {
	opts   Options
	echo   *echo.Echo
	auth   *authChecker
	limits *ratelimit.Limiter
	// draining is canceled when the drain period after a shutdown signal is over: the runs
	// still streaming then are ended with RUN_ERROR.
	draining   context.Context
	stopStream context.CancelFunc
	// localStore keeps the runs stopped for approval and the A2A tasks of agents without memory.
	localStore *memory.InMemory
	// a2a holds each agent's A2A handler.
	a2a a2aHandlers
	// runs keeps the event logs of AG-UI runs, which outlive their requests; detached counts
	// the runs going on (Serve waits for them).
	runs     *runlog.Runs
	detached sync.WaitGroup
}

// New builds the server and its routes.
func New(opts Options) *Server {
	defaults.Positive(&opts.MaxBodyBytes, DefaultMaxBodyBytes)
	defaults.Positive(&opts.DrainTimeout, DefaultDrainTimeout)
	defaults.Positive(&opts.KeepAlive, DefaultKeepAlive)
	defaults.Positive(&opts.RunTimeout, DefaultRunTimeout)
	s := &Server{opts: opts, runs: runlog.New(opts.Runs), auth: &authChecker{secrets: opts.Secrets, client: egress.Policy{AllowInternal: true}.Client(10 * time.Second), cluster: &clusterIssuer{config: opts.ClusterConfig}}, limits: ratelimit.New(opts.RateLimitKeys), localStore: memory.NewInMemory()}
	s.draining, s.stopStream = context.WithCancel(context.Background())
	e := httpserve.NewEcho(httpserve.EchoOptions{Logger: opts.Logger, TrustedProxies: opts.TrustedProxies, ErrorHandler: errorHandler(opts.Logger)})
	s.echo = e
	e.Use(httpserve.Observe(httpserve.Observer{Logger: opts.Logger, Message: "request", Routes: []string{"/api/", a2aPrefix, "/.well-known/", "/metrics", "/healthz", "/readyz"}, Record: s.record}))
	e.Use(s.requestContext)
	e.Use(httpserve.CORS(httpserve.CORSPolicy{Origins: s.corsOrigins, RefuseOthers: true, AllowMethods: "GET, POST, OPTIONS", ExposeHeaders: "Retry-After",
		Refuse: func(echo.Context) error { return echo.NewHTTPError(http.StatusForbidden, "Origin not allowed") }}))

	e.GET("/healthz", echo.WrapHandler(http.HandlerFunc(httpserve.Healthz)))
	e.GET("/readyz", echo.WrapHandler(httpserve.Readyz(s.unavailable, func() map[string]any { return map[string]any{"agents": len(s.opts.Registry.IDs())} })))
	e.GET("/metrics", echo.WrapHandler(promhttp.HandlerFor(metrics.Registry, promhttp.HandlerOpts{})))

	api := e.Group("/api")
	api.GET("/agents", s.listAgents)
	api.GET("/agents/:agentId", s.guard(s.getAgent))
	api.Any("/agents/:agentId/generate", postOnly(s.guard(endRun(s.generate))))
	api.Any("/agents/:agentId/stream", postOnly(s.guard(endRun(s.stream))))
	api.Any("/agents/:agentId/ag-ui", postOnly(s.guard(endRun(s.agui))))
	api.GET("/agents/:agentId/ag-ui/capabilities", s.guard(s.aguiCapabilities))
	api.GET("/agents/:agentId/ag-ui/runs/:runId", s.guard(s.attach(aguiRunKey)))
	api.Any("/agents/:agentId/ag-ui/runs/:runId/cancel", postOnly(s.guard(s.cancelRun(aguiRunKey))))
	api.GET("/agents/:agentId/stream/runs/:runId", s.guard(s.attach(streamRunKey)))
	api.Any("/agents/:agentId/stream/runs/:runId/cancel", postOnly(s.guard(s.cancelRun(streamRunKey))))
	api.Any("/agents/:agentId/approve-tool-call", postOnly(s.guard(endRun(s.approveToolCall))))
	api.Any("/agents/:agentId/decline-tool-call", postOnly(s.guard(endRun(s.declineToolCall))))
	api.GET("/agents/:agentId/tools/:toolId", s.guard(s.getTool))
	api.Any("/agents/:agentId/tools/:toolId/execute", postOnly(s.guard(s.executeTool)))
	api.GET("/memory/threads", agentIDFromQuery(s.guard(s.listThreads)))
	api.GET("/memory/threads/:threadId/messages", agentIDFromQuery(s.guard(s.threadMessages)))
	e.Any(a2aPrefix+":agentId", postOnly(s.guard(endRun(s.a2aServe))))
	e.GET(a2aPrefix+":agentId"+a2aCardSuffix, s.agentCard)
	e.GET("/.well-known/:agentId/agent-card.json", s.agentCard)
	if opts.Mount != nil {
		opts.Mount(e)
	}
	return s
}

// unavailable pings each memory store once, naming the agents that use the ones that are
// down; the errors go to the log.
func (s *Server) unavailable(ctx context.Context) []httpserve.Unavailable {
	var failing []httpserve.Unavailable
	byStore := map[memory.Store]int{}
	for _, id := range s.opts.Registry.IDs() {
		e, _ := s.opts.Registry.Get(id)
		if e == nil || e.Memory == nil {
			continue
		}
		if i, seen := byStore[e.Memory]; seen {
			if i >= 0 {
				failing[i].Agents = append(failing[i].Agents, id)
			}
			continue
		}
		if err := e.Memory.Ping(ctx); err != nil {
			s.opts.Logger.Error(err, "readiness: conversation memory is unavailable", "agent", id, "storage", e.Memory.Kind())
			byStore[e.Memory] = len(failing)
			failing = append(failing, httpserve.Unavailable{Dependency: "memory", Kind: e.Memory.Kind(), Agents: []string{id}})
			continue
		}
		byStore[e.Memory] = -1
	}
	return failing
}

// Handler exposes the server as an http.Handler (for tests and embedding).
func (s *Server) Handler() http.Handler { return s.echo }

// Serve serves on ln until ctx ends, then shuts down: it stops accepting connections, lets
// open streams finish for DrainTimeout, ends the ones still running with RUN_ERROR, and
// returns nil once every response is complete.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := httpserve.Server(s.echo, s.opts.Limits)
	ln = httpserve.LimitPerIP(ln, s.opts.Limits.PerIP())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		s.stopStream()
		return err
	case <-ctx.Done():
	}
	// Shutdown returns once every connection is idle; streams keep it waiting until they end.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), s.opts.DrainTimeout+10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(shutdownCtx) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(s.opts.DrainTimeout):
		s.opts.Logger.Info("drain period over; ending the streams still open")
		s.stopStream()
		err = <-done
	}
	s.stopStream()
	// Runs whose clients left are no response Shutdown waits for; the drain's end canceled them.
	s.detached.Wait()
	if err != nil {
		_ = srv.Close()
		return fmt.Errorf("failed to shut down the HTTP server: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// runContext is the context of a run: it ends when the client goes away or when the drain
// period after a shutdown signal is over. stopped tells which.
func (s *Server) runContext(c echo.Context) (ctx context.Context, stopped func() bool, cancel func()) {
	ctx, cancelCtx := context.WithCancel(c.Request().Context())
	stop := context.AfterFunc(s.draining, cancelCtx)
	return ctx, func() bool { return s.draining.Err() != nil && c.Request().Context().Err() == nil }, func() {
		stop()
		cancelCtx()
	}
}

// jsonError is the body of every error response.
type jsonError struct {
	Error string `json:"error"`
}

func errorHandler(log logr.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		code := http.StatusInternalServerError
		msg := "Internal server error"
		var he *echo.HTTPError
		if errors.As(err, &he) {
			code = he.Code
			msg = fmt.Sprint(he.Message)
			if he.Message == nil || msg == http.StatusText(code) {
				// echo's stock messages, normalised to the API's wording.
				switch code {
				case http.StatusNotFound:
					msg = "Not found"
				case http.StatusMethodNotAllowed:
					msg = "Method not allowed"
				case http.StatusRequestEntityTooLarge:
					msg = "Request body too large"
				default:
					msg = http.StatusText(code)
				}
			}
		} else {
			log.Error(err, "request failed", "path", c.Path())
		}
		if c.Request().Method == http.MethodHead {
			_ = c.NoContent(code)
			return
		}
		_ = c.JSON(code, jsonError{Error: msg})
	}
}

// requestContext puts the logger in the request's context (tools and the agent loop log
// through it, causes kept off the wire) and continues a caller's W3C traceparent, so the run's
// spans are part of its trace.
func (s *Server) requestContext(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := otel.GetTextMapPropagator().Extract(c.Request().Context(), propagation.HeaderCarrier(c.Request().Header))
		c.SetRequest(c.Request().WithContext(logr.NewContext(ctx, httpserve.Log(c, s.opts.Logger))))
		return next(c)
	}
}

// record counts a request under its agent (only a known one: ids are client input).
func (s *Server) record(c echo.Context, route string, status int, d time.Duration) {
	agentID := c.Param("agentId")
	if _, ok := s.opts.Registry.Get(agentID); !ok {
		agentID = ""
	}
	metrics.HTTPRequests.WithLabelValues(agentID, route, strconv.Itoa(status)).Inc()
	metrics.HTTPDuration.WithLabelValues(agentID, route).Observe(d.Seconds())
}

// postOnly answers every method but POST with 405 {"error":"Method not allowed"}, as the
// specification's deployment wrapper does (OPTIONS is left to CORS pre-flight handling).
func postOnly(h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		switch c.Request().Method {
		case http.MethodPost:
			return h(c)
		case http.MethodOptions:
			return c.NoContent(http.StatusNoContent)
		default:
			return echo.NewHTTPError(http.StatusMethodNotAllowed)
		}
	}
}
