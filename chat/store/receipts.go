package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/agentry-dev/agentry/chat/model"
)

// receipt is a member's watermarks in a conversation: every message id up to delivered
// (read) counts as delivered (read).
type receipt struct {
	delivered, deliveredUS, read, readUS int64
}

func loadReceipt(t *txn, conv, uid string, lock bool) (receipt, error) {
	var r receipt
	q := `SELECT delivered_id, delivered_us, read_id, read_us FROM chat_receipts WHERE conversation_id = $1 AND uid = $2`
	if lock {
		q += t.s.d.forUpdate
	}
	err := t.row(q, conv, uid).Scan(&r.delivered, &r.deliveredUS, &r.read, &r.readUS)
	if errors.Is(err, sql.ErrNoRows) {
		return receipt{}, nil
	}
	return r, err
}

// memberMark is one member's watermarks in a group, and since when they are a member.
type memberMark struct {
	receipt
	joinedUS int64
}

// groupMarks loads the watermarks of the group's current members other than sender, for
// groupReceipt.
func groupMarks(t *txn, conv, guid, sender string) ([]memberMark, error) {
	return queryAll(t, func(sc scanner) (m memberMark, err error) {
		return m, sc.Scan(&m.joinedUS, &m.delivered, &m.deliveredUS, &m.read, &m.readUS)
	}, `SELECT mb.joined_us, COALESCE(r.delivered_id, 0), COALESCE(r.delivered_us, 0), COALESCE(r.read_id, 0), COALESCE(r.read_us, 0)
FROM chat_members mb LEFT JOIN chat_receipts r ON r.conversation_id = $1 AND r.uid = mb.uid
WHERE mb.guid = $2 AND mb.uid <> $3`, conv, guid, sender)
}

// groupReceipt is a group message's "to all" receipt as its sender sees it: delivered (read)
// when every other member who was in the group when it was sent has got that far — the rule
// advance applies to the live to-all events, so a reloaded list shows what the live one did.
// The times are when the last of them moved: by then all had passed the message. A member's
// "mark unread" moves their read watermark back, and with it this receipt.
func groupReceipt(marks []memberMark, m model.Message) receipt {
	sent := us(m.SentAt)
	r := receipt{delivered: m.ID, read: m.ID}
	counted := false
	for _, mk := range marks {
		if mk.joinedUS > sent {
			continue // joined later: the live to-all did not wait for them either
		}
		counted = true
		if mk.delivered < m.ID {
			r.delivered = 0
		}
		if mk.read < m.ID {
			r.read = 0
		}
		r.deliveredUS = max(r.deliveredUS, mk.deliveredUS)
		r.readUS = max(r.readUS, mk.readUS)
	}
	if !counted {
		return receipt{} // nobody else to receive it
	}
	return r
}

// receiptTarget loads the message a receipt is about and checks uid may see it; it also
// creates uid's receipt row so it can be locked.
func receiptTarget(t *txn, uid string, id int64) (model.Message, receipt, error) {
	m, err := loadMessage(t, id, false)
	if err != nil {
		return m, receipt{}, err
	}
	if _, err := canSee(t, uid, m); err != nil {
		return m, receipt{}, err
	}
	if _, err := t.exec(`INSERT INTO chat_receipts (conversation_id, uid) VALUES ($1, $2) ON CONFLICT DO NOTHING`, m.ConversationID, uid); err != nil {
		return m, receipt{}, err
	}
	r, err := loadReceipt(t, m.ConversationID, uid, true)
	return m, r, err
}

// advance moves uid's watermark column ("delivered" or "read") to m.ID when it is behind, with
// its event, and the "to all" event of a group when uid was the last other member to reach m.
func advance(t *txn, uid string, m model.Message, column string, current int64) error {
	if m.ID <= current {
		return nil // watermarks never move back here
	}
	if _, err := t.exec(fmt.Sprintf(`UPDATE chat_receipts SET %[1]s_id = $3, %[1]s_us = $4 WHERE conversation_id = $1 AND uid = $2`, column), m.ConversationID, uid, m.ID, us(t.now)); err != nil {
		return err
	}
	typ, all := model.EventReceiptDelivered, model.EventReceiptDeliveredAll
	if column == "read" {
		typ, all = model.EventReceiptRead, model.EventReceiptReadAll
	}
	rc := model.Receipt{ConversationID: m.ConversationID, UID: uid, MessageID: m.ID, At: t.now}
	if err := t.emit(m.ConversationID, typ, "", rc); err != nil {
		return err
	}
	if m.ReceiverType != model.ReceiverGroup || uid == m.Sender {
		return nil
	}
	var behind int
	if err := t.row(fmt.Sprintf(`SELECT COUNT(*) FROM chat_members mb LEFT JOIN chat_receipts r ON r.conversation_id = $1 AND r.uid = mb.uid
WHERE mb.guid = $2 AND mb.uid <> $3 AND COALESCE(r.%s_id, 0) < $4 AND mb.joined_us <= $5`, column), m.ConversationID, m.ReceiverID, m.Sender, m.ID, us(m.SentAt)).Scan(&behind); err != nil {
		return err
	}
	if behind > 0 {
		return nil
	}
	return t.emit(m.ConversationID, all, "", model.Receipt{ConversationID: m.ConversationID, UID: m.Sender, MessageID: m.ID, At: t.now})
}

// MarkDelivered implements Messages.
func (s *sqlStore) MarkDelivered(ctx context.Context, uid string, id int64) error {
	return s.write(ctx, "mark message delivered", func(t *txn) error {
		m, r, err := receiptTarget(t, uid, id)
		if err != nil {
			return err
		}
		return advance(t, uid, m, "delivered", r.delivered)
	})
}

// MarkRead implements Messages; what is read is delivered too.
func (s *sqlStore) MarkRead(ctx context.Context, uid string, id int64) error {
	return s.write(ctx, "mark message read", func(t *txn) error {
		m, r, err := receiptTarget(t, uid, id)
		if err != nil {
			return err
		}
		if err := advance(t, uid, m, "delivered", r.delivered); err != nil {
			return err
		}
		return advance(t, uid, m, "read", r.read)
	})
}

// MarkUnread implements Messages. Only the user's own sessions hear of it (a targeted
// event): the other members keep what they were told.
func (s *sqlStore) MarkUnread(ctx context.Context, uid string, id int64) error {
	return s.write(ctx, "mark message unread", func(t *txn) error {
		m, r, err := receiptTarget(t, uid, id)
		if err != nil {
			return err
		}
		if r.read < id {
			return nil
		}
		if _, err := t.exec(`UPDATE chat_receipts SET read_id = $3, read_us = $4 WHERE conversation_id = $1 AND uid = $2`, m.ConversationID, uid, id-1, us(t.now)); err != nil {
			return err
		}
		return t.emit("", model.EventReceiptRead, uid, map[string]any{"conversationId": m.ConversationID, "uid": uid, "messageId": id - 1, "at": t.now, "unread": true})
	})
}

// MessageInfo implements Messages: the other members' (or the other user's) receipts of the
// message, in uid order.
func (s *sqlStore) MessageInfo(ctx context.Context, viewer string, id int64) ([]ReceiptInfo, error) {
	out := []ReceiptInfo{}
	err := s.read(ctx, "read message info", func(t *txn) error {
		m, err := loadMessage(t, id, false)
		if err != nil {
			return err
		}
		if _, err := canSee(t, viewer, m); err != nil {
			return err
		}
		var uids []string
		if m.ReceiverType == model.ReceiverGroup {
			if uids, err = memberUIDs(t, m.ReceiverID); err != nil {
				return err
			}
		} else {
			uids = []string{m.Sender, m.ReceiverID}
		}
		for _, uid := range uids {
			if uid == viewer {
				continue
			}
			r, err := loadReceipt(t, m.ConversationID, uid, false)
			if err != nil {
				return err
			}
			info := ReceiptInfo{UID: uid}
			if id <= r.delivered {
				info.DeliveredAt = optTime(r.deliveredUS)
			}
			if id <= r.read {
				info.ReadAt = optTime(r.readUS)
			}
			out = append(out, info)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
