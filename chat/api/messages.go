package api

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/platform/telemetry"
)

// maxTextRunes bounds a message's text (the SDK's composer has no larger use).
const maxTextRunes = 20000

// customType names a custom message's type (e.g. "location", "poll").
var customType = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

type messageRequest struct {
	Receiver     string             `json:"receiver"`
	ReceiverType model.ReceiverType `json:"receiverType"`
	Category     string             `json:"category"`
	Type         string             `json:"type"`
	Text         string             `json:"text"`
	Data         json.RawMessage    `json:"data"`
	Metadata     json.RawMessage    `json:"metadata"`
	ParentID     int64              `json:"parentId"`
	QuotedID     int64              `json:"quotedMessageId"`
	MUID         string             `json:"muid"`
}

// muidPattern is what a client's message id may look like (a UUID, a ULID, a counter).
var muidPattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,64}$`)

func checkMUID(v string) error {
	if v != "" && !muidPattern.MatchString(v) {
		return errValidation("muid must be 1 to 64 letters, digits, '_', '.', ':' or '-'")
	}
	return nil
}

// sentBefore answers a retried send (a muid the sender used already) with the message stored
// the first time: 200 instead of 201, nothing stored, no run started. ok is false when the muid
// is new.
func (a *API) sentBefore(c echo.Context, muid string) (ok bool, err error) {
	if muid == "" {
		return false, nil
	}
	m, err := a.opts.Store.MessageByMUID(c.Request().Context(), uidOf(c), muid)
	if model.CodeOf(err) == model.ErrMessageNotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, c.JSON(http.StatusOK, m)
}

func checkReceiver(id string, t model.ReceiverType) error {
	if t != model.ReceiverUser && t != model.ReceiverGroup {
		return errValidation("receiverType must be user or group")
	}
	return checkID("receiver", id)
}

// validate accepts what clients may send through the JSON route: text and custom messages.
// Actions and agent output are written by the server itself; media go through the upload.
func (r *messageRequest) validate() error {
	if err := checkReceiver(r.Receiver, r.ReceiverType); err != nil {
		return err
	}
	if err := checkMUID(r.MUID); err != nil {
		return err
	}
	if r.ParentID < 0 {
		return errValidation("parentId must be a message id")
	}
	if r.QuotedID < 0 {
		return errValidation("quotedMessageId must be a message id")
	}
	if err := checkObject("metadata", r.Metadata); err != nil {
		return err
	}
	r.Category = cmp.Or(r.Category, model.CategoryMessage)
	switch r.Category {
	case model.CategoryMessage:
		r.Type = cmp.Or(r.Type, model.TypeText)
		if r.Type != model.TypeText {
			return errValidation("type must be text; media messages are sent with POST /chat/v1/messages/media")
		}
		if len(r.Data) > 0 {
			return errValidation("data is for custom messages")
		}
		return checkText("text", r.Text, maxTextRunes, true)
	case model.CategoryCustom:
		if !customType.MatchString(r.Type) {
			return errValidation("a custom message needs a type of 1 to 64 letters, digits, '_', '.' or '-'")
		}
		if t := bytes.TrimSpace(r.Data); len(t) == 0 || bytes.Equal(t, []byte("null")) {
			return errValidation("a custom message needs data")
		}
		if err := checkObject("data", r.Data); err != nil {
			return err
		}
		return checkText("text", r.Text, maxTextRunes, false)
	}
	return errValidation("category must be message or custom")
}

func (a *API) sendMessage(c echo.Context) (err error) {
	// The send is a span (continuing a caller's traceparent); an agent run it starts is its child.
	ctx, span := tracer().Start(otel.GetTextMapPropagator().Extract(c.Request().Context(), propagation.HeaderCarrier(c.Request().Header)),
		"chat send_message", trace.WithSpanKind(trace.SpanKindServer))
	defer func() {
		if err != nil {
			span.SetAttributes(semconv.ErrorTypeKey.String(model.CodeOf(err)))
			span.SetStatus(codes.Error, model.CodeOf(err))
		}
		span.End()
	}()
	c.SetRequest(c.Request().WithContext(ctx))
	var req messageRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if err := req.validate(); err != nil {
		return err
	}
	if done, err := a.sentBefore(c, req.MUID); done || err != nil {
		return err
	}
	// A message that starts an agent run claims the conversation first, so a message the
	// agent cannot take (disabled, busy) is refused before it is stored.
	var plan *bridge.Plan
	if a.opts.Bridge != nil {
		var err error
		if plan, err = a.opts.Bridge.Prepare(ctx, bridge.Message{Sender: uidOf(c), ReceiverType: req.ReceiverType, Receiver: req.Receiver,
			Category: req.Category, Type: req.Type, Text: req.Text, ParentID: req.ParentID}); err != nil {
			return err
		}
	}
	m, err := a.opts.Store.SendMessage(ctx, model.Message{
		Sender: uidOf(c), ReceiverID: req.Receiver, ReceiverType: req.ReceiverType, Category: req.Category, Type: req.Type,
		Text: req.Text, Data: req.Data, Metadata: req.Metadata, ParentID: req.ParentID, QuotedMessageID: req.QuotedID, MUID: req.MUID,
	})
	if err != nil {
		if plan != nil {
			plan.Cancel()
		}
		if errors.Is(err, store.ErrAlreadySent) { // a concurrent retry stored it first
			return c.JSON(http.StatusOK, m)
		}
		return err
	}
	a.opts.Metrics.MessagesStored("user", 1)
	a.notify()
	span.SetAttributes(attribute.String("agentry.chat.receiver_type", string(m.ReceiverType)), attribute.Int64("agentry.chat.message_id", m.ID),
		semconv.GenAIConversationID(m.ConversationID))
	if plan != nil {
		if m.Moderation != model.ModerationApproved {
			plan.Cancel() // a held-back message is not shown to the agent either
		} else {
			plan.Start(ctx, m)
			c.Response().Header().Set("X-Agent-Run", plan.RunID())
		}
	}
	return c.JSON(http.StatusCreated, m)
}

func (a *API) getMessage(c echo.Context) error {
	id, err := pathMessageID(c)
	if err != nil {
		return err
	}
	m, err := a.opts.Store.GetMessage(c.Request().Context(), uidOf(c), id)
	return answerJSON(c, http.StatusOK, m, err)
}

type editRequest struct {
	Text *string         `json:"text"`
	Data json.RawMessage `json:"data"`
}

func (a *API) editMessage(c echo.Context) error {
	id, err := pathMessageID(c)
	if err != nil {
		return err
	}
	var req editRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if req.Text == nil && len(req.Data) == 0 {
		return errValidation("text or data is required")
	}
	if req.Text != nil {
		if err := checkText("text", *req.Text, maxTextRunes, len(req.Data) == 0); err != nil {
			return err
		}
	}
	if err := checkObject("data", req.Data); err != nil {
		return err
	}
	m, err := a.opts.Store.EditMessage(c.Request().Context(), uidOf(c), id, deref(req.Text), req.Data)
	return a.changedJSON(c, http.StatusOK, m, err)
}

func (a *API) deleteMessage(c echo.Context) error {
	id, err := pathMessageID(c)
	if err != nil {
		return err
	}
	m, err := a.opts.Store.DeleteMessage(c.Request().Context(), uidOf(c), id)
	return a.changedJSON(c, http.StatusOK, m, err)
}

func (a *API) listUserMessages(c echo.Context) error {
	uid, err := pathID(c, "uid")
	if err != nil {
		return err
	}
	return a.listMessages(c, store.MessageQuery{UID: uid})
}

func (a *API) listGroupMessages(c echo.Context) error {
	guid, err := pathID(c, "guid")
	if err != nil {
		return err
	}
	return a.listMessages(c, store.MessageQuery{GUID: guid})
}

func (a *API) listMessages(c echo.Context, mq store.MessageQuery) error {
	q := &query{c: c}
	mq.Limit = q.limit()
	mq.Before, mq.After, mq.Around = q.id("before"), q.id("after"), q.id("around")
	mq.ParentID = q.id("parentId")
	mq.HideReplies = q.boolean("hideReplies")
	mq.Types, mq.Categories = q.list("types"), q.list("categories")
	mq.SearchKeyword = q.str("searchKeyword", 100)
	if q.err != nil {
		return q.err
	}
	set := 0
	for _, v := range []int64{mq.Before, mq.After, mq.Around} {
		if v != 0 {
			set++
		}
	}
	if set > 1 {
		return errValidation("use at most one of before, after and around")
	}
	msgs, err := a.opts.Store.ListMessages(c.Request().Context(), uidOf(c), mq)
	return listJSON(c, "items", msgs, err)
}

type typingRequest struct {
	Receiver     string             `json:"receiver"`
	ReceiverType model.ReceiverType `json:"receiverType"`
}

func (a *API) typingStart(c echo.Context) error { return a.typing(c, true) }
func (a *API) typingEnd(c echo.Context) error   { return a.typing(c, false) }

// typing relays an ephemeral indicator: nothing is stored, so only the hub hears of it. A group
// indicator needs membership, or anyone could type into any group.
func (a *API) typing(c echo.Context, started bool) error {
	var req typingRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if err := checkReceiver(req.Receiver, req.ReceiverType); err != nil {
		return err
	}
	uid, ctx := uidOf(c), c.Request().Context()
	if req.ReceiverType == model.ReceiverGroup {
		g, err := a.opts.Store.GetGroup(ctx, uid, req.Receiver)
		if err != nil {
			return err
		}
		if !g.HasJoined {
			return model.Errorf(model.ErrNotAMember, "you are not a member of group %q", req.Receiver)
		}
	} else if _, err := a.opts.Store.GetUser(ctx, req.Receiver); err != nil {
		return err
	}
	if a.opts.Hub != nil {
		a.opts.Hub.Typing(uid, model.ConversationID(req.ReceiverType, uid, req.Receiver), started)
	}
	return c.NoContent(http.StatusNoContent)
}

func (a *API) listConversations(c echo.Context) error {
	q := &query{c: c}
	cq := store.ConversationQuery{Limit: q.limit(), Cursor: q.cursor(), Type: model.ReceiverType(q.str("type", 10))}
	if q.err != nil {
		return q.err
	}
	switch cq.Type {
	case "", model.ReceiverUser, model.ReceiverGroup:
	default:
		return errValidation("type must be user or group")
	}
	page, err := a.opts.Store.ListConversations(c.Request().Context(), uidOf(c), cq)
	return pageJSON(c, page, err)
}

// searchMessages answers GET /messages?searchKeyword=: the viewer's messages containing the
// keyword in every conversation it can read, newest first; before pages back.
func (a *API) searchMessages(c echo.Context) error {
	q := &query{c: c}
	sq := store.SearchQuery{Keyword: q.str("searchKeyword", 100), Limit: q.limit(), Before: q.id("before")}
	if q.err != nil {
		return q.err
	}
	msgs, err := a.opts.Store.SearchMessages(c.Request().Context(), uidOf(c), sq)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"items": msgs})
}

var spans = telemetry.NewTracer("github.com/agentry-dev/agentry/chat/api")

func tracer() trace.Tracer { return spans.Get() }
