package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/memory"
	"github.com/agentry-dev/agentry/runtime/registry"
)

// beginRun opens the agent's run span on the request before the server's own work for the run
// (recalling or storing the thread), so that work and the run are one span's children (see
// agent.BeginRun); endRun closes it. Only agents with memory do such work: a run of any other
// observes itself.
func beginRun(c echo.Context, e *registry.Entry, conversation string) context.Context {
	ctx := e.Agent.BeginRun(c.Request().Context(), conversation)
	c.SetRequest(c.Request().WithContext(ctx))
	return ctx
}

// beginResume is beginRun for an answer to a run stopped for approval: the stopped run is read
// from the agent's memory store (its thread is known once it is read).
func (s *Server) beginResume(c echo.Context, e *registry.Entry) context.Context {
	if e.Memory == nil {
		return c.Request().Context()
	}
	return beginRun(c, e, "")
}

// endRun closes the run a handler began (if it did), after the handler's answer. A refusal the
// handler returned is the span's error.type as an HTTP server span would have it: the status code.
func endRun(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := next(c)
		ctx := c.Request().Context()
		if err != nil {
			code := http.StatusInternalServerError
			var he *echo.HTTPError
			if errors.As(err, &he) {
				code = he.Code
			}
			agent.FailRun(ctx, strconv.Itoa(code))
		}
		agent.EndRun(ctx)
		return err
	}
}

// memoryErrorType is the error.type of a store failure around a run.
func memoryErrorType(err error) string {
	if errors.Is(err, memory.ErrThreadOwnedByOther) {
		return "thread_forbidden"
	}
	return "memory_error"
}
