package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentry-dev/agentry/chat/model"
)

// reactionChange is the Data of reaction events.
type reactionChange struct {
	model.Reaction
	ConversationID string `json:"conversationId"`
}

func (s *sqlStore) react(ctx context.Context, uid string, id int64, reaction string, add bool) (model.Message, error) {
	reaction = strings.TrimSpace(reaction)
	if reaction == "" || len(reaction) > 64 {
		return model.Message{}, model.Errorf(model.ErrValidation, "reaction must be 1-64 bytes")
	}
	err := s.write(ctx, "store reaction", func(t *txn) error {
		m, err := loadMessage(t, id, true)
		if err != nil {
			return err
		}
		if _, err := canSee(t, uid, m); err != nil {
			return err
		}
		if m.DeletedAt != nil {
			return model.Errorf(model.ErrMessageDeleted, "message %d was deleted", id)
		}
		q, typ := `INSERT INTO chat_reactions (message_id, reaction, uid, reacted_us) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, model.EventReactionAdded
		args := []any{id, reaction, uid, us(t.now)}
		if !add {
			q, typ, args = `DELETE FROM chat_reactions WHERE message_id = $1 AND reaction = $2 AND uid = $3`, model.EventReactionRemoved, args[:3]
		}
		res, err := t.exec(q, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // nothing changed (twice the same), nothing to tell
		}
		e := reactionChange{Reaction: model.Reaction{MessageID: id, UID: uid, Reaction: reaction, ReactedAt: t.now}, ConversationID: m.ConversationID}
		if m.Moderation != model.ModerationApproved {
			return t.emit("", typ, m.Sender, e)
		}
		return t.emit(m.ConversationID, typ, "", e)
	})
	if err != nil {
		return model.Message{}, err
	}
	return s.GetMessage(ctx, uid, id)
}

// AddReaction implements Messages; adding the same reaction twice is a no-op.
func (s *sqlStore) AddReaction(ctx context.Context, uid string, id int64, reaction string) (model.Message, error) {
	return s.react(ctx, uid, id, reaction, true)
}

// RemoveReaction implements Messages; removing a reaction one has not made is a no-op.
func (s *sqlStore) RemoveReaction(ctx context.Context, uid string, id int64, reaction string) (model.Message, error) {
	return s.react(ctx, uid, id, reaction, false)
}

// ListReactions implements Messages: who reacted (with reaction, or any), oldest first.
func (s *sqlStore) ListReactions(ctx context.Context, viewer string, id int64, reaction string, q MemberQuery) (Page[model.Reaction], error) {
	limit, err := limitOf(q.Limit)
	if err != nil {
		return Page[model.Reaction]{}, err
	}
	of := fmt.Sprintf("reactions:%d:%s", id, reaction)
	c, err := s.decodeCursor(of, q.Cursor)
	if err != nil {
		return Page[model.Reaction]{}, err
	}
	var items []model.Reaction
	err = s.read(ctx, "list reactions", func(t *txn) error {
		m, err := loadMessage(t, id, false)
		if err != nil {
			return err
		}
		if _, err := canSee(t, viewer, m); err != nil {
			return err
		}
		// The cursor is (reacted_us, reaction + "\x00" + uid) of the last item.
		items, err = queryAll(t, func(sc scanner) (model.Reaction, error) {
			r := model.Reaction{MessageID: id}
			var at int64
			err := sc.Scan(&r.Reaction, &r.UID, &at)
			r.ReactedAt = fromUS(at)
			return r, err
		}, `SELECT reaction, uid, reacted_us FROM chat_reactions WHERE message_id = $1 AND ($2 = '' OR reaction = $2)
AND (reacted_us > $3 OR (reacted_us = $3 AND reaction || '/' || uid > $4)) ORDER BY reacted_us, reaction || '/' || uid LIMIT $5`, id, reaction, c.N, c.Key, limit+1)
		return err
	})
	if err != nil {
		return Page[model.Reaction]{}, err
	}
	return pageOf(s, items, limit, func(last model.Reaction) cursor {
		return cursor{Of: of, N: us(last.ReactedAt), Key: last.Reaction + "/" + last.UID}
	}), nil
}

// decorate fills the viewer's view of msgs: reaction counts (reactedByMe), and the receipts —
// the viewer's own for others' messages, the other user's for the viewer's one-to-one
// messages (group messages have MessageInfo).
func decorate(t *txn, viewer string, msgs []model.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	index := map[int64]int{}
	args := []any{viewer}
	marks := make([]string, len(msgs))
	for i, m := range msgs {
		index[m.ID] = i
		args = append(args, m.ID)
		marks[i] = fmt.Sprintf("$%d", len(args))
	}
	type count struct {
		id int64
		model.ReactionCount
	}
	counts, err := queryAll(t, func(sc scanner) (c count, err error) {
		var mine int64
		err = sc.Scan(&c.id, &c.Reaction, &c.Count, &mine)
		c.ReactedByMe = mine > 0
		return c, err
	}, `SELECT message_id, reaction, COUNT(*), SUM(CASE WHEN uid = $1 THEN 1 ELSE 0 END) FROM chat_reactions
WHERE message_id IN (`+strings.Join(marks, ", ")+`) GROUP BY message_id, reaction ORDER BY message_id, reaction`, args...)
	if err != nil {
		return err
	}
	for _, c := range counts {
		msgs[index[c.id]].Reactions = append(msgs[index[c.id]].Reactions, c.ReactionCount)
	}
	receipts := map[string]receipt{}
	members := map[string][]memberMark{} // by group conversation, for the viewer's own messages
	for i := range msgs {
		m := &msgs[i]
		var r receipt
		if m.Sender == viewer && m.ReceiverType == model.ReceiverGroup {
			mk, ok := members[m.ConversationID]
			if !ok {
				if mk, err = groupMarks(t, m.ConversationID, m.ReceiverID, viewer); err != nil {
					return err
				}
				members[m.ConversationID] = mk
			}
			r = groupReceipt(mk, *m)
		} else {
			whose := viewer
			if m.Sender == viewer {
				whose = m.ReceiverID
			}
			key := m.ConversationID + "\x00" + whose
			var ok bool
			if r, ok = receipts[key]; !ok {
				if r, err = loadReceipt(t, m.ConversationID, whose, false); err != nil {
					return err
				}
				receipts[key] = r
			}
		}
		if m.ID <= r.delivered {
			m.DeliveredAt = optTime(r.deliveredUS)
		}
		if m.ID <= r.read {
			m.ReadAt = optTime(r.readUS)
		}
	}
	return decorateQuotes(t, msgs)
}

// decorateQuotes adds the quoted message to each quote reply, as it stands now (edited, or a
// tombstone), in one query.
func decorateQuotes(t *txn, msgs []model.Message) error {
	var args []any
	var marks []string
	for _, m := range msgs {
		if m.QuotedMessageID != 0 {
			args = append(args, m.QuotedMessageID)
			marks = append(marks, fmt.Sprintf("$%d", len(args)))
		}
	}
	if len(args) == 0 {
		return nil
	}
	found, err := queryAll(t, scanMessage, `SELECT `+messageColumns+` FROM chat_messages WHERE id IN (`+strings.Join(marks, ", ")+`)`, args...)
	if err != nil {
		return err
	}
	quoted := map[int64]*model.Message{}
	for _, q := range found {
		quoted[q.ID] = quoteOf(q)
	}
	for i := range msgs {
		if q := quoted[msgs[i].QuotedMessageID]; q != nil {
			msgs[i].QuotedMessage = q
		}
	}
	return nil
}

// Flag implements Messages: one report per user and message (a second replaces the first).
func (s *sqlStore) Flag(ctx context.Context, f model.Flag) error {
	if strings.TrimSpace(f.Reason) == "" {
		return model.Errorf(model.ErrValidation, "reason is required")
	}
	return s.write(ctx, "flag message", func(t *txn) error {
		m, err := loadMessage(t, f.MessageID, false)
		if err != nil {
			return err
		}
		if _, err := canSee(t, f.UID, m); err != nil {
			return err
		}
		_, err = t.exec(`INSERT INTO chat_flags (message_id, uid, reason, remark, at_us) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (message_id, uid) DO UPDATE SET reason = excluded.reason, remark = excluded.remark, at_us = excluded.at_us`, f.MessageID, f.UID, f.Reason, f.Remark, us(t.now))
		return err
	})
}

// ListFlags implements Messages (the admin's review list), oldest first.
func (s *sqlStore) ListFlags(ctx context.Context, q MemberQuery) (Page[model.Flag], error) {
	limit, err := limitOf(q.Limit)
	if err != nil {
		return Page[model.Flag]{}, err
	}
	c, err := s.decodeCursor("flags", q.Cursor)
	if err != nil {
		return Page[model.Flag]{}, err
	}
	// Keyset on (at_us, message_id, uid); the cursor holds at_us and "message_id/uid".
	var lastID int64
	lastUID := ""
	if c.Key != "" {
		if _, err := fmt.Sscanf(c.Key, "%d/", &lastID); err != nil {
			return Page[model.Flag]{}, model.Errorf(model.ErrBadCursor, "the cursor was not issued by this server for this listing")
		}
		_, lastUID, _ = strings.Cut(c.Key, "/")
	}
	var items []model.Flag
	err = s.read(ctx, "list flags", func(t *txn) (err error) {
		items, err = queryAll(t, func(sc scanner) (f model.Flag, err error) {
			var at int64
			err = sc.Scan(&f.MessageID, &f.UID, &f.Reason, &f.Remark, &at)
			f.At = fromUS(at)
			return f, err
		}, `SELECT message_id, uid, reason, remark, at_us FROM chat_flags
WHERE at_us > $1 OR (at_us = $1 AND (message_id > $2 OR (message_id = $2 AND uid > $3))) ORDER BY at_us, message_id, uid LIMIT $4`, c.N, lastID, lastUID, limit+1)
		return err
	})
	if err != nil {
		return Page[model.Flag]{}, err
	}
	return pageOf(s, items, limit, func(last model.Flag) cursor {
		return cursor{Of: "flags", N: us(last.At), Key: fmt.Sprintf("%d/%s", last.MessageID, last.UID)}
	}), nil
}
