package api

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/platform/defaults"
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
	Audience            []string           `json:"audience"`
	Auth                string             `json:"auth"`
	TokenAudience       string             `json:"tokenAudience"`
	// Prices absent (or null) leaves the agent without prices: a save replaces them all.
	Prices *model.AgentPrices `json:"prices"`
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
		AgentRef: req.AgentRef, Approvers: req.Approvers, Audience: req.Audience, Auth: model.AgentAuth(req.Auth), TokenAudience: req.TokenAudience,
		Prices: req.Prices,
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.Auth == model.AgentAuthChatJWT && a.opts.Signer == nil {
		return errValidation("auth chat-jwt needs a chat that signs tokens: start it with --issuer-url (its public URL + /chat/v1)")
	}
	if cfg.Auth == model.AgentAuthServiceAccount && a.opts.ServiceAccount == "" {
		return errValidation("auth service-account needs a chat that runs in the cluster with its ServiceAccount (--service-account namespace/name)")
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
	// A new agent brings what it says of itself (display fields, frontend actions), so an admin
	// types only what differs; one that says nothing is saved as typed.
	var imported []model.FrontendAction
	if old.AgentID == "" {
		var headers map[string]string
		if req.Headers != nil {
			headers = *req.Headers
		}
		if imported, err = a.importFromAgent(ctx, &cfg, headers, nil); err != nil {
			a.opts.Logger.V(1).Info("a new agent's description was not imported", "agent", id, "reason", err.Error())
		}
	}
	out, created, err := a.opts.Store.PutAgent(ctx, cfg, req.Headers)
	if err != nil {
		return err
	}
	a.addActions(ctx, imported)
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
	return answerJSON(c, http.StatusOK, out, err)
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
	cfg, err := a.visibleAgent(c.Request().Context(), uidOf(c), id)
	if err != nil {
		return err
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
	return answerJSON(c, http.StatusOK, out, err)
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

// storedAgent is the configuration the path names and its stored headers.
func (a *API) storedAgent(c echo.Context) (model.AgentConfig, map[string]string, error) {
	id, err := pathAgentID(c)
	if err != nil {
		return model.AgentConfig{}, nil, err
	}
	ctx := c.Request().Context()
	cfg, err := a.opts.Store.GetAgent(ctx, id)
	if err != nil {
		return model.AgentConfig{}, nil, err
	}
	headers, err := a.opts.Store.AgentHeaders(ctx, id)
	return cfg, headers, err
}

// withAgentTimeout bounds a call to an agent outside a run (Options.AgentTestTimeout).
func (a *API) withAgentTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	timeout := a.opts.AgentTestTimeout
	defaults.Positive(&timeout, DefaultAgentTestTimeout)
	return context.WithTimeout(ctx, timeout)
}

func (a *API) testAgent(c echo.Context) error {
	cfg, headers, err := a.storedAgent(c)
	if err != nil {
		return err
	}
	tctx, cancel := a.withAgentTimeout(c.Request().Context())
	defer cancel()
	// An agent that takes the chat's tokens is tested with one for the admin testing it.
	call, err := a.agentCall(tctx, cfg, headers, cmp.Or(uidOf(c), bridge.ServiceSubject))
	if err != nil {
		return c.JSON(http.StatusOK, bridge.ConnectionTest{FirstEvents: []string{}, Error: err.Error()})
	}
	cfg.DeploymentURL = call.url
	return c.JSON(http.StatusOK, bridge.Probe(tctx, call.client, cfg, call.headers))
}

// agentCallTo is how the chat reaches an agent outside a run: its URL (an in-cluster Agent's
// resolved), the client of that URL's kind, and the headers a run would send.
type agentCallTo struct {
	url     string
	client  *http.Client
	headers map[string]string
}

// agentCall resolves how to call the agent of cfg for subject; the error is a sentence.
func (a *API) agentCall(ctx context.Context, cfg model.AgentConfig, headers map[string]string, subject string) (agentCallTo, error) {
	call := agentCallTo{url: cfg.DeploymentURL, client: a.probe, headers: headers}
	if cfg.AgentRef != "" {
		if a.opts.Bridge == nil {
			return call, errors.New("agentRef cannot be resolved: this server runs no agent bridge")
		}
		var err error
		if call.url, err = a.opts.Bridge.URL(ctx, cfg); err != nil {
			return call, err
		}
		call.client = a.probeCluster // the operator's in-cluster endpoint, not an admin's URL
	}
	if a.opts.Bridge != nil {
		var err error
		if call.headers, err = a.opts.Bridge.Credentials(ctx, cfg, call.url, subject, "", headers); err != nil {
			return call, err
		}
	}
	return call, nil
}

// importFromAgent fills the configuration's empty display fields from what the agent says of
// itself (an Agentry agent: its manifest's spec.platform) and returns the frontend actions it
// has that the chat does not (have). Nothing is imported from an agent that says nothing, or
// when what it says would not be a valid configuration.
func (a *API) importFromAgent(ctx context.Context, cfg *model.AgentConfig, headers map[string]string, have []string) ([]model.FrontendAction, error) {
	ctx, cancel := a.withAgentTimeout(ctx)
	defer cancel()
	call, err := a.agentCall(ctx, *cfg, headers, bridge.ServiceSubject)
	if err != nil {
		return nil, err
	}
	d, err := bridge.Describe(ctx, call.client, call.url, call.headers)
	if err != nil {
		return nil, err
	}
	filled := *cfg
	actions := d.Fill(&filled, have)
	if err := filled.Validate(); err != nil {
		return nil, fmt.Errorf("the agent's description is not a valid configuration: %w", err)
	}
	*cfg = filled
	return actions, nil
}

// addActions stores the imported frontend actions; one the store refuses is skipped and logged.
func (a *API) addActions(ctx context.Context, actions []model.FrontendAction) []string {
	added := []string{}
	for _, f := range actions {
		if _, _, err := a.opts.Store.PutAction(ctx, f); err != nil {
			a.opts.Logger.Info("skipped a frontend action the agent describes", "agent", f.AgentID, "action", f.Name, "reason", err.Error())
			continue
		}
		added = append(added, f.Name)
	}
	return added
}

// importAgent (POST /agents/{agentId}/import) fills the agent's empty display fields and adds
// the frontend actions it describes that the chat lacks; what an admin set stays.
func (a *API) importAgent(c echo.Context) error {
	cfg, headers, err := a.storedAgent(c)
	if err != nil {
		return err
	}
	ctx, id := c.Request().Context(), cfg.AgentID
	list, err := a.opts.Store.ListActions(ctx, id)
	if err != nil {
		return err
	}
	have := make([]string, len(list))
	for i, f := range list {
		have[i] = f.Name
	}
	actions, err := a.importFromAgent(ctx, &cfg, headers, have)
	if err != nil {
		return errValidation("%s", err.Error())
	}
	out, _, err := a.opts.Store.PutAgent(ctx, cfg, nil)
	if err != nil {
		return err
	}
	added := a.addActions(ctx, actions)
	if out.Enabled {
		a.agentsChanged(id)
	}
	return c.JSON(http.StatusOK, map[string]any{"agent": out, "addedActions": added})
}

// saved answers a create-or-replace: 201 when it created, 200 when it replaced.
func saved(c echo.Context, created bool, v any) error {
	if created {
		return c.JSON(http.StatusCreated, v)
	}
	return c.JSON(http.StatusOK, v)
}
