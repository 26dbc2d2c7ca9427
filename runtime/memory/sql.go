package memory

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentry-dev/agentry/internal/platform/sqldb"
)

// dialect holds what differs between SQLite and PostgreSQL.
type dialect struct {
	name       string
	migrations []string
	// lock serialises migrations of several processes (PostgreSQL replicas starting at once).
	lock string
	// rebind turns $1-style placeholders into the dialect's own.
	rebind func(string) string
}

var numbered = regexp.MustCompile(`\$(\d+)`)

// schema is the first migration, with the column types that differ left as placeholders.
const schema = `
CREATE TABLE agentry_threads (
  agent_id    TEXT NOT NULL,
  thread_id   TEXT NOT NULL,
  resource_id TEXT NOT NULL DEFAULT '',
  title       TEXT NOT NULL,
  created_us  {{BIGINT}} NOT NULL,
  updated_us  {{BIGINT}} NOT NULL,
  PRIMARY KEY (agent_id, thread_id)
);
CREATE INDEX agentry_threads_by_resource ON agentry_threads (agent_id, resource_id, updated_us);
CREATE TABLE agentry_messages (
  seq          {{SERIAL}},
  agent_id     TEXT NOT NULL,
  thread_id    TEXT NOT NULL,
  message_id   TEXT NOT NULL,
  resource_id  TEXT NOT NULL DEFAULT '',
  role         TEXT NOT NULL,
  content      TEXT NOT NULL,
  tool_calls   TEXT NOT NULL DEFAULT '',
  tool_call_id TEXT NOT NULL DEFAULT '',
  created_us   {{BIGINT}} NOT NULL,
  UNIQUE (agent_id, thread_id, message_id)
);
CREATE INDEX agentry_messages_by_thread ON agentry_messages (agent_id, thread_id, seq);`

func schemaFor(bigint, serial string) string {
	return strings.NewReplacer("{{BIGINT}}", bigint, "{{SERIAL}}", serial).Replace(schema)
}

func tasksFor(bigint string) string { return strings.ReplaceAll(tasksSchema, "{{BIGINT}}", bigint) }

func runsFor(bigint string) string { return strings.ReplaceAll(runsSchema, "{{BIGINT}}", bigint) }

func pendingFor(bigint string) string {
	return strings.ReplaceAll(pendingSchema, "{{BIGINT}}", bigint)
}

var sqliteDialect = dialect{
	name:       "sqlite",
	rebind:     func(q string) string { return numbered.ReplaceAllString(q, "?$1") },
	migrations: []string{schemaFor("INTEGER", "INTEGER PRIMARY KEY AUTOINCREMENT"), pendingFor("INTEGER"), tasksFor("INTEGER"), runsFor("INTEGER")},
}

var postgresDialect = dialect{
	name:       "postgres",
	rebind:     func(q string) string { return q },
	lock:       `SELECT pg_advisory_xact_lock(7425001)`,
	migrations: []string{schemaFor("BIGINT", "BIGSERIAL PRIMARY KEY"), pendingFor("BIGINT"), tasksFor("BIGINT"), runsFor("BIGINT")},
}

// sqlStore implements Store on database/sql for both SQL backends.
type sqlStore struct {
	db *sql.DB
	d  dialect
	// tasksPruned and runsPruned are when this process last deleted expired tasks and runs
	// (Unix µs).
	tasksPruned, runsPruned atomic.Int64
}

func openSQLite(ctx context.Context, path string) (Store, error) {
	db, err := sqldb.OpenSQLite(path, "memory")
	if err != nil {
		return nil, err
	}
	return newSQLStore(ctx, db, sqliteDialect)
}

func openPostgres(ctx context.Context, url string) (Store, error) {
	_, db, err := sqldb.OpenPostgres(ctx, url)
	if err != nil {
		return nil, err
	}
	return newSQLStore(ctx, db, postgresDialect)
}

func newSQLStore(ctx context.Context, db *sql.DB, d dialect) (*sqlStore, error) {
	s := &sqlStore{db: db, d: d}
	if err := s.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

// migrate applies the schema migrations not yet recorded in agentry_schema_migrations.
func (s *sqlStore) migrate(ctx context.Context) error {
	m := sqldb.Migrations{Table: "agentry_schema_migrations", Lock: s.d.lock, Rebind: s.d.rebind, Steps: s.d.migrations}
	if err := m.Apply(ctx, s.db); err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return nil
}

func unavailable(op string, err error) error {
	return fmt.Errorf("%w: failed to %s: %v", ErrUnavailable, op, err)
}

// Kind implements Store.
func (s *sqlStore) Kind() string { return s.d.name }

// Save implements Store. The thread upsert only touches a thread of the same resource, so the
// owner check and the write are one atomic statement; messages already stored are found with
// one query per batch of ids and only the others are inserted, so a client that resends its
// whole history costs a few statements, not one per message.
func (s *sqlStore) Save(ctx context.Context, agentID, threadID, resourceID string, msgs []Message) error {
	now := time.Now().UTC()
	err := sqldb.InTx(ctx, s.db, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.d.rebind(`
INSERT INTO agentry_threads (agent_id, thread_id, resource_id, title, created_us, updated_us) VALUES ($1, $2, $3, $4, $5, $5)
ON CONFLICT (agent_id, thread_id) DO UPDATE SET updated_us = excluded.updated_us
WHERE agentry_threads.resource_id = excluded.resource_id`),
			agentID, threadID, resourceID, titleOf(msgs), now.UnixMicro())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrThreadOwnedByOther
		}
		fresh, err := s.unstored(ctx, tx, agentID, threadID, msgs)
		if err != nil {
			return err
		}
		return s.insert(ctx, tx, agentID, threadID, resourceID, now, fresh)
	})
	switch {
	case errors.Is(err, ErrThreadOwnedByOther):
		return fmt.Errorf("failed to save messages to thread %q: %w", threadID, err)
	case err != nil:
		return unavailable("save messages", err)
	}
	return nil
}

// Batch sizes keep statements far below the parameter limits (SQLite 32766, PostgreSQL 65535).
const (
	lookupBatch = 500
	insertBatch = 100
)

// unstored returns msgs without the ones the thread already holds (and without repeats).
func (s *sqlStore) unstored(ctx context.Context, tx *sql.Tx, agentID, threadID string, msgs []Message) ([]Message, error) {
	seen := make(map[string]bool, len(msgs))
	unique := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		if !seen[m.ID] {
			seen[m.ID] = true
			unique = append(unique, m)
		}
	}
	stored := map[string]bool{}
	for from := 0; from < len(unique); from += lookupBatch {
		batch := unique[from:min(from+lookupBatch, len(unique))]
		args := []any{agentID, threadID}
		marks := make([]string, len(batch))
		for i, m := range batch {
			args = append(args, m.ID)
			marks[i] = fmt.Sprintf("$%d", i+3)
		}
		rows, err := tx.QueryContext(ctx, s.d.rebind(`SELECT message_id FROM agentry_messages WHERE agent_id = $1 AND thread_id = $2 AND message_id IN (`+strings.Join(marks, ", ")+`)`), args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				_ = rows.Close()
				return nil, err
			}
			stored[id] = true
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	out := unique[:0]
	for _, m := range unique {
		if !stored[m.ID] {
			out = append(out, m)
		}
	}
	return out, nil
}

// insert stores msgs with multi-row INSERTs. ON CONFLICT still guards against another
// replica storing the same message between the lookup and the insert.
func (s *sqlStore) insert(ctx context.Context, tx *sql.Tx, agentID, threadID, resourceID string, now time.Time, msgs []Message) error {
	for from := 0; from < len(msgs); from += insertBatch {
		batch := msgs[from:min(from+insertBatch, len(msgs))]
		args := []any{agentID, threadID, resourceID}
		rows := make([]string, len(batch))
		for i, m := range batch {
			calls := ""
			if len(m.ToolCalls) > 0 {
				b, _ := json.Marshal(m.ToolCalls)
				calls = string(b)
			}
			created := m.CreatedAt
			if created.IsZero() {
				created = now
			}
			n := len(args)
			rows[i] = fmt.Sprintf("($1, $2, $%d, $3, $%d, $%d, $%d, $%d, $%d)", n+1, n+2, n+3, n+4, n+5, n+6)
			args = append(args, m.ID, m.Role, m.Content, calls, m.ToolCallID, created.UnixMicro())
		}
		if _, err := tx.ExecContext(ctx, s.d.rebind(`
INSERT INTO agentry_messages (agent_id, thread_id, message_id, resource_id, role, content, tool_calls, tool_call_id, created_us)
VALUES `+strings.Join(rows, ", ")+`
ON CONFLICT (agent_id, thread_id, message_id) DO NOTHING`), args...); err != nil {
			return err
		}
	}
	return nil
}

const messageColumns = `message_id, thread_id, resource_id, role, content, tool_calls, tool_call_id, created_us`

// ownMessages selects the messages of a thread that are the resource's. Messages another
// resource wrote into the thread before threads had owners stay stored but are never read.
const ownMessages = `FROM agentry_messages WHERE agent_id = $1 AND thread_id = $2 AND resource_id = $3`

func (s *sqlStore) query(ctx context.Context, q string, args ...any) ([]Message, error) {
	rows, err := s.db.QueryContext(ctx, s.d.rebind(q), args...)
	if err != nil {
		return nil, unavailable("read messages", err)
	}
	defer rows.Close()
	out := []Message{}
	for rows.Next() {
		var m Message
		var calls string
		var created int64
		if err := rows.Scan(&m.ID, &m.ThreadID, &m.ResourceID, &m.Role, &m.Content, &calls, &m.ToolCallID, &created); err != nil {
			return nil, unavailable("read messages", err)
		}
		if calls != "" {
			_ = json.Unmarshal([]byte(calls), &m.ToolCalls)
		}
		m.CreatedAt = time.UnixMicro(created).UTC()
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, unavailable("read messages", err)
	}
	return out, nil
}

// owner returns the resource a thread belongs to; ErrThreadNotFound when there is no thread.
func (s *sqlStore) owner(ctx context.Context, agentID, threadID string) (string, error) {
	var resource string
	err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT resource_id FROM agentry_threads WHERE agent_id = $1 AND thread_id = $2`), agentID, threadID).Scan(&resource)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", ErrThreadNotFound
	case err != nil:
		return "", unavailable("read thread", err)
	}
	return resource, nil
}

// checkOwner answers ErrThreadNotFound or ErrThreadOwnedByOther for a thread the resource
// cannot read.
func (s *sqlStore) checkOwner(ctx context.Context, agentID, threadID, resourceID string) error {
	owner, err := s.owner(ctx, agentID, threadID)
	if err != nil {
		return err
	}
	if owner != resourceID {
		return fmt.Errorf("failed to read thread %q: %w", threadID, ErrThreadOwnedByOther)
	}
	return nil
}

// Recall implements Store. The owner check is part of the read, so the common case (a thread
// with messages) is one query; only an empty answer needs a second to tell why.
func (s *sqlStore) Recall(ctx context.Context, agentID, threadID, resourceID string, n int) ([]Message, error) {
	if n <= 0 {
		return nil, nil
	}
	msgs, err := s.query(ctx, `SELECT `+messageColumns+` `+ownMessages+`
AND EXISTS (SELECT 1 FROM agentry_threads WHERE agent_id = $1 AND thread_id = $2 AND resource_id = $3)
ORDER BY seq DESC LIMIT $4`, agentID, threadID, resourceID, n)
	if err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		if err := s.checkOwner(ctx, agentID, threadID, resourceID); err != nil && !errors.Is(err, ErrThreadNotFound) {
			return nil, err
		}
		return nil, nil
	}
	for i, j := 0, len(msgs)-1; i < j; i, j = i+1, j-1 {
		msgs[i], msgs[j] = msgs[j], msgs[i]
	}
	return msgs, nil
}

// Messages implements Store. A thread's owner never changes, so checking it before reading
// is as good as checking it in the same statement.
func (s *sqlStore) Messages(ctx context.Context, agentID, threadID, resourceID string, p Page) (MessagePage, error) {
	if err := s.checkOwner(ctx, agentID, threadID, resourceID); err != nil {
		return MessagePage{}, err
	}
	p = p.normalized()
	var total int
	if err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT COUNT(*) `+ownMessages), agentID, threadID, resourceID).Scan(&total); err != nil {
		return MessagePage{}, unavailable("count messages", err)
	}
	msgs, err := s.query(ctx, `SELECT `+messageColumns+` `+ownMessages+` ORDER BY seq LIMIT $4 OFFSET $5`, agentID, threadID, resourceID, p.Size, p.offset())
	if err != nil {
		return MessagePage{}, err
	}
	return MessagePage{Messages: msgs, Total: total, HasMore: p.offset()+len(msgs) < total}, nil
}

// Threads implements Store.
func (s *sqlStore) Threads(ctx context.Context, agentID, resourceID string, p Page) (ThreadPage, error) {
	p = p.normalized()
	var total int
	if err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT COUNT(*) FROM agentry_threads WHERE agent_id = $1 AND resource_id = $2`), agentID, resourceID).Scan(&total); err != nil {
		return ThreadPage{}, unavailable("count threads", err)
	}
	rows, err := s.db.QueryContext(ctx, s.d.rebind(`SELECT thread_id, resource_id, title, created_us, updated_us FROM agentry_threads
WHERE agent_id = $1 AND resource_id = $2 ORDER BY updated_us DESC, thread_id LIMIT $3 OFFSET $4`), agentID, resourceID, p.Size, p.offset())
	if err != nil {
		return ThreadPage{}, unavailable("list threads", err)
	}
	defer rows.Close()
	out := []Thread{}
	for rows.Next() {
		t := Thread{AgentID: agentID}
		var created, updated int64
		if err := rows.Scan(&t.ID, &t.ResourceID, &t.Title, &created, &updated); err != nil {
			return ThreadPage{}, unavailable("list threads", err)
		}
		t.CreatedAt, t.UpdatedAt = time.UnixMicro(created).UTC(), time.UnixMicro(updated).UTC()
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return ThreadPage{}, unavailable("list threads", err)
	}
	return ThreadPage{Threads: out, Total: total, HasMore: p.offset()+len(out) < total}, nil
}

// Ping implements Store.
func (s *sqlStore) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return unavailable("reach the database", err)
	}
	return nil
}

// Close implements Store.
func (s *sqlStore) Close() error { return s.db.Close() }
