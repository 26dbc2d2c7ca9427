package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
)

// maxActionResult bounds a frontend action's result: it goes back to the model.
const maxActionResult = 64 << 10

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)

type actionResultRequest struct {
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
}

// actionResult takes the result (or error) of a frontend action call from the client of the
// user who started the run; the run then continues with it.
func (a *API) actionResult(c echo.Context) error {
	runID, callID := c.Param("runId"), c.Param("toolCallId")
	if !runIDPattern.MatchString(runID) {
		return errValidation("runId is not a run id")
	}
	if !runIDPattern.MatchString(callID) {
		return errValidation("toolCallId is not a tool call id")
	}
	var req actionResultRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	hasResult := len(bytes.TrimSpace(req.Result)) > 0 && string(bytes.TrimSpace(req.Result)) != "null"
	if hasResult == (req.Error != "") {
		return errValidation("send either result (any JSON) or error (a string)")
	}
	if len(req.Result) > maxActionResult {
		return errValidation("result is larger than %d KiB", maxActionResult>>10)
	}
	if err := checkText("error", req.Error, 2000, false); err != nil {
		return err
	}
	res := model.ToolResultData{Error: req.Error}
	if hasResult {
		var s string
		if json.Unmarshal(req.Result, &s) == nil {
			res.Result = s
		} else {
			var buf bytes.Buffer
			if err := json.Compact(&buf, req.Result); err != nil {
				return errValidation("result is not valid JSON")
			}
			res.Result = buf.String()
		}
	}
	m, err := a.opts.Store.SubmitActionResult(c.Request().Context(), uidOf(c), runID, callID, res, false)
	return a.changedJSON(c, http.StatusCreated, m, err)
}

// retryAgentRun asks the agent of a failed run (its agent_error message) again: 202 with the
// new run's id; its answer arrives as the first run's would have.
func (a *API) retryAgentRun(c echo.Context) error {
	id, err := pathMessageID(c)
	if err != nil {
		return err
	}
	if a.opts.Bridge == nil {
		return model.Errorf(model.ErrValidation, "this server runs no agents")
	}
	ctx := c.Request().Context()
	failed, err := a.opts.Store.GetMessage(ctx, uidOf(c), id)
	if err != nil {
		return err
	}
	plan, err := a.opts.Bridge.Retry(ctx, uidOf(c), failed)
	if err != nil {
		return err
	}
	plan.Start(ctx, model.Message{})
	return c.JSON(http.StatusAccepted, map[string]string{"runId": plan.RunID()})
}

var approvalIDPattern = regexp.MustCompile(`^approval_[0-9a-f]{24}$`)

func pathApprovalID(c echo.Context) (string, error) {
	id := c.Param("approvalId")
	if !approvalIDPattern.MatchString(id) {
		return "", errValidation("approvalId is not an approval request id")
	}
	return id, nil
}

// getApproval answers an approval request to its approvers, its requester and the members of
// its conversation.
func (a *API) getApproval(c echo.Context) error {
	id, err := pathApprovalID(c)
	if err != nil {
		return err
	}
	ap, err := a.opts.Store.GetApproval(c.Request().Context(), uidOf(c), id)
	return answerJSON(c, http.StatusOK, ap, err)
}

type decisionRequest struct {
	Approved *bool  `json:"approved"`
	Reason   string `json:"reason"`
}

// decideApproval takes an approver's decision; the first one wins and the agent's run resumes.
func (a *API) decideApproval(c echo.Context) error {
	id, err := pathApprovalID(c)
	if err != nil {
		return err
	}
	var req decisionRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if req.Approved == nil {
		return errValidation("approved is required (true or false)")
	}
	if err := checkText("reason", req.Reason, 500, false); err != nil {
		return err
	}
	b, err := a.bridge()
	if err != nil {
		return err
	}
	ap, err := b.Decide(c.Request().Context(), id, uidOf(c), *req.Approved, strings.TrimSpace(req.Reason))
	return answerJSON(c, http.StatusOK, ap, err)
}

func (a *API) bridge() (*bridge.Bridge, error) {
	if a.opts.Bridge == nil {
		return nil, model.Errorf(model.ErrAIDisabled, "AI features are off: this server runs no agent bridge")
	}
	return a.opts.Bridge, nil
}

// assistant answers ErrAIDisabled before any other check of an AI request.
func (a *API) assistant(c echo.Context) (*bridge.Bridge, error) {
	b, err := a.bridge()
	if err != nil {
		return nil, err
	}
	if _, err := b.Assistant(c.Request().Context()); err != nil {
		return nil, err
	}
	return b, nil
}

// aiStatus tells clients whether to offer the AI features.
func (a *API) aiStatus(c echo.Context) error {
	enabled := false
	if b, err := a.bridge(); err == nil {
		_, err := b.Assistant(c.Request().Context())
		if err != nil && model.CodeOf(err) != model.ErrAIDisabled {
			return err
		}
		enabled = err == nil
	}
	return c.JSON(http.StatusOK, map[string]bool{"enabled": enabled})
}

type assistantRequest struct {
	AgentID string `json:"agentId"`
}

func (a *API) putAssistant(c echo.Context) error {
	var req assistantRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if !model.ValidAgentName.MatchString(req.AgentID) {
		return errValidation("agentId must be 1-64 letters, digits, _ or -")
	}
	ctx := c.Request().Context()
	if _, err := a.opts.Store.GetAgent(ctx, req.AgentID); err != nil {
		return err
	}
	if err := a.opts.Store.PutSetting(ctx, bridge.SettingAssistant, req.AgentID); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, req)
}

func (a *API) deleteAssistant(c echo.Context) error {
	if err := a.opts.Store.PutSetting(c.Request().Context(), bridge.SettingAssistant, ""); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

type conversationRequest struct {
	Receiver     string             `json:"receiver"`
	ReceiverType model.ReceiverType `json:"receiverType"`
}

// transcript is the conversation's recent text as the viewer sees it, one "uid: text" line per
// message, for the assistant's prompts.
func (a *API) transcript(c echo.Context, req conversationRequest, limit int) (string, error) {
	if err := checkReceiver(req.Receiver, req.ReceiverType); err != nil {
		return "", err
	}
	q := store.MessageQuery{Limit: limit, HideReplies: true, Categories: []string{model.CategoryMessage, model.CategoryAgentic}}
	if req.ReceiverType == model.ReceiverGroup {
		q.GUID = req.Receiver
	} else {
		q.UID = req.Receiver
	}
	msgs, err := a.opts.Store.ListMessages(c.Request().Context(), uidOf(c), q)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, m := range msgs {
		if m.DeletedAt == nil && strings.TrimSpace(m.Text) != "" && m.Type != model.TypeAgentError {
			fmt.Fprintf(&b, "%s: %s\n", m.Sender, clipText(m.Text, 500))
		}
	}
	return b.String(), nil
}

func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func (a *API) smartReplies(c echo.Context) error {
	b, err := a.assistant(c)
	if err != nil {
		return err
	}
	var req conversationRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	chat, err := a.transcript(c, req, 10)
	if err != nil {
		return err
	}
	if chat == "" {
		return c.JSON(http.StatusOK, map[string][]string{"replies": {}})
	}
	text, err := b.Ask(c.Request().Context(), fmt.Sprintf("Suggest exactly three short replies that %s could send next in this chat. "+
		"Answer with a JSON array of three strings and nothing else.\n\nChat:\n%s", uidOf(c), chat))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string][]string{"replies": bridge.ParseList(text, 3)})
}

func (a *API) conversationStarters(c echo.Context) error {
	b, err := a.assistant(c)
	if err != nil {
		return err
	}
	var req conversationRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if err := checkReceiver(req.Receiver, req.ReceiverType); err != nil {
		return err
	}
	ctx := c.Request().Context()
	about := ""
	if req.ReceiverType == model.ReceiverGroup {
		g, err := a.opts.Store.GetGroup(ctx, uidOf(c), req.Receiver)
		if err != nil {
			return err
		}
		about = fmt.Sprintf("the group %q (%s)", g.Name, clipText(g.Description, 300))
	} else {
		u, err := a.opts.Store.GetUser(ctx, req.Receiver)
		if err != nil {
			return err
		}
		about = fmt.Sprintf("%s (%s)", u.Name, u.UID)
	}
	text, err := b.Ask(ctx, fmt.Sprintf("Suggest exactly three short, friendly messages to start a conversation with %s. "+
		"Answer with a JSON array of three strings and nothing else.", about))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string][]string{"starters": bridge.ParseList(text, 3)})
}

type translateRequest struct {
	Language string `json:"language"`
}

var languagePattern = regexp.MustCompile(`^[\p{L} ()-]{2,40}$`)

func (a *API) translateMessage(c echo.Context) error {
	b, err := a.assistant(c)
	if err != nil {
		return err
	}
	id, err := pathMessageID(c)
	if err != nil {
		return err
	}
	var req translateRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	// The language goes into the prompt: letters only, so it cannot smuggle instructions.
	if !languagePattern.MatchString(req.Language) {
		return errValidation("language must be a language name or code, e.g. French or fr")
	}
	ctx := c.Request().Context()
	m, err := a.opts.Store.GetMessage(ctx, uidOf(c), id)
	if err != nil {
		return err
	}
	if m.DeletedAt != nil || strings.TrimSpace(m.Text) == "" {
		return errValidation("message %d has no text to translate", id)
	}
	text, err := b.Ask(ctx, fmt.Sprintf("Translate the following message into %s. Answer with the translation only.\n\n%s", req.Language, m.Text))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"messageId": id, "language": req.Language, "translatedText": text})
}
