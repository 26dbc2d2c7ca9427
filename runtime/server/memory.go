package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/memory"
	"github.com/agentry-dev/agentry/runtime/model"
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

// withMemory prepends the thread's recalled messages to the request's and gives the new
// messages ids for storing. It answers 400 for an agent without memory, 500 when the store
// fails.
func withMemory(ctx context.Context, e *registry.Entry, ref *memoryRef, in *agent.Input) ([]model.Message, error) {
	if e.Memory == nil {
		return nil, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("agent %s has no memory configured (spec.memory)", e.Agent.ID))
	}
	history, err := e.Memory.Recall(ctx, e.Agent.ID, ref.Thread, e.LastMessages)
	if err != nil {
		return nil, echo.NewHTTPError(http.StatusInternalServerError, "failed to recall conversation memory: "+err.Error())
	}
	fresh := make([]model.Message, 0, len(in.Messages))
	for _, m := range in.Messages {
		if m.ID == "" {
			m.ID = agent.NewID("msg")
		}
		fresh = append(fresh, m)
	}
	in.Messages = agent.RepairHistory(append(memory.ToModel(history), fresh...))
	return fresh, nil
}

// remember stores a turn: the new request messages and what the run added.
func remember(ctx context.Context, e *registry.Entry, ref *memoryRef, msgs ...[]model.Message) error {
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
	if err := e.Memory.Save(ctx, e.Agent.ID, ref.Thread, ref.Resource, out); err != nil {
		return fmt.Errorf("failed to save conversation memory: %w", err)
	}
	return nil
}

// memoryAgent resolves ?agentId= for the memory routes, through the same guard as the agent
// routes (auth, rate limit).
func (s *Server) memoryAgent(c echo.Context) (*registry.Entry, error) {
	e := agentOf(c)
	if e.Memory == nil {
		return nil, echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("agent %s has no memory configured (spec.memory)", e.Agent.ID))
	}
	return e, nil
}

// listThreads serves GET /api/memory/threads?agentId=&resourceId=.
func (s *Server) listThreads(c echo.Context) error {
	e, err := s.memoryAgent(c)
	if err != nil {
		return err
	}
	threads, err := e.Memory.Threads(c.Request().Context(), e.Agent.ID, c.QueryParam("resourceId"))
	if err != nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, err.Error())
	}
	return c.JSON(http.StatusOK, threads)
}

// threadMessages serves GET /api/memory/threads/{threadId}/messages?agentId=.
func (s *Server) threadMessages(c echo.Context) error {
	e, err := s.memoryAgent(c)
	if err != nil {
		return err
	}
	msgs, err := e.Memory.Messages(c.Request().Context(), e.Agent.ID, c.Param("threadId"))
	if err != nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, err.Error())
	}
	if len(msgs) == 0 {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("Thread %s not found", c.Param("threadId")))
	}
	return c.JSON(http.StatusOK, map[string]any{"messages": msgs})
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

// storesReady pings every memory store, for /readyz.
func (s *Server) storesReady(ctx context.Context) error {
	for _, st := range s.opts.Registry.Stores() {
		if err := st.Ping(ctx); err != nil {
			return err
		}
	}
	return nil
}
