package httpserve

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/labstack/echo/v4"
)

const (
	// HeaderRequestID carries a request's id, answered on every response.
	HeaderRequestID = "X-Request-Id"
	ctxRequestID    = "agentry.requestId"
	maxRequestIDLen = 64
)

// Observer configures Observe for one service.
type Observer struct {
	Logger logr.Logger
	// Message is the log line's message ("request", "chat request").
	Message string
	// Routes are the route prefixes reported by name; any other route (and a catch-all
	// "/*") is "other", so metrics stay bounded whatever paths clients invent.
	Routes []string
	// Record receives each answered request (the service's metrics); nil: none.
	Record func(c echo.Context, route string, status int, d time.Duration)
}

// Observe gives every request an id (X-Request-Id: a proxy's when it is safe to log, else a
// fresh one), answers errors through the echo's handler so the status is known, records the
// request and logs one line: at debug level, or info for a 5xx. The line holds the method, the
// route template, the status and the duration: never headers, tokens, query strings or bodies.
func Observe(o Observer) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			id := RequestIDOf(c) // a service mounted on another's echo keeps the host's id
			if id == "" {
				id = requestID(c.Request().Header.Get(HeaderRequestID))
				c.Set(ctxRequestID, id)
			}
			c.Response().Header().Set(HeaderRequestID, id)
			if err := next(c); err != nil {
				c.Error(err)
			}
			route := o.route(c.Path())
			status, d := c.Response().Status, time.Since(start)
			if o.Record != nil {
				o.Record(c, route, status, d)
			}
			kv := []any{"requestId", id, "method", c.Request().Method, "route", route, "status", status, "duration", d.String()}
			if status >= 500 {
				o.Logger.Info(o.Message, kv...)
			} else {
				o.Logger.V(1).Info(o.Message, kv...)
			}
			return nil
		}
	}
}

func (o Observer) route(path string) string {
	if path == "" || strings.HasSuffix(path, "/*") {
		return "other"
	}
	for _, p := range o.Routes {
		if strings.HasPrefix(path, p) {
			return path
		}
	}
	return "other"
}

// RequestIDOf returns the request's id (set by Observe).
func RequestIDOf(c echo.Context) string {
	id, _ := c.Get(ctxRequestID).(string)
	return id
}

// Log is log with the request's id, when it has one.
func Log(c echo.Context, log logr.Logger) logr.Logger {
	if id := RequestIDOf(c); id != "" {
		return log.WithValues("requestId", id)
	}
	return log
}

// requestID is the id a proxy sent when it is short and made of safe characters (so it can go
// into logs as is), else a fresh random one.
func requestID(incoming string) string {
	if validRequestID(incoming) {
		return incoming
	}
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func validRequestID(s string) bool {
	if s == "" || len(s) > maxRequestIDLen {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.', r == ':':
		default:
			return false
		}
	}
	return true
}
