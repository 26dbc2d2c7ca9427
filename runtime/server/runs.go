package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/memory"
	"github.com/agentry-dev/agentry/runtime/registry"
	"github.com/agentry-dev/agentry/runtime/runlog"
)

// DefaultRunTimeout bounds a run that outlives its request: it ends then, followed or not.
const DefaultRunTimeout = 15 * time.Minute

// Messages of the run routes.
const (
	msgRunGoingOn = "A run with this runId is going on; re-attach to it with GET /api/agents/{agentId}/ag-ui/runs/{runId}"
	msgRunsFull   = "Too many runs are going on; try again shortly"
	msgNoRun      = "No run with this id: it never started here, it ended too long ago, or it is another user's"
	msgRunOver    = "No run with this id is going on"
)

// eventOut is where a run writes its events: its log (runlog.Log), which the streams of the
// requests attached to it follow.
type eventOut interface {
	Send(v any) error
}

// detachedRun is a run that goes on when its request ends: until it finishes, is canceled on
// purpose (the cancel route), its timeout passes, or the drain period after a shutdown signal
// is over.
type detachedRun struct {
	s      *Server
	log    *runlog.Log
	ctx    context.Context
	cancel context.CancelFunc
}

// startRun registers a run of resource and gives it a context detached from the request: the
// request's values (logger, trace, verified caller) without its end.
func (s *Server) startRun(c echo.Context, e *registry.Entry, runID, resource string) (*detachedRun, error) {
	base := context.WithoutCancel(c.Request().Context())
	ctx, cancel := context.WithTimeout(base, s.opts.RunTimeout)
	lg, err := s.runs.Start(e.Agent.ID, runID, resource, cancel)
	switch {
	case errors.Is(err, runlog.ErrRunning):
		cancel()
		return nil, echo.NewHTTPError(http.StatusConflict, msgRunGoingOn)
	case errors.Is(err, runlog.ErrFull):
		cancel()
		c.Response().Header().Set("Retry-After", "5")
		return nil, echo.NewHTTPError(http.StatusServiceUnavailable, msgRunsFull)
	case err != nil:
		cancel()
		return nil, err
	}
	// The run span begun on the request (agents with memory) is the run's to end now.
	r := &detachedRun{s: s, log: lg, ctx: agent.HandOffRun(ctx), cancel: cancel}
	if e.Memory != nil {
		s.mirror(e, runID, resource, r)
	}
	return r, nil
}

// run runs fn in its own goroutine, counted until it ends (Serve waits for it), then ends the
// log and the run's span. shuttingDown tells whether the drain period ended the run.
func (r *detachedRun) run(fn func(ctx context.Context, out eventOut, shuttingDown func() bool)) {
	s := r.s
	s.detached.Add(1)
	stop := context.AfterFunc(s.draining, r.cancel)
	go func() {
		defer s.detached.Done()
		defer r.cancel()
		defer stop()
		defer agent.EndRun(r.ctx)
		defer r.log.End()
		fn(r.ctx, r.log, func() bool { return s.draining.Err() != nil })
	}()
}

// abandon ends a registered run that never started: the request answers err instead.
func (r *detachedRun) abandon(err error) {
	code := http.StatusInternalServerError
	var he *echo.HTTPError
	if errors.As(err, &he) {
		code = he.Code
	}
	agent.FailRun(r.ctx, strconv.Itoa(code))
	agent.EndRun(r.ctx)
	r.log.End()
	r.cancel()
}

// follow streams the run's events after the after-th (a client that got n events of a run's
// stream re-attaches after n: the wire carries no ids, each event is one data line), until the
// run ends or the client goes away; the run goes on either way.
func (s *Server) follow(c echo.Context, e *registry.Entry, lg *runlog.Log, after int) error {
	out, done := s.openRun(c, e)
	defer done()
	// The log hands each event to the stream as it is added: no goroutine between them.
	finished, stop, err := lg.Tail(after, out.SendJSON)
	if err != nil {
		_ = out.Send(eventsGone)
		return nil
	}
	defer stop()
	select {
	case <-finished:
	case <-c.Request().Context().Done():
	}
	return nil
}

// codeEventsGone is the RUN_ERROR code of a re-attach after events the log no longer holds.
const codeEventsGone = "EVENTS_GONE"

// eventsGone ends such a re-attach's stream (from this runtime's log or the store's).
var eventsGone = map[string]string{"type": "RUN_ERROR", "code": codeEventsGone, "message": "The run's events after the one asked for are no longer kept."}

// attach serves GET /api/agents/{agentId}/ag-ui/runs/{runId} (and …/stream/runs/{runId}, whose
// runs key is keyOf's): the run's events after the number the client received (Last-Event-ID,
// or ?after=), then the rest as they come. The caller is the run's (its token's subject, else
// ?resourceId= or the user header).
func (s *Server) attach(keyOf func(string) string) echo.HandlerFunc {
	return func(c echo.Context) error {
		e := agentOf(c)
		after, err := lastEventID(c)
		if err != nil {
			return echo.NewHTTPError(http.StatusBadRequest, err.Error())
		}
		resource, err := runResource(c)
		if err != nil {
			return err
		}
		runID := keyOf(c.Param("runId"))
		if lg, ok := s.runs.Get(e.Agent.ID, runID, resource); ok {
			return s.follow(c, e, lg, after)
		}
		// Another replica's run, through the store they share.
		if e.Memory != nil {
			if found, err := s.followStored(c, e, runID, resource, after); found || err != nil {
				return err
			}
		}
		return echo.NewHTTPError(http.StatusNotFound, msgNoRun)
	}
}

// cancelRun serves POST …/ag-ui/runs/{runId}/cancel (and …/stream/runs/{runId}/cancel): the run
// ends now (an AG-UI stream with RUN_ERROR code RUN_CANCELED).
func (s *Server) cancelRun(keyOf func(string) string) echo.HandlerFunc {
	return func(c echo.Context) error {
		e := agentOf(c)
		resource, err := runResource(c)
		if err != nil {
			return err
		}
		runID := keyOf(c.Param("runId"))
		if !s.runs.Cancel(e.Agent.ID, runID, resource) {
			// Another replica's run: it reads the request at its next write to the store.
			if e.Memory == nil {
				return echo.NewHTTPError(http.StatusNotFound, msgRunOver)
			}
			ctx, cancel := context.WithTimeout(c.Request().Context(), storeOp)
			defer cancel()
			switch err := e.Memory.CancelRun(ctx, e.Agent.ID, runID, resource); {
			case errors.Is(err, memory.ErrRunNotFound):
				return echo.NewHTTPError(http.StatusNotFound, msgRunOver)
			case err != nil:
				return memoryFailure(err, http.StatusServiceUnavailable, "")
			}
		}
		return c.JSON(http.StatusAccepted, map[string]string{"runId": c.Param("runId"), "status": "canceling"})
	}
}

// aguiRunKey: an AG-UI run is keyed by its runId.
func aguiRunKey(runID string) string { return runID }

// runResource names the caller of a run route as the run's request named it: the verified
// subject, else ?resourceId= (forwardedProps.resourceId of the run), else the user header.
func runResource(c echo.Context) (string, error) {
	named := c.QueryParam("resourceId")
	if named == "" && callerOf(c).Subject == "" {
		named = c.Request().Header.Get(limitFor(agentOf(c)).userHeader)
	}
	return boundResource(c, named)
}

// lastEventID is how many of the run's events the client received: the Last-Event-ID header,
// else ?after=, else 0 (from the start).
func lastEventID(c echo.Context) (int, error) {
	raw := strings.TrimSpace(c.Request().Header.Get("Last-Event-ID"))
	if raw == "" {
		raw = c.QueryParam("after")
	}
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 {
		return 0, errors.New("Last-Event-ID (or after) must be the number of events received")
	}
	return n, nil
}

// Mirroring a run to the agent's memory store (agents with memory), so any replica sharing it
// serves a re-attach or a cancel.
const (
	// mirrorHeartbeat: a quiet run is touched this often, which also picks up a cancel asked
	// through another replica.
	mirrorHeartbeat = 2 * time.Second
	// storePoll is how often a follower on another replica reads the store for new events.
	storePoll = 250 * time.Millisecond
	// storeOp bounds one store operation of the mirror or a follower.
	storeOp = 5 * time.Second
)

// interruptedAfter: a run not ended and not touched for this long lost its replica (a killed
// pod); a follower elsewhere ends its stream with RUN_INTERRUPTED. A variable for the tests.
var interruptedAfter = 15 * time.Second

// codeRunInterrupted is the RUN_ERROR code of a run whose replica went away mid-run.
const codeRunInterrupted = "RUN_INTERRUPTED"

// mirror copies the run's events to the store as they come (what is new at each wake, in one
// write), touches the run while it is quiet, and cancels it when a cancel was asked elsewhere.
// It ends once the run's end is stored.
func (s *Server) mirror(e *registry.Entry, runID, resource string, r *detachedRun) {
	s.detached.Add(1)
	go func() {
		defer s.detached.Done()
		log := s.opts.Logger.WithValues("agent", e.Agent.ID, "runId", runID)
		limit := s.runs.Limits().MaxEvents
		tick := time.NewTicker(mirrorHeartbeat)
		defer tick.Stop()
		after, failing, endTries := 0, false, 0
		for {
			evs, ended, wake, err := r.log.Since(after)
			if errors.Is(err, runlog.ErrGone) {
				evs, ended, wake, _ = r.log.Since(r.log.First() - 1) // the mirror fell behind the log's bound
			}
			batch := make([]memory.RunEvent, len(evs))
			for i, ev := range evs {
				batch[i] = memory.RunEvent{Seq: ev.Seq, Data: ev.Data}
			}
			ctx, cancel := context.WithTimeout(context.Background(), storeOp)
			st, err := e.Memory.SaveRunEvents(ctx, e.Agent.ID, runID, resource, batch, ended, limit)
			cancel()
			switch {
			case err != nil && ended:
				// The run is over: a few more tries, then give up (shutdown waits for this).
				if endTries++; endTries >= 3 {
					log.Error(err, "failed to store the run's end; other replicas will report it interrupted")
					return
				}
			case err != nil && !failing:
				failing = true
				log.Error(err, "failed to store the run's events; other replicas cannot serve it until this recovers")
			case err == nil:
				failing = false
				if len(evs) > 0 {
					after = evs[len(evs)-1].Seq
				}
				if st.CancelRequested {
					r.cancel()
				}
				if ended {
					return
				}
			}
			select {
			case <-wake:
			case <-tick.C:
			}
		}
	}()
}

// followStored streams a run another replica runs, from the store: the events after after,
// then new ones as they are stored, until the run ends, its replica is gone (RUN_INTERRUPTED)
// or the client leaves. ok is false when the store holds no such run for the caller.
func (s *Server) followStored(c echo.Context, e *registry.Entry, runID, resource string, after int) (bool, error) {
	read := func() ([]memory.RunEvent, memory.RunState, error) {
		ctx, cancel := context.WithTimeout(c.Request().Context(), storeOp)
		defer cancel()
		return e.Memory.RunEvents(ctx, e.Agent.ID, runID, resource, after, 500)
	}
	evs, st, err := read()
	switch {
	case errors.Is(err, memory.ErrRunNotFound):
		return false, nil
	case err != nil:
		return true, memoryFailure(err, http.StatusServiceUnavailable, "")
	}
	out, done := s.openRun(c, e)
	defer done()
	ctx := c.Request().Context()
	for {
		if len(evs) > 0 && evs[0].Seq > after+1 {
			_ = out.Send(eventsGone)
			return true, nil
		}
		for _, ev := range evs {
			if out.SendJSON(ev.Data) != nil {
				return true, nil
			}
			after = ev.Seq
		}
		if len(evs) == 0 {
			switch {
			case st.Ended:
				return true, nil
			case time.Since(st.UpdatedAt) > interruptedAfter:
				_ = out.Send(map[string]string{"type": "RUN_ERROR", "code": codeRunInterrupted, "message": "The run was interrupted: the replica running it went away. Send the message again."})
				return true, nil
			}
			select {
			case <-time.After(storePoll):
			case <-ctx.Done():
				return true, nil
			}
		}
		if evs, st, err = read(); err != nil {
			if ctx.Err() == nil {
				s.opts.Logger.Error(err, "failed to read a run's events", "agent", e.Agent.ID, "runId", runID)
			}
			return true, nil
		}
	}
}
