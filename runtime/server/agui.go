package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/agui"
	"github.com/agentry-dev/agentry/runtime/metrics"
)

// invalidRequest answers 400 {"error":"Invalid request","detail":…}: the error is the
// specification's exact text, the detail says what to fix.
func invalidRequest(c echo.Context, err error) error {
	body := map[string]string{"error": agui.ErrInvalidRequest.Error()}
	var ie *agui.InputError
	if errors.As(err, &ie) {
		body["detail"] = ie.Detail
	} else if err != nil {
		body["detail"] = err.Error()
	}
	return c.JSON(http.StatusBadRequest, body)
}

// agui serves POST /api/agents/{agentId}/ag-ui: AG-UI RunAgentInput in, AG-UI events out.
func (s *Server) agui(c echo.Context) error {
	e := agentOf(c)
	var in agui.RunAgentInput
	if err := decodeBody(c, &in); err != nil {
		var he *echo.HTTPError
		if errors.As(err, &he) && he.Code == http.StatusBadRequest {
			return invalidRequest(c, fmt.Errorf("%v", he.Message))
		}
		return err
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
		in.RunID = fmt.Sprintf("run_%d", time.Now().UnixMilli())
	}
	if in.ThreadID == "" {
		in.ThreadID = "thread_1"
	}
	log := s.opts.Logger.WithValues("agent", e.Agent.ID, "runId", in.RunID, "threadId", in.ThreadID)
	mapper := &agui.Mapper{ThreadID: in.ThreadID, RunID: in.RunID}
	out := &sseStream{c: c}
	out.start()
	metrics.ActiveStreams.WithLabelValues(e.Agent.ID).Inc()
	defer metrics.ActiveStreams.WithLabelValues(e.Agent.ID).Dec()

	if err := out.send(mapper.Started()); err != nil {
		return nil
	}
	ctx := c.Request().Context()
	// Persist what the client sent first: keyed by message id, so the history it resends on
	// every run is stored once.
	var ref *memoryRef
	if e.Memory != nil {
		ref = &memoryRef{Thread: in.ThreadID, Resource: resourceOf(c, in.ForwardedProps)}
		if err := remember(ctx, e, ref, msgs); err != nil {
			log.Error(err, "run stopped: conversation memory unavailable")
			for _, ev := range mapper.Failed(agui.CodeStorageUnavailable) {
				_ = out.send(ev)
			}
			return nil
		}
	}
	res, err := e.Agent.Run(ctx, agent.Input{Messages: msgs, ClientTools: clientTools}, func(ev agent.Event) error {
		for _, a := range mapper.Map(ev) {
			if err := out.send(a); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil || out.err != nil {
			log.V(1).Info("client went away; run canceled")
			return nil
		}
		log.Error(err, "run failed after the stream started")
		for _, ev := range mapper.Failed("") {
			_ = out.send(ev)
		}
		return nil
	}
	if ref != nil {
		if err := remember(ctx, e, ref, res.Messages); err != nil {
			log.Error(err, "run stopped: conversation memory unavailable")
			for _, ev := range mapper.Failed(agui.CodeStorageUnavailable) {
				_ = out.send(ev)
			}
			return nil
		}
	}
	_ = out.send(mapper.Finished(res.PendingToolCalls, res.Usage, e.Agent.Provider, e.Agent.Model.ModelID()))
	return nil
}

// resourceOf names the user a thread belongs to: forwardedProps.resourceId (or .userId), else
// the rate limit's user header.
func resourceOf(c echo.Context, forwarded json.RawMessage) string {
	var props struct {
		ResourceID string `json:"resourceId"`
		UserID     string `json:"userId"`
	}
	if len(forwarded) > 0 && json.Unmarshal(forwarded, &props) == nil {
		if props.ResourceID != "" {
			return props.ResourceID
		}
		if props.UserID != "" {
			return props.UserID
		}
	}
	_, _, header := limitFor(agentOf(c))
	return c.Request().Header.Get(header)
}
