package api

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
	ctxRequestID    = "chat.requestId"
	maxRequestIDLen = 64
)

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

// RequestIDOf returns the request's id (set by the API's middleware).
func RequestIDOf(c echo.Context) string {
	id, _ := c.Get(ctxRequestID).(string)
	return id
}

// log is the API's logger with the request's id.
func (a *API) log(c echo.Context) logr.Logger {
	if id := RequestIDOf(c); id != "" {
		return a.opts.Logger.WithValues("requestId", id)
	}
	return a.opts.Logger
}

// observe gives every request an id (X-Request-Id, answered and logged), records its metrics
// and logs one line: at debug level, or info for 5xx. The line holds the method, the route
// template, the status and the duration: never headers, tokens, query strings or bodies.
func (a *API) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		id := requestID(c.Request().Header.Get(HeaderRequestID))
		c.Set(ctxRequestID, id)
		c.Response().Header().Set(HeaderRequestID, id)
		err := next(c)
		route := c.Path()
		if route == "" || !strings.HasPrefix(route, Prefix) || strings.HasSuffix(route, "/*") {
			route = "other"
		}
		status := c.Response().Status
		if err != nil && !c.Response().Committed {
			// Not answered yet (errors answers inside the group): the host's handler will.
			status = 500
		}
		d := time.Since(start)
		socket := route == Prefix+"/ws"
		a.opts.Metrics.Request(c.Request().Method, route, status, d, socket)
		kv := []any{"requestId", id, "method", c.Request().Method, "route", route, "status", status, "duration", d.String()}
		if status >= 500 {
			a.opts.Logger.Info("chat request", kv...)
		} else {
			a.opts.Logger.V(1).Info("chat request", kv...)
		}
		return err
	}
}
