package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

// Event delivery. An event with a ConversationID goes to the conversation's current members
// (Members); an event with a TargetUID also (or, without a conversation, only) goes to that
// user — the kicked, banned or leaving user, the sender of a message under moderation, the
// former members of a deleted group.

// Event page sizes.
const (
	defaultEventLimit = 100
	maxEventLimit     = 1000
)

func eventLimit(n int) int {
	if n <= 0 {
		return defaultEventLimit
	}
	return min(n, maxEventLimit)
}

const eventColumns = `pos, conversation_id, seq, type, target_uid, data, at_us`

func (s *sqlStore) events(ctx context.Context, q string, args ...any) ([]model.Event, error) {
	var out []model.Event
	err := s.read(ctx, "read events", func(t *txn) (err error) {
		out, err = queryAll(t, func(sc scanner) (e model.Event, err error) {
			var data string
			var at int64
			err = sc.Scan(&e.Pos, &e.ConversationID, &e.Seq, &e.Type, &e.TargetUID, &data, &at)
			e.Data, e.At = []byte(data), fromUS(at)
			return e, err
		}, q, args...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EventsSince implements Events. Membership is today's: a user who left a group does not
// replay its older events, and a user who joined replays none from before joining only
// because clients resume from a pos at most as old as their session.
func (s *sqlStore) EventsSince(ctx context.Context, uid string, pos int64, limit int) ([]model.Event, error) {
	return s.events(ctx, `SELECT `+eventColumns+` FROM chat_events WHERE pos > $2 AND (target_uid = $1
 OR conversation_id IN (SELECT 'group_' || guid FROM chat_members WHERE uid = $1)
 OR conversation_id IN (SELECT id FROM chat_conversations WHERE type = 'user' AND (party_a = $1 OR party_b = $1)))
ORDER BY pos LIMIT $3`, uid, pos, eventLimit(limit))
}

// EventsAfter implements Events. Readers see only sequenced events: "pos > $1" is false for
// an event the sequencer has not reached yet (pos NULL).
func (s *sqlStore) EventsAfter(ctx context.Context, pos int64, limit int) ([]model.Event, error) {
	return s.events(ctx, `SELECT `+eventColumns+` FROM chat_events WHERE pos > $1 ORDER BY pos LIMIT $2`, pos, eventLimit(limit))
}

// Horizon implements Events: the smallest and largest pos kept (0, 0 for an empty log). A
// resume from p replays everything when p >= oldest-1.
func (s *sqlStore) Horizon(ctx context.Context) (oldest, newest int64, err error) {
	err = s.read(ctx, "read the event horizon", func(t *txn) error {
		return t.row(`SELECT COALESCE(MIN(pos), 0), COALESCE(MAX(pos), 0) FROM chat_events`).Scan(&oldest, &newest)
	})
	return oldest, newest, err
}

// pruneBatch is how many events one pruning transaction deletes at most: short
// transactions, so writers never wait long behind one.
var pruneBatch = 1000

// PruneEvents implements Events. It deletes only an unbroken run from the oldest pos: a gap
// would not move Horizon's oldest (MIN(pos)), so a client resuming from before it would get
// neither a reset nor the deleted events. Times are not in pos order (at_us is when the write
// began on its replica's clock, pos is assigned after commit), so each batch of the oldest
// pruneBatch events is cut at its first event not older than before; an old event behind a
// newer one waits for the next pass. A pass reads only through the pos index, never the whole
// log. Unsequenced events (PostgreSQL: pos not yet set) are never touched, nor is the newest
// event: Horizon's newest is where a fresh socket starts, and must not fall back to 0.
func (s *sqlStore) PruneEvents(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := s.write(ctx, "prune events", func(t *txn) error {
			res, err := t.exec(`DELETE FROM chat_events WHERE pos IN (SELECT pos FROM chat_events WHERE pos IS NOT NULL ORDER BY pos LIMIT $1)
AND pos < COALESCE(
  (SELECT MIN(b.pos) FROM (SELECT pos, at_us FROM chat_events WHERE pos IS NOT NULL ORDER BY pos LIMIT $1) b WHERE b.at_us >= $2),
  (SELECT MAX(pos) FROM chat_events))`, pruneBatch, us(before))
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		total += n
		if err != nil || n < int64(pruneBatch) {
			return total, err
		}
	}
}

// Members implements Events: a group's members, or the two users of a one-to-one
// conversation; none for an unknown conversation.
func (s *sqlStore) Members(ctx context.Context, conversationID string) ([]string, error) {
	var out []string
	err := s.read(ctx, "read conversation members", func(t *txn) (err error) {
		out, err = s.membersIn(t, conversationID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// membersIn lists the conversation's members inside t: a group's, or a one-to-one's two parties.
func (s *sqlStore) membersIn(t *txn, conversationID string) ([]string, error) {
	out := []string{}
	if guid, ok := model.GroupOf(conversationID); ok {
		uids, err := memberUIDs(t, guid)
		return append(out, uids...), err
	}
	var a, b string
	err := t.row(`SELECT party_a, party_b FROM chat_conversations WHERE id = $1 AND type = 'user'`, conversationID).Scan(&a, &b)
	if errors.Is(err, sql.ErrNoRows) {
		return out, nil
	}
	return append(out, a, b), err
}
