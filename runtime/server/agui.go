package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/internal/platform/ids"
	wire "github.com/agentry-dev/agentry/internal/protocol/agui"
	"github.com/agentry-dev/agentry/internal/protocol/sse"
	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/agui"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/memory"
	"github.com/agentry-dev/agentry/runtime/metrics"
	"github.com/agentry-dev/agentry/runtime/registry"
)

// invalidRequest answers 400 {"error":"Invalid request"}, the specification's exact body;
// what to fix goes to the runtime's log (a client reading the body as specified sees nothing
// else).
func invalidRequest(c echo.Context, err error) error {
	detail := ""
	var ie *agui.InputError
	if errors.As(err, &ie) {
		detail = ie.Detail
	} else if err != nil {
		detail = err.Error()
	}
	logr.FromContextOrDiscard(c.Request().Context()).Info("AG-UI request refused: Invalid request", "agent", c.Param("agentId"), "detail", detail)
	return c.JSON(http.StatusBadRequest, map[string]string{"error": agui.ErrInvalidRequest.Error()})
}

// agui serves POST /api/agents/{agentId}/ag-ui: AG-UI RunAgentInput in, AG-UI events out.
func (s *Server) agui(c echo.Context) error {
	e := agentOf(c)
	var in wire.RunAgentInput
	if err := decodeBody(c, &in); err != nil {
		var he *echo.HTTPError
		if errors.As(err, &he) && he.Code == http.StatusBadRequest {
			return invalidRequest(c, fmt.Errorf("%v", he.Message))
		}
		return err
	}
	if len(in.Resume) > 0 {
		return s.aguiResume(c, e, &in)
	}
	msgs, err := agui.ConvertMessages(in.Messages)
	if err != nil {
		return invalidRequest(c, err)
	}
	clientTools, err := agui.ConvertTools(in.Tools)
	if err != nil {
		return invalidRequest(c, err)
	}
	if in.RunID == "" {
		in.RunID = defaultRunID()
	}
	// Without a threadId the run is thread_1, as specified, and is not remembered: a default
	// thread in memory would be shared by every client that names none.
	remembered := e.Memory != nil && in.ThreadID != ""
	in.ThreadID = cmp.Or(in.ThreadID, "thread_1")
	log := s.opts.Logger.WithValues("agent", e.Agent.ID, "runId", in.RunID, "threadId", in.ThreadID)
	mapper := &agui.Mapper{ThreadID: in.ThreadID, RunID: in.RunID}
	// Persist what the client sent before the stream starts, so a thread of another resource
	// is refused with a plain 403. The store skips the messages it already holds: clients
	// resend the whole history every run.
	resource, err := resourceOf(c, in.ForwardedProps)
	if err != nil {
		return err
	}
	var ref *memoryRef
	var storeErr error
	if remembered {
		ref = &memoryRef{Thread: in.ThreadID, Resource: resource}
		if storeErr = remember(beginRun(c, e, in.ThreadID), e, ref, msgs); errors.Is(storeErr, memory.ErrThreadOwnedByOther) {
			log.Info("run refused: the thread belongs to another resource")
			return echo.NewHTTPError(http.StatusForbidden, msgThreadForbidden)
		}
	}
	// The run goes on when this request ends: a client that comes back re-attaches to it.
	r, err := s.startRun(c, e, in.RunID, resource)
	if err != nil {
		return err
	}
	r.run(func(ctx context.Context, out eventOut, shuttingDown func() bool) {
		_ = out.Send(mapper.Started())
		if storeErr != nil {
			log.Error(storeErr, "run stopped: conversation memory unavailable")
			for _, ev := range mapper.Failed(agui.CodeStorageUnavailable) {
				_ = out.Send(ev)
			}
			return
		}
		res, err := e.Agent.Run(ctx, agent.Input{Messages: msgs, ClientTools: clientTools, Conversation: in.ThreadID}, sinkForMemory(ref != nil, relay(out, mapper)))
		if err != nil {
			runFailed(ctx, out, mapper, shuttingDown(), err, log)
			return
		}
		// A run that is not remembered is held with no thread: its resume is not remembered either.
		heldThread := ""
		if ref != nil {
			heldThread = ref.Thread
		}
		s.aguiEnd(ctx, out, mapper, e, ref, res, heldThread, resource, log)
	})
	return s.follow(c, e, r.log, 0)
}

// RUN_ERROR codes of a run that did not end on its own.
const (
	codeRunCanceled = "RUN_CANCELED"
	codeRunTimeout  = "RUN_TIMEOUT"
)

// runFailed ends the events of a run that failed after it started: with the shutdown code when
// the drain period is over, RUN_CANCELED when it was canceled on purpose, RUN_TIMEOUT past the
// run timeout.
func runFailed(ctx context.Context, out eventOut, m *agui.Mapper, shuttingDown bool, err error, log logr.Logger) {
	code := ""
	switch {
	case shuttingDown:
		log.Info("run ended: the server is shutting down and the drain period is over")
		code = codeShuttingDown
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		log.Info("run ended: the run timeout passed")
		code = codeRunTimeout
	case ctx.Err() != nil:
		log.Info("run canceled on request")
		code = codeRunCanceled
	default:
		log.Error(err, "run failed after the stream started")
	}
	for _, ev := range m.Failed(code) {
		_ = out.Send(ev)
	}
}

// aguiEnd ends a run's stream: an interrupt outcome for a run stopped for approval (stored
// first, so the answer can reach any replica), else the turn stored and RUN_FINISHED.
func (s *Server) aguiEnd(ctx context.Context, out eventOut, m *agui.Mapper, e *registry.Entry, ref *memoryRef, res *agent.Result, thread, resource string, log logr.Logger) {
	if res.Suspended != nil {
		if err := s.hold(ctx, e, res.Suspended, thread, resource); err != nil {
			log.Error(err, "run stopped: its pending approval could not be stored")
			for _, ev := range m.Failed(agui.CodeStorageUnavailable) {
				_ = out.Send(ev)
			}
			return
		}
		_ = out.Send(m.Interrupted(res.Suspended.Undecided(), e.Agent.ResponseSchema, res.Usage, e.Agent.Provider, e.Agent.Model.ModelID()))
		return
	}
	if ref != nil {
		if err := remember(ctx, e, ref, res.Messages); err != nil {
			log.Error(err, "run stopped: conversation memory unavailable")
			for _, ev := range m.Failed(agui.CodeStorageUnavailable) {
				_ = out.Send(ev)
			}
			return
		}
	}
	_ = out.Send(m.Finished(res.PendingToolCalls, res.Usage, e.Agent.Provider, e.Agent.Model.ModelID()))
}

// aguiResume continues a run that stopped for approval: RunAgentInput.resume answers its
// interrupts (messages are not read: the stopped run's conversation is stored with it). An
// unknown or already answered interrupt is a 404 or 409 before the stream starts; answers that
// leave some interrupts open end with those interrupts again.
func (s *Server) aguiResume(c echo.Context, e *registry.Entry, in *wire.RunAgentInput) error {
	run, answers, err := resumeAnswers(in.Resume)
	if err != nil {
		return invalidRequest(c, err)
	}
	if in.RunID == "" {
		in.RunID = ids.New("run")
	}
	resource, err := resourceOf(c, in.ForwardedProps)
	if err != nil {
		return err
	}
	// The run is registered before the answers are taken: a refused run (its id going on, too
	// many runs) must not use them up.
	s.beginResume(c, e)
	r, err := s.startRun(c, e, in.RunID, resource)
	if err != nil {
		return err
	}
	sus, stored, err := s.decide(r.ctx, e, run, resource, answers)
	if err != nil {
		r.abandon(err)
		return err
	}
	in.ThreadID = cmp.Or(in.ThreadID, stored.Thread, "thread_1") // the stopped run named none either
	log := s.opts.Logger.WithValues("agent", e.Agent.ID, "runId", in.RunID, "threadId", in.ThreadID, "resumes", run)
	mapper := &agui.Mapper{ThreadID: in.ThreadID, RunID: in.RunID}
	var ref *memoryRef
	if e.Memory != nil && stored.Thread != "" {
		ref = stored
	}
	r.run(func(ctx context.Context, out eventOut, shuttingDown func() bool) {
		_ = out.Send(mapper.Started())
		if open := sus.Undecided(); len(open) > 0 {
			_ = out.Send(mapper.Interrupted(open, e.Agent.ResponseSchema, llm.Usage{}, e.Agent.Provider, e.Agent.Model.ModelID()))
			return
		}
		res, err := e.Agent.Resume(ctx, sus, sinkForMemory(ref != nil, relay(out, mapper)))
		if err != nil {
			runFailed(ctx, out, mapper, shuttingDown(), err, log)
			return
		}
		s.aguiEnd(ctx, out, mapper, e, ref, res, stored.Thread, stored.Resource, log)
	})
	return s.follow(c, e, r.log, 0)
}

// openStream starts the response's event stream: events queued by Send are written in
// batches, keep-alive comments fill long silences; Close must follow.
func (s *Server) openStream(c echo.Context) *sse.Writer {
	return sse.Start(c.Request().Context(), c.Response(), s.opts.KeepAlive)
}

// openRun starts a run's event stream (counted in the active streams until done).
func (s *Server) openRun(c echo.Context, e *registry.Entry) (*sse.Writer, func()) {
	out := s.openStream(c)
	metrics.ActiveStreams.WithLabelValues(e.Agent.ID).Inc()
	return out, func() {
		metrics.ActiveStreams.WithLabelValues(e.Agent.ID).Dec()
		out.Close()
	}
}

// relay sends a run's events to its log as AG-UI events.
func relay(out eventOut, m *agui.Mapper) agent.Sink {
	return func(ev agent.Event) error {
		for _, a := range m.Map(ev) {
			if err := out.Send(a); err != nil {
				return err
			}
		}
		return nil
	}
}

// resourceOf names the user a thread belongs to: with a verified caller its subject (see
// boundResource); else forwardedProps.resourceId (or .userId), else the rate limit's user header.
func resourceOf(c echo.Context, forwarded json.RawMessage) (string, error) {
	var props struct {
		ResourceID string `json:"resourceId"`
		UserID     string `json:"userId"`
	}
	named := ""
	if len(forwarded) > 0 && json.Unmarshal(forwarded, &props) == nil {
		named = cmp.Or(props.ResourceID, props.UserID)
	}
	if named == "" && callerOf(c).Subject == "" {
		named = c.Request().Header.Get(limitFor(agentOf(c)).userHeader)
	}
	return boundResource(c, named)
}

// lastDefaultRun is the millisecond of the last run id made up for a client that sent none.
var lastDefaultRun atomic.Int64

// defaultRunID is the specification's default, run_<epoch_ms>, made unique in this process: a
// run outlives its request under its id, so two clients in the same millisecond must not share
// one (the second would be refused as a re-start of the first). A later millisecond is taken
// instead, the id staying close to the clock.
func defaultRunID() string {
	for {
		last, now := lastDefaultRun.Load(), time.Now().UnixMilli()
		next := max(now, last+1)
		if lastDefaultRun.CompareAndSwap(last, next) {
			return fmt.Sprintf("run_%d", next)
		}
	}
}
