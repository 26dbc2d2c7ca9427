package server

import (
	"log/slog"
	"net/http"
	"sync"

	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/runtime/a2aagent"
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
// when the registry reloaded it. An agent's tasks live in this process, in a bounded store
// kept across reloads.
type a2aHandlers struct {
	mu     sync.Mutex
	by     map[string]a2aHandler
	stores map[string]*a2aagent.TaskStore
}

type a2aHandler struct {
	entry *registry.Entry
	h     http.Handler
}

func (s *Server) a2aHandler(e *registry.Entry) http.Handler {
	s.a2a.mu.Lock()
	defer s.a2a.mu.Unlock()
	if h, ok := s.a2a.by[e.Agent.ID]; ok && h.entry == e {
		return h.h
	}
	if s.a2a.by == nil {
		s.a2a.by, s.a2a.stores = map[string]a2aHandler{}, map[string]*a2aagent.TaskStore{}
	}
	store, ok := s.a2a.stores[e.Agent.ID]
	if !ok {
		store = a2aagent.NewTaskStore(0, 0)
		s.a2a.stores[e.Agent.ID] = store
	}
	x := &a2aagent.Executor{Agent: e.Agent, PublicError: publicMessage}
	// The SDK logs through slog; the runtime's own request log covers each call.
	h := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(x, a2asrv.WithLogger(slog.New(slog.DiscardHandler)), a2asrv.WithTaskStore(store)))
	s.a2a.by[e.Agent.ID] = a2aHandler{entry: e, h: h}
	return h
}

// a2aServe answers an A2A JSON-RPC request of the guarded agent.
func (s *Server) a2aServe(c echo.Context) error {
	e := agentOf(c)
	ctx, _, cancel := s.runContext(c)
	defer cancel()
	s.a2aHandler(e).ServeHTTP(c.Response(), c.Request().WithContext(ctx))
	return nil
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
