package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"

	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/runtime/a2aagent"
	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/memory"
	"github.com/agentry-dev/agentry/runtime/registry"
)

// A2A routes (Agent2Agent, with the official Go SDK): POST /a2a/{agentId} is the JSON-RPC
// endpoint (message/send, message/stream, tasks/get, tasks/cancel), behind the same guard as
// the other agent routes; the agent card is public, at Mastra's path and under the endpoint.
const (
	a2aPrefix     = "/a2a/"
	a2aCardSuffix = "/.well-known/agent-card.json"
)

// a2aHandlers are the agents' JSON-RPC handlers, made at an agent's first request and again
// when the registry reloaded it.
type a2aHandlers struct {
	mu sync.Mutex
	by map[string]a2aHandler
}

type a2aHandler struct {
	entry *registry.Entry
	h     http.Handler
}

// taskStore keeps the agent's A2A tasks: its memory store, so any replica sharing it answers
// tasks/get, else this process's.
func (s *Server) taskStore(e *registry.Entry) memory.Tasks {
	if e.Memory != nil {
		return e.Memory
	}
	return s.localStore
}

func (s *Server) a2aHandler(e *registry.Entry) http.Handler {
	s.a2a.mu.Lock()
	defer s.a2a.mu.Unlock()
	if h, ok := s.a2a.by[e.Agent.ID]; ok && h.entry == e {
		return h.h
	}
	if s.a2a.by == nil {
		s.a2a.by = map[string]a2aHandler{}
	}
	x := &a2aagent.Executor{Agent: e.Agent, PublicError: publicMessage, Approvals: a2aApprovals{s: s, e: e}}
	store := a2aagent.TaskStore{Store: s.taskStore(e), AgentID: e.Agent.ID}
	// The SDK logs through slog; the runtime's own request log covers each call.
	h := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(x, a2asrv.WithLogger(slog.New(slog.DiscardHandler)), a2asrv.WithTaskStore(store)))
	s.a2a.by[e.Agent.ID] = a2aHandler{entry: e, h: h}
	return h
}

// a2aServe answers an A2A JSON-RPC request of the guarded agent, for the caller its token or
// headers name (its tasks and approvals are its own).
func (s *Server) a2aServe(c echo.Context) error {
	e := agentOf(c)
	resource, err := resourceOf(c, nil)
	if err != nil {
		return err
	}
	ctx, _, cancel := s.runContext(c)
	defer cancel()
	ctx = a2aagent.WithResource(ctx, resource)
	s.a2aHandler(e).ServeHTTP(c.Response(), c.Request().WithContext(ctx))
	return nil
}

// a2aApprovals keeps an agent's A2A runs stopped for approval where its other routes keep
// theirs.
type a2aApprovals struct {
	s *Server
	e *registry.Entry
}

func (a a2aApprovals) Hold(ctx context.Context, sus *agent.Suspension, conversation, resource string) error {
	return a.s.hold(ctx, a.e, sus, conversation, resource)
}

func (a a2aApprovals) DecideAll(ctx context.Context, runID, resource string, d agent.Decision) (*agent.Suspension, error) {
	sus, _, err := a.s.decideRun(ctx, a.e, runID, resource, nil, &d)
	if errors.Is(err, memory.ErrPendingNotFound) || errors.Is(err, agent.ErrAlreadyDecided) {
		err = agent.ErrNotHeld
	}
	return sus, err
}

// agentCard answers the agent's card: public (an A2A client reads it to learn how to call and
// authenticate), limited per client address like every agent route.
func (s *Server) agentCard(c echo.Context) error {
	e, err := s.lookup(c)
	if err != nil {
		return err
	}
	if err := s.allow(c, e.Agent.ID+"\x00ip\x00"+c.RealIP(), limitFor(e).ip); err != nil {
		return err
	}
	url := c.Scheme() + "://" + c.Request().Host + a2aPrefix + e.Agent.ID
	return c.JSON(http.StatusOK, a2aagent.Card(e, url, s.opts.Version))
}
