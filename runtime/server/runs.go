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
	return &detachedRun{s: s, log: lg, ctx: agent.HandOffRun(ctx), cancel: cancel}, nil
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
	ctx := c.Request().Context()
	for {
		evs, ended, wake, err := lg.Since(after)
		if err != nil {
			_ = out.Send(map[string]string{"type": "RUN_ERROR", "code": codeEventsGone, "message": "The run's events after the one asked for are no longer kept."})
			return nil
		}
		for _, ev := range evs {
			if out.SendJSON(ev.Data) != nil {
				return nil
			}
			after = ev.Seq
		}
		if ended && len(evs) == 0 {
			return nil
		}
		if len(evs) > 0 {
			continue // read again: the end may have come with the last events
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return nil
		}
	}
}

// codeEventsGone is the RUN_ERROR code of a re-attach after events the log no longer holds.
const codeEventsGone = "EVENTS_GONE"

// aguiAttach serves GET /api/agents/{agentId}/ag-ui/runs/{runId}: the run's AG-UI events after
// the number the client received (Last-Event-ID, or ?after=), then the rest as they come.
// The caller is the run's (its token's subject, else ?resourceId= or the user header).
func (s *Server) aguiAttach(c echo.Context) error {
	e := agentOf(c)
	after, err := lastEventID(c)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	lg, err := s.runOf(c, e)
	if err != nil {
		return err
	}
	return s.follow(c, e, lg, after)
}

// aguiCancel serves POST /api/agents/{agentId}/ag-ui/runs/{runId}/cancel: the run ends now
// (its stream with RUN_ERROR code RUN_CANCELED).
func (s *Server) aguiCancel(c echo.Context) error {
	e := agentOf(c)
	resource, err := runResource(c)
	if err != nil {
		return err
	}
	if !s.runs.Cancel(e.Agent.ID, c.Param("runId"), resource) {
		return echo.NewHTTPError(http.StatusNotFound, msgRunOver)
	}
	return c.JSON(http.StatusAccepted, map[string]string{"runId": c.Param("runId"), "status": "canceling"})
}

// runOf is the caller's run of the route's runId.
func (s *Server) runOf(c echo.Context, e *registry.Entry) (*runlog.Log, error) {
	resource, err := runResource(c)
	if err != nil {
		return nil, err
	}
	lg, ok := s.runs.Get(e.Agent.ID, c.Param("runId"), resource)
	if !ok {
		return nil, echo.NewHTTPError(http.StatusNotFound, msgNoRun)
	}
	return lg, nil
}

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
