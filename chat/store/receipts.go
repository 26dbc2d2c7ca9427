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

// groupReceipt is the group's "to all" watermarks as sender sees them: how far every other
// current member has got (the same test advance uses for the live to-all events), so a reloaded
// list shows what the live one showed. The times are when the last of them moved: by then all had
// passed any message under the watermark. A group with nobody else in it has no receipt.
func groupReceipt(t *txn, conv, guid, sender string) (receipt, error) {
	var r receipt
	var delivered, deliveredUS, read, readUS sql.NullInt64
	err := t.row(`SELECT MIN(COALESCE(r.delivered_id, 0)), MAX(COALESCE(r.delivered_us, 0)), MIN(COALESCE(r.read_id, 0)), MAX(COALESCE(r.read_us, 0))
FROM chat_members mb LEFT JOIN chat_receipts r ON r.conversation_id = $1 AND r.uid = mb.uid
WHERE mb.guid = $2 AND mb.uid <> $3`, conv, guid, sender).Scan(&delivered, &deliveredUS, &read, &readUS)
	if err != nil || !delivered.Valid {
		return r, err
	}
	return receipt{delivered: delivered.Int64, deliveredUS: deliveredUS.Int64, read: read.Int64, readUS: readUS.Int64}, nil
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
WHERE mb.guid = $2 AND mb.uid <> $3 AND COALESCE(r.%s_id, 0) < $4`, column), m.ConversationID, m.ReceiverID, m.Sender, m.ID).Scan(&behind); err != nil {
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
