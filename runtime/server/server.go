// Package server is the runtime's HTTP API on echo: the Mastra-compatible agent routes under
// /api, health and metrics.
package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/agentry-dev/agentry/runtime/metrics"
	"github.com/agentry-dev/agentry/runtime/registry"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

// DefaultAddr is where the runtime listens (Mastra's local development port).
const DefaultAddr = ":4111"

// DefaultMaxBodyBytes limits request bodies unless an agent sets its own limit.
const DefaultMaxBodyBytes = 1 << 20

// Options configure a Server.
type Options struct {
	Registry *registry.Registry
	Logger   logr.Logger
	// MaxBodyBytes limits request bodies (default DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// CORSOrigins are the allowed origins (default: any).
	CORSOrigins []string
	// Secrets resolves endpoint auth Secrets (headersSecretRef).
	Secrets secrets.Source
}

// Server serves the runtime API.
type Server struct {
	opts   Options
	echo   *echo.Echo
	auth   *authChecker
	limits *rateLimiters
}

// New builds the server and its routes.
func New(opts Options) *Server {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if len(opts.CORSOrigins) == 0 {
		opts.CORSOrigins = []string{"*"}
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = errorHandler(opts.Logger)
	// Behind an Ingress the client address is in X-Forwarded-For; trust it only from
	// loopback and private networks, where proxies live.
	e.IPExtractor = echo.ExtractIPFromXFFHeader()
	s := &Server{opts: opts, echo: e, auth: &authChecker{secrets: opts.Secrets}, limits: &rateLimiters{}}

	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{DisablePrintStack: true, LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
		opts.Logger.Error(err, "panic while serving a request", "path", c.Path())
		return err
	}}))
	e.Use(s.observe)
	e.Use(middleware.CORSWithConfig(middleware.CORSConfig{AllowOrigins: opts.CORSOrigins, AllowHeaders: []string{"*"}}))

	e.GET("/healthz", func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) })
	e.GET("/readyz", func(c echo.Context) error {
		if err := s.storesReady(c.Request().Context()); err != nil {
			return c.JSON(http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "error": err.Error()})
		}
		return c.JSON(http.StatusOK, map[string]any{"status": "ok", "agents": len(opts.Registry.IDs())})
	})
	e.GET("/metrics", echo.WrapHandler(promhttp.HandlerFor(metrics.Registry, promhttp.HandlerOpts{})))

	api := e.Group("/api")
	api.GET("/agents", s.listAgents)
	api.GET("/agents/:agentId", s.guard(s.getAgent))
	api.Any("/agents/:agentId/generate", postOnly(s.guard(s.generate)))
	api.Any("/agents/:agentId/stream", postOnly(s.guard(s.stream)))
	api.Any("/agents/:agentId/ag-ui", postOnly(s.guard(s.agui)))
	api.GET("/agents/:agentId/tools/:toolId", s.guard(s.getTool))
	api.Any("/agents/:agentId/tools/:toolId/execute", postOnly(s.guard(s.executeTool)))
	api.GET("/memory/threads", agentIDFromQuery(s.guard(s.listThreads)))
	api.GET("/memory/threads/:threadId/messages", agentIDFromQuery(s.guard(s.threadMessages)))
	return s
}

// Handler exposes the server as an http.Handler (for tests and embedding).
func (s *Server) Handler() http.Handler { return s.echo }

// Serve serves on ln until ctx ends, then shuts down gracefully.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s.echo, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("failed to shut down the HTTP server: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ListenAndServe listens on addr and serves until ctx ends.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("failed to listen on %q: %w", addr, err)
	}
	return s.Serve(ctx, ln)
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

// observe records metrics and a debug log line per request.
func (s *Server) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		route := c.Path()
		if route == "" || !strings.HasPrefix(route, "/api") {
			if route != "/metrics" && route != "/healthz" && route != "/readyz" {
				route = "other"
			}
		}
		agentID := c.Param("agentId")
		if _, ok := s.opts.Registry.Get(agentID); !ok {
			agentID = ""
		}
		code := c.Response().Status
		metrics.HTTPRequests.WithLabelValues(agentID, route, strconv.Itoa(code)).Inc()
		metrics.HTTPDuration.WithLabelValues(agentID, route).Observe(time.Since(start).Seconds())
		s.opts.Logger.V(1).Info("request", "method", c.Request().Method, "path", c.Request().URL.Path, "status", code, "duration", time.Since(start).String())
		return nil
	}
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
