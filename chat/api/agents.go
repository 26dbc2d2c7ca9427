package api

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
)

// DefaultAgentTestTimeout bounds the connection test of an agent's Deployment URL.
const DefaultAgentTestTimeout = 10 * time.Second

// agentRequest is the body of PUT /agents/{agentId}. Headers are write-only: absent keeps the
// stored ones, {} clears them; they are never answered or logged.
type agentRequest struct {
	AgentID             string             `json:"agentId"`
	Provider            string             `json:"provider"`
	Name                string             `json:"name"`
	Icon                string             `json:"icon"`
	Greeting            string             `json:"greeting"`
	IntroductoryMessage string             `json:"introductoryMessage"`
	SuggestedMessages   []string           `json:"suggestedMessages"`
	DeploymentURL       string             `json:"deploymentUrl"`
	AgentRef            string             `json:"agentRef"`
	Headers             *map[string]string `json:"headers"`
	Enabled             *bool              `json:"enabled"`
	Approvers           []string           `json:"approvers"`
}

func pathAgentID(c echo.Context) (string, error) {
	id := c.Param("agentId")
	if !model.ValidAgentName.MatchString(id) {
		return "", errValidation("agentId must be 1-64 letters, digits, _ or -")
	}
	return id, nil
}

func (a *API) putAgent(c echo.Context) error {
	id, err := pathAgentID(c)
	if err != nil {
		return err
	}
	var req agentRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if req.AgentID != "" && req.AgentID != id {
		return errValidation("agentId in the body differs from the path")
	}
	cfg := model.AgentConfig{
		AgentID: id, Provider: model.AgentProvider(req.Provider), Name: req.Name, Icon: req.Icon, Greeting: req.Greeting,
		IntroductoryMessage: req.IntroductoryMessage, SuggestedMessages: req.SuggestedMessages, DeploymentURL: req.DeploymentURL,
		AgentRef: req.AgentRef, Approvers: req.Approvers,
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	// An in-cluster Agent is called at its Service's http URL: traffic stays inside the cluster.
	if u, _ := url.Parse(cfg.DeploymentURL); cfg.AgentRef == "" && u.Scheme != "https" && !a.opts.Development {
		return errValidation("deploymentUrl must be https (http is accepted in development mode only)")
	}
	ctx := c.Request().Context()
	// Enabled is kept unless the body sets it; a new agent starts disabled.
	old, err := a.opts.Store.GetAgent(ctx, id)
	if err != nil {
		if model.CodeOf(err) != model.ErrUIDNotFound {
			return err
		}
		old = model.AgentConfig{} // a new agent: users saw nothing of it
	}
	if req.Enabled != nil {
		cfg.Enabled = *req.Enabled
	} else {
		cfg.Enabled = old.Enabled
	}
	out, created, err := a.opts.Store.PutAgent(ctx, cfg, req.Headers)
	if err != nil {
		return err
	}
	// Users see an enabled agent's name and icon: tell them when that changed.
	if old.Enabled != out.Enabled || (out.Enabled && (old.Name != out.Name || old.Icon != out.Icon)) {
		a.agentsChanged(id)
	}
	return saved(c, created, out)
}

func (a *API) listAgents(c echo.Context) error {
	list, err := a.opts.Store.ListAgents(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"items": list})
}

func (a *API) getAgent(c echo.Context) error {
	id, err := pathAgentID(c)
	if err != nil {
		return err
	}
	out, err := a.opts.Store.GetAgent(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

func (a *API) deleteAgent(c echo.Context) error {
	id, err := pathAgentID(c)
	if err != nil {
		return err
	}
	if err := a.opts.Store.DeleteAgent(c.Request().Context(), id); err != nil {
		return err
	}
	a.agentsChanged(id)
	return c.NoContent(http.StatusNoContent)
}

func (a *API) enableAgent(c echo.Context) error  { return a.setAgentEnabled(c, true) }
func (a *API) disableAgent(c echo.Context) error { return a.setAgentEnabled(c, false) }

func (a *API) setAgentEnabled(c echo.Context, enabled bool) error {
	id, err := pathAgentID(c)
	if err != nil {
		return err
	}
	out, err := a.opts.Store.SetAgentEnabled(c.Request().Context(), id, enabled)
	if err != nil {
		return err
	}
	a.agentsChanged(id)
	return c.JSON(http.StatusOK, out)
}

// FrameAgentsChanged is the ephemeral frame every socket gets after an agent configuration
// changed what users see of it (enabled, disabled, deleted, renamed, a new icon):
// {"type":"agents.changed","agentId":"chef"}. Clients reload their agent lists.
const FrameAgentsChanged = "agents.changed"

// agentsChanged tells every connected socket, on every replica, that agent id changed. The
// frame names the agent only: nothing of its configuration.
func (a *API) agentsChanged(id string) {
	if a.opts.Hub == nil {
		return
	}
	frame, err := json.Marshal(struct {
		Type    string `json:"type"`
		AgentID string `json:"agentId"`
	}{FrameAgentsChanged, id})
	if err != nil {
		return
	}
	a.opts.Hub.PublishAll(frame)
}

// agentProfile is what a client shows in an empty conversation with the agent.
type agentProfile struct {
	AgentID             string   `json:"agentId"`
	Name                string   `json:"name"`
	Icon                string   `json:"icon,omitempty"`
	Greeting            string   `json:"greeting,omitempty"`
	IntroductoryMessage string   `json:"introductoryMessage,omitempty"`
	SuggestedMessages   []string `json:"suggestedMessages"`
}

func (a *API) agentProfile(c echo.Context) error {
	id, err := pathAgentID(c)
	if err != nil {
		return err
	}
	cfg, err := a.opts.Store.GetAgent(c.Request().Context(), id)
	if err != nil {
		return err
	}
	if !cfg.Enabled {
		return model.Errorf(model.ErrUIDNotFound, "no agent %q", id)
	}
	return c.JSON(http.StatusOK, agentProfile{
		AgentID: cfg.AgentID, Name: cfg.Name, Icon: cfg.Icon, Greeting: cfg.Greeting,
		IntroductoryMessage: cfg.IntroductoryMessage, SuggestedMessages: cfg.SuggestedMessages,
	})
}

type actionRequest struct {
	Name          string          `json:"name"`
	DisplayName   string          `json:"displayName"`
	ExecutionText string          `json:"executionText"`
	Description   string          `json:"description"`
	Parameters    json.RawMessage `json:"parameters"`
}

func pathAction(c echo.Context) (string, string, error) {
	id, err := pathAgentID(c)
	if err != nil {
		return "", "", err
	}
	name := c.Param("name")
	if !model.ValidAgentName.MatchString(name) {
		return "", "", errValidation("name must be 1-64 letters, digits, _ or -")
	}
	return id, name, nil
}

func (a *API) putAction(c echo.Context) error {
	id, name, err := pathAction(c)
	if err != nil {
		return err
	}
	var req actionRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if req.Name != "" && req.Name != name {
		return errValidation("name in the body differs from the path")
	}
	out, created, err := a.opts.Store.PutAction(c.Request().Context(), model.FrontendAction{
		AgentID: id, Name: name, DisplayName: req.DisplayName, ExecutionText: req.ExecutionText,
		Description: req.Description, Parameters: req.Parameters,
	})
	if err != nil {
		return err
	}
	return saved(c, created, out)
}

func (a *API) getAction(c echo.Context) error {
	id, name, err := pathAction(c)
	if err != nil {
		return err
	}
	out, err := a.opts.Store.GetAction(c.Request().Context(), id, name)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

func (a *API) listActions(c echo.Context) error {
	id, err := pathAgentID(c)
	if err != nil {
		return err
	}
	list, err := a.opts.Store.ListActions(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"items": list})
}

func (a *API) deleteAction(c echo.Context) error {
	id, name, err := pathAction(c)
	if err != nil {
		return err
	}
	if err := a.opts.Store.DeleteAction(c.Request().Context(), id, name); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// connectionTest is the report of POST /agents/{agentId}/test: the specification's checks
// when nothing works (reachable, 2xx, text/event-stream, events arrive).
type connectionTest struct {
	OK          bool     `json:"ok"`
	Status      int      `json:"status"`
	ContentType string   `json:"contentType"`
	FirstEvents []string `json:"firstEvents"`
	Error       string   `json:"error,omitempty"`
}

func (a *API) testAgent(c echo.Context) error {
	id, err := pathAgentID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	cfg, err := a.opts.Store.GetAgent(ctx, id)
	if err != nil {
		return err
	}
	headers, err := a.opts.Store.AgentHeaders(ctx, id)
	if err != nil {
		return err
	}
	timeout := a.opts.AgentTestTimeout
	if timeout <= 0 {
		timeout = DefaultAgentTestTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if cfg.AgentRef != "" {
		if a.opts.Bridge == nil {
			return c.JSON(http.StatusOK, connectionTest{FirstEvents: []string{}, Error: "agentRef cannot be resolved: this server runs no agent bridge"})
		}
		if cfg.DeploymentURL, err = a.opts.Bridge.URL(tctx, cfg); err != nil {
			return c.JSON(http.StatusOK, connectionTest{FirstEvents: []string{}, Error: err.Error()})
		}
	}
	client := a.probe
	if cfg.AgentRef != "" {
		client = a.probeCluster // the operator's in-cluster endpoint, not an admin's URL
	}
	return c.JSON(http.StatusOK, probeAgent(tctx, client, cfg, headers))
}

// probeAgent posts a one-line conversation to the agent and reports what came back. Errors
// never carry the headers.
func probeAgent(ctx context.Context, client *http.Client, cfg model.AgentConfig, headers map[string]string) connectionTest {
	out := connectionTest{FirstEvents: []string{}}
	msg := "Hello! This is a connection test from the Agentry chat service."
	var body any
	want := "text/event-stream"
	if cfg.Provider == model.ProviderMastra {
		body = map[string]any{"messages": []map[string]string{{"role": "user", "content": msg}}}
		want = "application/json"
	} else {
		now := time.Now().UnixMilli()
		body = map[string]any{
			"threadId": fmt.Sprintf("connection-test-%d", now), "runId": fmt.Sprintf("run_%d", now),
			"messages": []map[string]string{{"id": fmt.Sprintf("msg_%d", now), "role": "user", "content": msg}},
			"tools":    []any{}, "context": []any{}, "state": map[string]any{}, "forwardedProps": map[string]any{},
		}
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.DeploymentURL, bytes.NewReader(b))
	if err != nil {
		out.Error = "invalid deployment URL"
		return out
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", want)
	res, err := client.Do(req)
	if err != nil {
		out.Error = "request failed: " + transportError(ctx, err)
		return out
	}
	defer res.Body.Close()
	out.Status, out.ContentType = res.StatusCode, res.Header.Get("Content-Type")
	if res.StatusCode < 200 || res.StatusCode > 299 {
		out.Error = fmt.Sprintf("the agent answered %s", res.Status)
		if res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden {
			out.Error += ": check the agent's headers"
		}
		return out
	}
	if !strings.HasPrefix(strings.ToLower(out.ContentType), want) {
		out.Error = fmt.Sprintf("the agent answered content type %q, want %s", out.ContentType, want)
		return out
	}
	if cfg.Provider == model.ProviderMastra {
		var v any
		if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&v); err != nil {
			out.Error = "the agent's answer is not JSON"
			return out
		}
		out.OK = true
		return out
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for len(out.FirstEvents) < 5 && sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "data:") {
			continue
		}
		var ev struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(strings.TrimSpace(strings.TrimPrefix(line, "data:"))), &ev); err != nil || ev.Type == "" {
			out.Error = "an event is not JSON with a type"
			return out
		}
		out.FirstEvents = append(out.FirstEvents, ev.Type)
		if ev.Type == "RUN_ERROR" || ev.Type == "error" {
			out.Error = "the agent reported an error event"
			return out
		}
	}
	if err := sc.Err(); err != nil && len(out.FirstEvents) < 5 {
		out.Error = "the stream broke: " + transportError(ctx, err)
		return out
	}
	if len(out.FirstEvents) == 0 {
		out.Error = "the stream ended without events"
		return out
	}
	out.OK = true
	return out
}

// transportError names a failure's category only: the test's answer must not turn the server
// into a port scanner (no address, port or dial error text).
func transportError(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return "timed out"
	}
	var tlsErr *tls.CertificateVerificationError
	if errors.As(err, &tlsErr) || strings.Contains(err.Error(), "tls:") || errors.Is(err, http.ErrSchemeMismatch) {
		return "the TLS handshake failed"
	}
	return bridge.DescribeDialError(err)
}

// saved answers a create-or-replace: 201 when it created, 200 when it replaced.
func saved(c echo.Context, created bool, v any) error {
	if created {
		return c.JSON(http.StatusCreated, v)
	}
	return c.JSON(http.StatusOK, v)
}
