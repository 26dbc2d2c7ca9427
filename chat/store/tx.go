package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

// querier is what *sql.Tx and *sql.DB share.
type querier interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

// txn is one writing transaction and the events it will append when it commits.
type txn struct {
	tx     querier
	s      *sqlStore
	ctx    context.Context
	now    time.Time
	events []model.Event
}

func (t *txn) exec(q string, args ...any) (sql.Result, error) {
	if err := checkArgs(args); err != nil {
		return nil, err
	}
	return t.tx.ExecContext(t.ctx, t.s.d.rebind(q), args...)
}

func (t *txn) query(q string, args ...any) (*sql.Rows, error) {
	if err := checkArgs(args); err != nil {
		return nil, err
	}
	return t.tx.QueryContext(t.ctx, t.s.d.rebind(q), args...)
}

// execOne runs q and answers none when it changed no row.
func (t *txn) execOne(none error, q string, args ...any) error {
	res, err := t.exec(q, args...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return none
	}
	return nil
}

// queryAll runs q and scans every row with scan, into a slice that is never nil.
func queryAll[T any](t *txn, scan func(scanner) (T, error), q string, args ...any) ([]T, error) {
	rows, err := t.query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// pageOf makes a page of items read with LIMIT limit+1: when there is one more, it is cut and
// Next is the cursor after the last item kept.
func pageOf[T any](s *sqlStore, items []T, limit int, after func(last T) cursor) Page[T] {
	if len(items) <= limit {
		return Page[T]{Items: items}
	}
	return Page[T]{Items: items[:limit], Next: s.encodeCursor(after(items[limit-1]))}
}

// scanner is a single row: *sql.Row, or the error that kept the query from running.
type scanner interface{ Scan(dest ...any) error }

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

func (t *txn) row(q string, args ...any) scanner {
	if err := checkArgs(args); err != nil {
		return errRow{err}
	}
	return t.tx.QueryRowContext(t.ctx, t.s.d.rebind(q), args...)
}

// checkArgs refuses a text argument holding a NUL character: PostgreSQL refuses one in text
// and SQLite would keep it, so both backends answer the same validation error. (The API
// refuses NUL earlier, naming the field; this guards every other writer, e.g. an agent's
// output.)
func checkArgs(args []any) error {
	for _, a := range args {
		if s, ok := a.(string); ok && strings.IndexByte(s, 0) >= 0 {
			return model.Errorf(model.ErrValidation, "text must not contain NUL characters")
		}
	}
	return nil
}

// emit records an event. An event of a conversation takes the conversation's next seq now:
// the UPDATE locks the conversation row until commit, so seq is gap-free and two writers of
// one conversation commit in seq order. Pos is assigned later (see flush). An event with
// only a target (conversation "") has no seq and reaches only that user.
func (t *txn) emit(conversation, typ, target string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	e := model.Event{ConversationID: conversation, Type: typ, TargetUID: target, Data: b, At: t.now}
	if conversation != "" {
		if err := t.row(`UPDATE chat_conversations SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq`, conversation).Scan(&e.Seq); err != nil {
			return err
		}
	}
	t.events = append(t.events, e)
	return nil
}

// flush appends the events as the last step before commit. SQLite, with one writer, assigns
// pos (the rowid) right here, which is commit order. PostgreSQL inserts them without a pos
// (NULL) but with an insertion id, and takes no lock shared by all writers, so commits (and
// their WAL flushes) of different conversations overlap; the sequencer gives them positions
// after commit (see sequencer.go). Within a conversation, the row lock taken by emit orders
// the writers, so ids, and therefore positions, follow seq.
func (t *txn) flush() error {
	for _, e := range t.events {
		if _, err := t.exec(`INSERT INTO chat_events (conversation_id, seq, type, target_uid, data, at_us) VALUES ($1, $2, $3, $4, $5, $6)`,
			e.ConversationID, e.Seq, e.Type, e.TargetUID, string(e.Data), e.At.UnixMicro()); err != nil {
			return err
		}
	}
	return nil
}

// write runs fn in a transaction, appends its events and commits. A *model.Error from fn
// (a rule) rolls back and is returned as is; anything else becomes ErrUnavailable. On
// PostgreSQL a write with events returns once the sequencer has given them positions, so
// the caller (and the local hub it notifies) reads them with EventsAfter.
func (s *sqlStore) write(ctx context.Context, op string, fn func(*txn) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fail(op, err)
	}
	t := &txn{tx: tx, s: s, ctx: ctx, now: time.Now().UTC().Truncate(time.Microsecond)}
	if err := fn(t); err != nil {
		_ = tx.Rollback()
		return fail(op, err)
	}
	if err := t.flush(); err != nil {
		_ = tx.Rollback()
		return fail(op, err)
	}
	if err := tx.Commit(); err != nil {
		return fail(op, err)
	}
	if s.seq != nil && len(t.events) > 0 {
		s.seq.await(ctx)
	}
	return nil
}

// read runs fn with plain queries on the pool, outside a transaction: an SQLite transaction
// is immediate (it takes the write lock), and readers must not queue behind writers.
func (s *sqlStore) read(ctx context.Context, op string, fn func(*txn) error) error {
	t := &txn{tx: s.db, s: s, ctx: ctx, now: time.Now().UTC()}
	if err := fn(t); err != nil {
		return fail(op, err)
	}
	return nil
}

func us(t time.Time) int64 { return t.UnixMicro() }

func fromUS(v int64) time.Time { return time.UnixMicro(v).UTC() }

func optTime(v int64) *time.Time {
	if v == 0 {
		return nil
	}
	t := fromUS(v)
	return &t
}
