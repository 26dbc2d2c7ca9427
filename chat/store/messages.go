package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/agentry-dev/agentry/chat/model"
)

const messageColumns = `id, conversation_id, sender, receiver, receiver_type, category, type, text, data, attachment, metadata, parent_id, reply_count, moderation, sent_us, edited_us, edited_by, deleted_us, deleted_by, muid, quoted_id`

func scanMessage(sc scanner) (model.Message, error) {
	var m model.Message
	var rtype, data, att, meta, mod string
	var sent, edited, deleted int64
	if err := sc.Scan(&m.ID, &m.ConversationID, &m.Sender, &m.ReceiverID, &rtype, &m.Category, &m.Type, &m.Text, &data, &att, &meta,
		&m.ParentID, &m.ReplyCount, &mod, &sent, &edited, &m.EditedBy, &deleted, &m.DeletedBy, &m.MUID, &m.QuotedMessageID); err != nil {
		return m, err
	}
	m.ReceiverType, m.Moderation = model.ReceiverType(rtype), model.ModerationStatus(mod)
	if data != "" {
		m.Data = json.RawMessage(data)
	}
	if meta != "" {
		m.Metadata = json.RawMessage(meta)
	}
	if att != "" {
		m.Attachment = &model.Attachment{}
		_ = json.Unmarshal([]byte(att), m.Attachment)
	}
	m.SentAt, m.EditedAt, m.DeletedAt = fromUS(sent), optTime(edited), optTime(deleted)
	return m, nil
}

// insertMessage stores m (ConversationID, Moderation set) and fills ID and SentAt. The id is
// taken under the conversation's row lock, held to commit: ids of a conversation then follow
// commit order (PostgreSQL allocates serial ids before commit, so without the lock a later id
// could commit first and a reader paging with after=<last id> would skip the earlier one), and
// agree with the order of the message events (seq, taken under the same lock).
func insertMessage(t *txn, m *model.Message) error {
	if t.s.d.forUpdate != "" {
		var one int
		if err := t.row(`SELECT 1 FROM chat_conversations WHERE id = $1`+t.s.d.forUpdate, m.ConversationID).Scan(&one); err != nil {
			return err
		}
	}
	att := ""
	if m.Attachment != nil {
		b, _ := json.Marshal(m.Attachment)
		att = string(b)
	}
	m.SentAt = t.now
	// A muid the sender used already inserts nothing (a concurrent duplicate waits for the
	// first to commit or roll back): errDuplicateMUID rolls this transaction back.
	err := t.row(`INSERT INTO chat_messages (conversation_id, sender, receiver, receiver_type, category, type, text, data, attachment, metadata, parent_id, moderation, sent_us, muid, quoted_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT (sender, muid) WHERE muid <> '' DO NOTHING RETURNING id`,
		m.ConversationID, m.Sender, m.ReceiverID, string(m.ReceiverType), m.Category, m.Type, m.Text, string(m.Data), att, string(m.Metadata), m.ParentID, string(m.Moderation), us(m.SentAt), m.MUID, m.QuotedMessageID).Scan(&m.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return errDuplicateMUID
	}
	return err
}

// errDuplicateMUID is insertMessage's answer to a muid its sender used already.
var errDuplicateMUID = errors.New("duplicate muid")

// MessageByMUID implements Messages.
func (s *sqlStore) MessageByMUID(ctx context.Context, sender, muid string) (model.Message, error) {
	var id int64
	err := s.read(ctx, "read message by muid", func(t *txn) error {
		return t.row(`SELECT id FROM chat_messages WHERE sender = $1 AND muid = $2`, sender, muid).Scan(&id)
	})
	if errors.Is(err, sql.ErrNoRows) || muid == "" {
		return model.Message{}, model.Errorf(model.ErrMessageNotFound, "no message with muid %q", muid)
	}
	if err != nil {
		return model.Message{}, err
	}
	return s.GetMessage(ctx, sender, id)
}

// messageEvent emits a message event. A message under moderation (pending, disapproved) is
// visible only to its sender (and the group's admins, who read it from the store), so its
// events are targeted at the sender alone; approved messages go to the conversation.
func messageEvent(t *txn, typ string, m model.Message) error {
	if m.QuotedMessageID != 0 && m.QuotedMessage == nil { // an edit or a delete of a quote reply
		one := []model.Message{m}
		if err := decorateQuotes(t, one); err != nil {
			return err
		}
		m = one[0]
	}
	if m.Moderation != model.ModerationApproved {
		return t.emit("", typ, m.Sender, m)
	}
	return t.emit(m.ConversationID, typ, "", m)
}

// actionMessage stores the action message of a membership change in the group's conversation.
func actionMessage(t *txn, guid, actor, text string, data memberEvent) (model.Message, error) {
	b, _ := json.Marshal(data)
	m := model.Message{ConversationID: groupConversation(guid), Sender: actor, ReceiverID: guid, ReceiverType: model.ReceiverGroup,
		Category: model.CategoryAction, Type: model.TypeMember, Text: text, Data: b, Moderation: model.ModerationApproved}
	if err := insertMessage(t, &m); err != nil {
		return m, err
	}
	if _, err := t.exec(`UPDATE chat_conversations SET updated_us = $2 WHERE id = $1`, m.ConversationID, us(t.now)); err != nil {
		return m, err
	}
	return m, messageEvent(t, model.EventMessageCreated, m)
}

func validateMessage(m model.Message) (model.Message, error) {
	m.Category = cmp.Or(m.Category, model.CategoryMessage)
	switch {
	case m.Sender == "":
		return m, model.Errorf(model.ErrValidation, "sender is required")
	case m.ReceiverType != model.ReceiverUser && m.ReceiverType != model.ReceiverGroup:
		return m, model.Errorf(model.ErrValidation, "receiverType must be user or group")
	case m.ReceiverID == "":
		return m, model.Errorf(model.ErrValidation, "receiver is required")
	case m.ReceiverType == model.ReceiverUser && m.ReceiverID == m.Sender:
		return m, model.Errorf(model.ErrValidation, "receiver must be another user")
	case strings.TrimSpace(m.Type) == "":
		return m, model.Errorf(model.ErrValidation, "type is required")
	}
	switch m.Category {
	case model.CategoryMessage:
		switch m.Type {
		case model.TypeText:
			if strings.TrimSpace(m.Text) == "" {
				return m, model.Errorf(model.ErrValidation, "text is required")
			}
		case model.TypeImage, model.TypeVideo, model.TypeAudio, model.TypeFile:
			if m.Attachment == nil || m.Attachment.URL == "" {
				return m, model.Errorf(model.ErrValidation, "a %s message needs an attachment", m.Type)
			}
		default:
			return m, model.Errorf(model.ErrValidation, "type must be text, image, video, audio or file")
		}
	case model.CategoryCustom, model.CategoryAgentic:
	default:
		// Action messages are written by the store itself, never sent.
		return m, model.Errorf(model.ErrValidation, "category must be message, custom or agentic")
	}
	if err := checkJSON("data", m.Data); err != nil {
		return m, err
	}
	return m, checkJSON("metadata", m.Metadata)
}

// conversationOf checks that sender may write to m's receiver and returns the conversation,
// creating a one-to-one conversation on its first message. For a group, the member row is
// share-locked so a concurrent kick or ban commits before or after this message, not between
// check and write.
func conversationOf(t *txn, sender string, typ model.ReceiverType, receiver string) (string, error) {
	if typ == model.ReceiverGroup {
		if _, err := viewGroup(t, sender, receiver); err != nil {
			return "", err
		}
		if scope, err := scopeOf(t, receiver, sender, true); err != nil {
			return "", err
		} else if scope == "" {
			return "", model.Errorf(model.ErrNotAMember, "%q is not a member of group %q", sender, receiver)
		}
		return groupConversation(receiver), nil
	}
	if _, err := getUser(t, sender); err != nil {
		return "", err
	}
	if _, err := getUser(t, receiver); err != nil {
		return "", err
	}
	conv := model.ConversationID(model.ReceiverUser, sender, receiver)
	a, b := min(sender, receiver), max(sender, receiver)
	if _, err := t.exec(`INSERT INTO chat_conversations (id, type, party_a, party_b, updated_us) VALUES ($1, 'user', $2, $3, $4) ON CONFLICT (id) DO NOTHING`, conv, a, b, us(t.now)); err != nil {
		return "", err
	}
	// Ids join the two uids with "_user_", and uids may hold underscores: "x" + "y_user_z"
	// and "x_user_y" + "z" name the same id. The first pair keeps it; the other is refused
	// rather than let into a conversation that is not theirs.
	var pa, pb string
	if err := t.row(`SELECT party_a, party_b FROM chat_conversations WHERE id = $1`, conv).Scan(&pa, &pb); err != nil {
		return "", err
	}
	if pa != a || pb != b {
		return "", model.Errorf(model.ErrPermissionDenied, "users %q and %q cannot have a one-to-one conversation: its id is taken by another pair (uids with \"_user_\" in them)", a, b)
	}
	return conv, nil
}

// SendMessage implements Messages. The stored moderation rules are applied here, inside the
// writing transaction, rather than by the caller: every path that stores a message (API,
// agent bridge) gets them, and a rule change applies to the next message atomically. A
// matching message is stored pending or disapproved and is visible only to its sender and the
// group's admins until Moderate approves it.
func (s *sqlStore) SendMessage(ctx context.Context, m model.Message) (model.Message, error) {
	var out model.Message
	err := s.write(ctx, "send message", func(t *txn) (err error) {
		out, err = sendInTx(t, m)
		return err
	})
	if errors.Is(err, errDuplicateMUID) {
		first, err := s.MessageByMUID(ctx, m.Sender, m.MUID)
		if err != nil {
			return model.Message{}, err
		}
		return first, ErrAlreadySent
	}
	if err != nil {
		return model.Message{}, err
	}
	return out, nil
}

// SendMessages implements Messages: one transaction, so an agent run's output is stored
// whole or not at all.
func (s *sqlStore) SendMessages(ctx context.Context, ms []model.Message) ([]model.Message, error) {
	var out []model.Message
	err := s.write(ctx, "send messages", func(t *txn) (err error) {
		out, err = sendAllInTx(t, ms)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// sendAllInTx sends every message in t, in order.
func sendAllInTx(t *txn, ms []model.Message) ([]model.Message, error) {
	out := make([]model.Message, 0, len(ms))
	for _, m := range ms {
		sent, err := sendInTx(t, m)
		if err != nil {
			return nil, err
		}
		out = append(out, sent)
	}
	return out, nil
}

// sendInTx stores m and its event inside t (see SendMessage).
func sendInTx(t *txn, m model.Message) (model.Message, error) {
	m, err := validateMessage(m)
	if err != nil {
		return model.Message{}, err
	}
	m.ID, m.ReplyCount, m.EditedAt, m.EditedBy, m.DeletedAt, m.DeletedBy, m.Reactions, m.DeliveredAt, m.ReadAt = 0, 0, nil, "", nil, "", nil, nil, nil
	conv, err := conversationOf(t, m.Sender, m.ReceiverType, m.ReceiverID)
	if err != nil {
		return m, err
	}
	m.ConversationID = conv
	if m.ParentID != 0 {
		parent, err := loadMessage(t, m.ParentID, true)
		if err == nil && parent.ConversationID == conv {
			_, err = canSee(t, m.Sender, parent)
		} else if err == nil {
			err = model.Errorf(model.ErrMessageNotFound, "no message %d in this conversation", m.ParentID)
		}
		if err != nil {
			return m, err
		}
		if _, err := t.exec(`UPDATE chat_messages SET reply_count = reply_count + 1 WHERE id = $1`, m.ParentID); err != nil {
			return m, err
		}
	}
	m.QuotedMessage = nil
	if m.QuotedMessageID != 0 {
		q, err := loadMessage(t, m.QuotedMessageID, false)
		if err == nil && q.ConversationID == conv {
			_, err = canSee(t, m.Sender, q)
		} else if err == nil {
			err = model.Errorf(model.ErrMessageNotFound, "no message %d in this conversation", m.QuotedMessageID)
		}
		if err != nil {
			return m, err
		}
		m.QuotedMessage = quoteOf(q)
	}
	if m.Moderation, err = moderate(t, m.Text); err != nil {
		return m, err
	}
	if err := insertMessage(t, &m); err != nil {
		return m, err
	}
	if m.Moderation == model.ModerationApproved {
		if _, err := t.exec(`UPDATE chat_conversations SET updated_us = $2 WHERE id = $1`, conv, us(t.now)); err != nil {
			return m, err
		}
	}
	return m, messageEvent(t, model.EventMessageCreated, m)
}

// quoteOf is q as a quote reply carries it: without its own quote, and without the content of
// a message still under moderation.
func quoteOf(q model.Message) *model.Message {
	q.QuotedMessageID, q.QuotedMessage, q.Reactions, q.DeliveredAt, q.ReadAt, q.MUID = 0, nil, nil, nil, nil, ""
	if q.Moderation != model.ModerationApproved {
		q.Text, q.Data, q.Attachment, q.Metadata = "", nil, nil, nil
	}
	return &q
}

// loadMessage reads a message; lock holds its row until commit (PostgreSQL).
func loadMessage(t *txn, id int64, lock bool) (model.Message, error) {
	q := `SELECT ` + messageColumns + ` FROM chat_messages WHERE id = $1`
	if lock {
		q += t.s.d.forUpdate
	}
	m, err := scanMessage(t.row(q, id))
	if errors.Is(err, sql.ErrNoRows) {
		return m, model.Errorf(model.ErrMessageNotFound, "no message %d", id)
	}
	return m, err
}

// EditMessage implements Messages: the sender only, never a tombstone or an action message.
// The moderation rules are applied to the new text as to a new message.
func (s *sqlStore) EditMessage(ctx context.Context, actor string, id int64, text string, data []byte) (model.Message, error) {
	if err := checkJSON("data", data); err != nil {
		return model.Message{}, err
	}
	var m model.Message
	err := s.write(ctx, "edit message", func(t *txn) error {
		var err error
		if m, err = loadMessage(t, id, true); err != nil {
			return err
		}
		if _, err := canSee(t, actor, m); err != nil {
			return err
		}
		switch {
		case m.Sender != actor || m.Category == model.CategoryAction:
			return model.Errorf(model.ErrPermissionDenied, "only the sender can edit message %d", id)
		case m.DeletedAt != nil:
			return model.Errorf(model.ErrMessageDeleted, "message %d was deleted", id)
		case m.Type == model.TypeText && m.Category == model.CategoryMessage && strings.TrimSpace(text) == "":
			return model.Errorf(model.ErrValidation, "text is required")
		}
		m.Text = text
		if data != nil {
			m.Data = data
		}
		if m.Moderation == model.ModerationApproved {
			if m.Moderation, err = moderate(t, text); err != nil {
				return err
			}
		}
		m.EditedAt, m.EditedBy = &t.now, actor
		if _, err := t.exec(`UPDATE chat_messages SET text = $2, data = $3, moderation = $4, edited_us = $5, edited_by = $6 WHERE id = $1`,
			id, m.Text, string(m.Data), string(m.Moderation), us(t.now), actor); err != nil {
			return err
		}
		return messageEvent(t, model.EventMessageEdited, m)
	})
	if err != nil {
		return model.Message{}, err
	}
	return s.GetMessage(ctx, actor, id)
}

// DeleteMessage implements Messages. Deleting a tombstone again returns it unchanged.
func (s *sqlStore) DeleteMessage(ctx context.Context, actor string, id int64) (model.Message, error) {
	err := s.write(ctx, "delete message", func(t *txn) error {
		m, err := loadMessage(t, id, true)
		if err != nil {
			return err
		}
		scope, err := canSee(t, actor, m)
		if err != nil {
			return err
		}
		if m.Sender != actor && scope != model.ScopeAdmin && scope != model.ScopeModerator {
			return model.Errorf(model.ErrPermissionDenied, "only the sender or a group's admins and moderators can delete message %d", id)
		}
		if m.DeletedAt != nil {
			return nil
		}
		if _, err := t.exec(`UPDATE chat_messages SET text = '', data = '', attachment = '', deleted_us = $2, deleted_by = $3 WHERE id = $1`, id, us(t.now), actor); err != nil {
			return err
		}
		if m.ParentID != 0 {
			// A deleted reply no longer counts; clients lower the root's count from the
			// deleted event (it names the parent), so the root needs no event of its own.
			if _, err := t.exec(`UPDATE chat_messages SET reply_count = reply_count - 1 WHERE id = $1 AND reply_count > 0`, m.ParentID); err != nil {
				return err
			}
		}
		m.Text, m.Data, m.Attachment, m.DeletedAt, m.DeletedBy = "", nil, nil, &t.now, actor
		return messageEvent(t, model.EventMessageDeleted, m)
	})
	if err != nil {
		return model.Message{}, err
	}
	return s.GetMessage(ctx, actor, id)
}
