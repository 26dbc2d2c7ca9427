package store

// The read side of messages: who may see a message, one message, a conversation's pages and
// search.

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/agentry-dev/agentry/chat/model"
)

// canSee answers ErrMessageNotFound unless viewer may read m: a party of its one-to-one
// conversation or a member of its group, and for a message under moderation its sender or a
// group admin. It returns the viewer's scope in the group ("" for one-to-one).
func canSee(t *txn, viewer string, m model.Message) (model.Scope, error) {
	hidden := model.Errorf(model.ErrMessageNotFound, "no message %d", m.ID)
	var scope model.Scope
	if m.ReceiverType == model.ReceiverGroup {
		var err error
		if scope, err = scopeOf(t, m.ReceiverID, viewer, false); err != nil {
			return "", err
		}
		if scope == "" {
			return "", hidden
		}
	} else if viewer != m.Sender && viewer != m.ReceiverID {
		return "", hidden
	}
	if m.Moderation != model.ModerationApproved && viewer != m.Sender && scope != model.ScopeAdmin {
		return "", hidden
	}
	return scope, nil
}

// GetMessage implements Messages.
func (s *sqlStore) GetMessage(ctx context.Context, viewer string, id int64) (model.Message, error) {
	var m model.Message
	err := s.read(ctx, "read message", func(t *txn) error {
		var err error
		if m, err = loadMessage(t, id, false); err != nil {
			return err
		}
		if _, err := canSee(t, viewer, m); err != nil {
			return err
		}
		msgs := []model.Message{m}
		err = decorate(t, viewer, msgs)
		m = msgs[0]
		return err
	})
	return m, err
}

// ListMessages implements Messages. Answers are in id order (oldest first) whatever the
// direction: Before and the default take the newest before the cursor, After the oldest
// after it, Around half before and half from the id on.
func (s *sqlStore) ListMessages(ctx context.Context, viewer string, q MessageQuery) ([]model.Message, error) {
	limit, err := limitOf(q.Limit)
	if err != nil {
		return nil, err
	}
	switch {
	case (q.UID == "") == (q.GUID == ""):
		return nil, model.Errorf(model.ErrValidation, "exactly one of uid and guid is required")
	case countSet(q.Before, q.After, q.Around) > 1:
		return nil, model.Errorf(model.ErrValidation, "at most one of before, after and around")
	case q.Before < 0 || q.After < 0 || q.Around < 0 || q.ParentID < 0:
		return nil, model.Errorf(model.ErrValidation, "message ids are positive")
	}
	var out []model.Message
	err = s.read(ctx, "list messages", func(t *txn) error {
		conv, admin, err := listedConversation(t, viewer, q)
		if err != nil {
			return err
		}
		f := messageFilter(conv, viewer, admin, q)
		switch {
		case q.After > 0:
			out, err = f.page(t, "id > $%d", "ASC", limit, q.After)
		case q.Around > 0:
			var before, from []model.Message
			if before, err = f.page(t, "id < $%d", "DESC", limit/2, q.Around); err == nil {
				from, err = f.page(t, "id >= $%d", "ASC", limit-len(before), q.Around)
			}
			out = append(before, from...)
		case q.Before > 0:
			out, err = f.page(t, "id < $%d", "DESC", limit, q.Before)
		default:
			out, err = f.page(t, "id > $%d", "DESC", limit, 0)
		}
		if err != nil {
			return err
		}
		return decorate(t, viewer, out)
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []model.Message{}
	}
	return out, nil
}

// listedConversation is the conversation ListMessages reads, once the viewer may read it, and
// 1 when the viewer is the group's admin (who sees messages awaiting moderation).
func listedConversation(t *txn, viewer string, q MessageQuery) (conv string, admin int, err error) {
	if q.GUID == "" {
		if _, err := getUser(t, q.UID); err != nil {
			return "", 0, err
		}
		return model.ConversationID(model.ReceiverUser, viewer, q.UID), 0, nil
	}
	g, err := viewGroup(t, viewer, q.GUID)
	if err != nil {
		return "", 0, err
	}
	if !g.HasJoined {
		return "", 0, model.Errorf(model.ErrNotAMember, "%q is not a member of group %q", viewer, q.GUID)
	}
	if g.Scope == model.ScopeAdmin {
		admin = 1
	}
	return groupConversation(q.GUID), admin, nil
}

// filter is a WHERE clause's conditions and the arguments they number.
type filter struct {
	args  []any
	where []string
}

// add appends cond, whose %d (or %[1]d) is the number v gets.
func (f *filter) add(cond string, v any) {
	f.args = append(f.args, v)
	f.where = append(f.where, fmt.Sprintf(cond, len(f.args)))
}

// messageFilter selects the messages of conv the viewer may see that q asks for.
func messageFilter(conv, viewer string, admin int, q MessageQuery) *filter {
	f := &filter{args: []any{conv, viewer, admin}, where: []string{"conversation_id = $1", "(moderation = 'approved' OR sender = $2 OR $3 = 1)"}}
	if q.UID != "" {
		// Only this pair's messages, even if another pair's uids join to the same id.
		f.add("((sender = $2 AND receiver = $%[1]d) OR (sender = $%[1]d AND receiver = $2))", q.UID)
	}
	if q.ParentID != 0 {
		f.add("parent_id = $%d", q.ParentID)
	} else if q.HideReplies {
		f.where = append(f.where, "parent_id = 0")
	}
	if q.SearchKeyword != "" {
		f.add(`LOWER(text) LIKE $%d ESCAPE '\'`, likePattern(q.SearchKeyword))
		f.where = append(f.where, "deleted_us = 0")
	}
	for _, set := range []struct {
		col  string
		vals []string
	}{{"type", q.Types}, {"category", q.Categories}} {
		if len(set.vals) == 0 {
			continue
		}
		marks := make([]string, len(set.vals))
		for i, v := range set.vals {
			f.args = append(f.args, v)
			marks[i] = fmt.Sprintf("$%d", len(f.args))
		}
		f.where = append(f.where, set.col+" IN ("+strings.Join(marks, ", ")+")")
	}
	return f
}

// page reads up to n of the filter's messages that also meet cond on cursor, in id order
// (oldest first) whatever the direction of order.
func (f *filter) page(t *txn, cond, order string, n int, cursor int64) ([]model.Message, error) {
	a := append(slices.Clone(f.args), cursor, n)
	w := append(slices.Clone(f.where), fmt.Sprintf(cond, len(a)-1))
	got, err := queryAll(t, scanMessage, fmt.Sprintf(`SELECT `+messageColumns+` FROM chat_messages WHERE %s ORDER BY id %s LIMIT $%d`, strings.Join(w, " AND "), order, len(a)), a...)
	if order == "DESC" {
		slices.Reverse(got)
	}
	return got, err
}

// SearchMessages implements Messages.
func (s *sqlStore) SearchMessages(ctx context.Context, viewer string, q SearchQuery) ([]model.Message, error) {
	limit, err := limitOf(q.Limit)
	if err != nil {
		return nil, err
	}
	switch {
	case len([]rune(strings.TrimSpace(q.Keyword))) < 2:
		return nil, model.Errorf(model.ErrValidation, "searchKeyword needs at least 2 characters")
	case q.Before < 0:
		return nil, model.Errorf(model.ErrValidation, "message ids are positive")
	}
	before := q.Before
	before = cmp.Or(before, math.MaxInt64)
	var out []model.Message
	err = s.read(ctx, "search messages", func(t *txn) (err error) {
		// The viewer's one-to-one conversations hold only its own pair's messages; in groups,
		// what is under moderation stays its sender's (admins search the group's list).
		out, err = queryAll(t, scanMessage, `SELECT `+messageColumns+` FROM chat_messages
WHERE id < $3 AND deleted_us = 0 AND category IN ('message', 'agentic', 'custom') AND LOWER(text) LIKE $2 ESCAPE '\'
AND (moderation = 'approved' OR sender = $1)
AND ((receiver_type = 'user' AND (sender = $1 OR receiver = $1))
  OR (receiver_type = 'group' AND receiver IN (SELECT guid FROM chat_members WHERE uid = $1)))
ORDER BY id DESC LIMIT $4`, viewer, likePattern(strings.TrimSpace(q.Keyword)), before, limit)
		if err != nil {
			return err
		}
		return decorate(t, viewer, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func countSet(v ...int64) int {
	n := 0
	for _, x := range v {
		if x != 0 {
			n++
		}
	}
	return n
}
