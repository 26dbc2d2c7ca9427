package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/internal/platform/ids"
	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/memory"
	"github.com/agentry-dev/agentry/runtime/registry"
)

// memoryRef is the thread a request talks in: Mastra's `memory {thread, resource}` (thread a
// string or {id}), or the older top-level threadId/resourceId.
type memoryRef struct {
	Thread   string
	Resource string
}

func parseMemoryRef(req *generateRequest) (*memoryRef, error) {
	ref := &memoryRef{Thread: req.ThreadID, Resource: req.ResourceID}
	if req.Memory != nil {
		if len(req.Memory.Thread) > 0 && string(req.Memory.Thread) != "null" {
			var s string
			if json.Unmarshal(req.Memory.Thread, &s) != nil {
				var obj struct {
					ID string `json:"id"`
				}
				if err := json.Unmarshal(req.Memory.Thread, &obj); err != nil {
					return nil, errors.New("memory.thread must be a string or an object with an id")
				}
				s = obj.ID
			}
			ref.Thread = s
		}
		if req.Memory.Resource != "" {
			ref.Resource = req.Memory.Resource
		}
	}
	if ref.Thread == "" {
		if ref.Resource != "" {
			return nil, errors.New("memory.thread is required with memory.resource")
		}
		return nil, nil
	}
	return ref, nil
}

// msgThreadForbidden answers a caller whose resource is not the thread's owner; like Mastra's,
// it does not say who the owner is.
const msgThreadForbidden = "Access denied: thread belongs to a different resource"

// persistTimeout bounds storing a finished turn. The store gets a context detached from the
// request: a client that leaves right after the last event must not lose a turn the model
// already answered.
const persistTimeout = 10 * time.Second

// memoryFailure turns a store error into the answer the caller may see: 403 for a thread of
// another resource, else a generic message (the cause, which may name hosts or SQL, is logged
// by the caller).
func memoryFailure(err error, status int, prefix string) *echo.HTTPError {
	if errors.Is(err, memory.ErrThreadOwnedByOther) {
		return echo.NewHTTPError(http.StatusForbidden, msgThreadForbidden)
	}
	return echo.NewHTTPError(status, prefix+memory.ErrUnavailable.Error())
}

// memoryErrorMessage is what a stream tells its client when the turn could not be stored.
func memoryErrorMessage(err error) string {
	return fmt.Sprint(memoryFailure(err, http.StatusInternalServerError, "").Message)
}

// withMemory prepends the thread's recalled messages to the request's and gives the new
// messages ids for storing. It answers 400 for an agent without memory, 403 for a thread of
// another resource, 500 when the store fails.
func (s *Server) withMemory(ctx context.Context, e *registry.Entry, ref *memoryRef, in *agent.Input) ([]llm.Message, error) {
	if e.Memory == nil {
		return nil, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("agent %s has no memory configured (spec.memory)", e.Agent.ID))
	}
	history, err := e.Memory.Recall(ctx, e.Agent.ID, ref.Thread, ref.Resource, e.LastMessages)
	if err != nil {
		agent.FailRun(ctx, memoryErrorType(err))
		if !errors.Is(err, memory.ErrThreadOwnedByOther) {
			s.opts.Logger.Error(err, "failed to recall conversation memory", "agent", e.Agent.ID, "threadId", ref.Thread)
		}
		return nil, memoryFailure(err, http.StatusInternalServerError, "failed to recall conversation memory: ")
	}
	fresh := make([]llm.Message, 0, len(in.Messages))
	for _, m := range in.Messages {
		if m.ID == "" {
			m.ID = ids.New("msg")
		}
		fresh = append(fresh, m)
	}
	in.Messages = agent.RepairHistory(append(memory.ToModel(history), fresh...))
	return fresh, nil
}

// remember stores a turn: the new request messages and what the run added. It runs on a
// context detached from the request's (see persistTimeout).
func remember(ctx context.Context, e *registry.Entry, ref *memoryRef, msgs ...[]llm.Message) error {
	var out []memory.Message
	for _, list := range msgs {
		for _, m := range list {
			if m.Role == "system" || m.Role == "developer" || m.ID == "" {
				continue // instructions are the agent's, not the conversation's
			}
			out = append(out, memory.FromModel(m))
		}
	}
	if len(out) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), persistTimeout)
	defer cancel()
	if err := e.Memory.Save(ctx, e.Agent.ID, ref.Thread, ref.Resource, out); err != nil {
		agent.FailRun(ctx, memoryErrorType(err))
		return fmt.Errorf("failed to save conversation memory of thread %q: %w", ref.Thread, err)
	}
	return nil
}

// sinkForMemory keeps a run of a thread going when the client can no longer be written to. A
// client that leaves cancels the run's context, which stops the model and the tools; but one
// that leaves after the model's last answer (right after the last text event) must not lose
// the turn that is about to be stored.
func sinkForMemory(remembering bool, sink agent.Sink) agent.Sink {
	if !remembering {
		return sink
	}
	return func(ev agent.Event) error {
		_ = sink(ev)
		return nil
	}
}

// readQuery is what both read routes need: the caller's resource and the page.
type readQuery struct {
	resource string
	page     memory.Page
}

// parseReadQuery takes the agent of ?agentId= (resolved through the same guard as the agent
// routes: auth, rate limit), which must have memory, and reads ?resourceId= (required: a
// thread is only readable by its owner; older Mastra clients spell it resourceid) and the
// Mastra-style page: ?page= counts from 0, ?perPage= (or ?limit=) defaults to 50 and is
// capped at 100.
func parseReadQuery(c echo.Context) (*registry.Entry, *readQuery, error) {
	e := agentOf(c)
	if e.Memory == nil {
		return nil, nil, echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("agent %s has no memory configured (spec.memory)", e.Agent.ID))
	}
	q := &readQuery{resource: c.QueryParam("resourceId"), page: memory.Page{Size: memory.DefaultPageSize}}
	q.resource = cmp.Or(q.resource, c.QueryParam("resourceid"))
	var err error
	if q.resource, err = boundResource(c, q.resource); err != nil {
		return nil, nil, err
	}
	if q.resource == "" {
		return nil, nil, echo.NewHTTPError(http.StatusBadRequest, "resourceId is required")
	}
	if v := c.QueryParam("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, nil, echo.NewHTTPError(http.StatusBadRequest, "page must be a whole number from 0")
		}
		q.page.Number = n
	}
	for _, name := range []string{"limit", "perPage"} {
		if v := c.QueryParam(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil, nil, echo.NewHTTPError(http.StatusBadRequest, name+" must be a whole number from 1")
			}
			q.page.Size = min(n, memory.MaxPageSize)
		}
	}
	return e, q, nil
}

// readFailure logs a store failure of a read route and answers without its cause.
func (s *Server) readFailure(c echo.Context, e *registry.Entry, err error) error {
	if errors.Is(err, memory.ErrThreadOwnedByOther) {
		return echo.NewHTTPError(http.StatusForbidden, msgThreadForbidden)
	}
	s.opts.Logger.Error(err, "failed to read conversation memory", "agent", e.Agent.ID, "path", c.Request().URL.Path)
	return echo.NewHTTPError(http.StatusServiceUnavailable, memory.ErrUnavailable.Error())
}

// listThreads serves GET /api/memory/threads?agentId=&resourceId=[&page=&perPage=], answering
// Mastra's {threads, total, page, perPage, hasMore}.
func (s *Server) listThreads(c echo.Context) error {
	e, q, err := parseReadQuery(c)
	if err != nil {
		return err
	}
	page, err := e.Memory.Threads(c.Request().Context(), e.Agent.ID, q.resource, q.page)
	if err != nil {
		return s.readFailure(c, e, err)
	}
	return c.JSON(http.StatusOK, map[string]any{
		"threads": page.Threads, "total": page.Total, "page": q.page.Number, "perPage": q.page.Size, "hasMore": page.HasMore,
	})
}

// threadMessages serves GET /api/memory/threads/{threadId}/messages?agentId=&resourceId=
// [&page=&perPage=], answering {messages, total, page, perPage, hasMore}, oldest first.
func (s *Server) threadMessages(c echo.Context) error {
	e, q, err := parseReadQuery(c)
	if err != nil {
		return err
	}
	page, err := e.Memory.Messages(c.Request().Context(), e.Agent.ID, c.Param("threadId"), q.resource, q.page)
	if errors.Is(err, memory.ErrThreadNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("Thread %s not found", c.Param("threadId")))
	}
	if err != nil {
		return s.readFailure(c, e, err)
	}
	return c.JSON(http.StatusOK, map[string]any{
		"messages": page.Messages, "total": page.Total, "page": q.page.Number, "perPage": q.page.Size, "hasMore": page.HasMore,
	})
}

// agentIDFromQuery lets the guard find the agent of the memory routes.
func agentIDFromQuery(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := strings.TrimSpace(c.QueryParam("agentId"))
		if id == "" {
			return echo.NewHTTPError(http.StatusBadRequest, "agentId is required")
		}
		c.Set("agentry.agentId", id)
		return next(c)
	}
}
