package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/agentry-dev/agentry/chat/model"
)

// ListConversations implements Messages: the viewer's one-to-one conversations and the
// groups it is a member of (not those with an agent that is disabled or unconfigured, which
// the user directory hides too), most recently active first, each with its last message visible to
// the viewer and the number of others' messages after the viewer's read watermark.
func (s *sqlStore) ListConversations(ctx context.Context, uid string, q ConversationQuery) (Page[model.Conversation], error) {
	limit, err := limitOf(q.Limit)
	if err != nil {
		return Page[model.Conversation]{}, err
	}
	if q.Type != "" && q.Type != model.ReceiverUser && q.Type != model.ReceiverGroup {
		return Page[model.Conversation]{}, model.Errorf(model.ErrValidation, "type must be user or group")
	}
	c, err := s.decodeCursor("conversations", q.Cursor)
	if err != nil {
		return Page[model.Conversation]{}, err
	}
	after := 0
	if q.Cursor != "" {
		after = 1
	}
	var items []model.Conversation
	err = s.read(ctx, "list conversations", func(t *txn) (err error) {
		items, err = queryAll(t, func(sc scanner) (cv model.Conversation, err error) {
			var typ, a, b string
			var updated int64
			err = sc.Scan(&cv.ID, &typ, &a, &b, &updated)
			cv.Type, cv.UpdatedAt, cv.With = model.ReceiverType(typ), fromUS(updated), a
			if cv.Type == model.ReceiverUser && a == uid {
				cv.With = b
			}
			return cv, err
		}, `SELECT id, type, party_a, party_b, updated_us FROM chat_conversations
WHERE ((type = 'user' AND (party_a = $1 OR party_b = $1)) OR (type = 'group' AND party_a IN (SELECT guid FROM chat_members WHERE uid = $1)))
AND ($2 = '' OR type = $2)
AND (type <> 'user' OR NOT EXISTS (SELECT 1 FROM chat_users u WHERE u.uid IN (party_a, party_b) AND u.uid <> $1 AND u.kind = 'agent'
  AND u.uid NOT IN (SELECT agent_id FROM chat_agents WHERE enabled = 1)))
AND ($3 = 0 OR updated_us < $4 OR (updated_us = $4 AND id < $5))
ORDER BY updated_us DESC, id DESC LIMIT $6`, uid, string(q.Type), after, c.N, c.Key, limit+1)
		if err != nil {
			return err
		}
		for i := range items {
			if err := fillConversation(t, uid, &items[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Page[model.Conversation]{}, err
	}
	return pageOf(s, items, limit, func(last model.Conversation) cursor {
		return cursor{Of: "conversations", N: us(last.UpdatedAt), Key: last.ID}
	}), nil
}

// fillConversation adds the last message, the unread count and the viewer's watermarks.
// Unread counts the main conversation's messages from others: a thread reply is read in its
// thread (the one read watermark is the main list's, so a reply below it could never be
// cleared), and an action message (a join, a kick) is an event, not something to read.
func fillConversation(t *txn, uid string, cv *model.Conversation) error {
	r, err := loadReceipt(t, cv.ID, uid, false)
	if err != nil {
		return err
	}
	cv.LastReadID, cv.LastDelivery = r.read, r.delivered
	if err := t.row(`SELECT COUNT(*) FROM chat_messages WHERE conversation_id = $1 AND id > $2 AND sender <> $3 AND moderation = 'approved' AND deleted_us = 0 AND parent_id = 0 AND category <> $4`,
		cv.ID, r.read, uid, model.CategoryAction).Scan(&cv.UnreadCount); err != nil {
		return fmt.Errorf("failed to count unread messages of %q: %w", cv.ID, err)
	}
	m, err := scanMessage(t.row(`SELECT `+messageColumns+` FROM chat_messages WHERE conversation_id = $1 AND (moderation = 'approved' OR sender = $2) ORDER BY id DESC LIMIT 1`, cv.ID, uid))
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	msgs := []model.Message{m}
	if err := decorate(t, uid, msgs); err != nil {
		return err
	}
	cv.LastMessage = &msgs[0]
	return nil
}
