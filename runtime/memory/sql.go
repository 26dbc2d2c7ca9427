package memory

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // the pure-Go SQLite driver ("sqlite")
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

var sqliteDialect = dialect{
	name:       "sqlite",
	rebind:     func(q string) string { return numbered.ReplaceAllString(q, "?$1") },
	migrations: []string{schemaFor("INTEGER", "INTEGER PRIMARY KEY AUTOINCREMENT")},
}

var postgresDialect = dialect{
	name:       "postgres",
	rebind:     func(q string) string { return q },
	lock:       `SELECT pg_advisory_xact_lock(7425001)`,
	migrations: []string{schemaFor("BIGINT", "BIGSERIAL PRIMARY KEY")},
}

// sqlStore implements Store on database/sql for both SQL backends.
type sqlStore struct {
	db *sql.DB
	d  dialect
}

func openSQLite(ctx context.Context, path string) (Store, error) {
	if path == "" {
		return nil, fmt.Errorf("file: memory URL needs a path, e.g. file:.agentry/memory.db")
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("failed to create directory %q for the memory database: %w", dir, err)
		}
	}
	// WAL lets readers run beside the one writer; synchronous=NORMAL keeps every committed
	// transaction across a crash of the process (not necessarily of the machine); immediate
	// transactions take the write lock up front, so concurrent writers wait instead of failing.
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("failed to open SQLite database %q: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	return newSQLStore(ctx, db, sqliteDialect)
}

func openPostgres(ctx context.Context, url string) (Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("invalid PostgreSQL URL %q: %w", Redact(url), err)
	}
	if cfg.MaxConns < 8 {
		cfg.MaxConns = 8
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("failed to connect to PostgreSQL %q: %w", Redact(url), err)
	}
	return newSQLStore(ctx, stdlib.OpenDBFromPool(pool), postgresDialect)
}

func newSQLStore(ctx context.Context, db *sql.DB, d dialect) (*sqlStore, error) {
	s := &sqlStore{db: db, d: d}
	if err := s.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

// migrate applies the migrations not yet recorded in agentry_schema_migrations, each in a
// transaction together with its record.
func (s *sqlStore) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS agentry_schema_migrations (version INTEGER PRIMARY KEY, applied_us BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("%w: failed to prepare migrations: %v", ErrUnavailable, err)
	}
	for i, stmt := range s.d.migrations {
		version := i + 1
		err := s.tx(ctx, func(tx *sql.Tx) error {
			if s.d.lock != "" {
				if _, err := tx.ExecContext(ctx, s.d.lock); err != nil {
					return err
				}
			}
			var n int
			if err := tx.QueryRowContext(ctx, s.d.rebind(`SELECT COUNT(*) FROM agentry_schema_migrations WHERE version = $1`), version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, s.d.rebind(`INSERT INTO agentry_schema_migrations (version, applied_us) VALUES ($1, $2)`), version, time.Now().UnixMicro())
			return err
		})
		if err != nil {
			return fmt.Errorf("failed to apply memory schema migration %d: %w", version, err)
		}
	}
	return nil
}

func (s *sqlStore) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

func unavailable(op string, err error) error {
	return fmt.Errorf("%w: failed to %s: %v", ErrUnavailable, op, err)
}

// Kind implements Store.
func (s *sqlStore) Kind() string { return s.d.name }

// Save implements Store.
func (s *sqlStore) Save(ctx context.Context, agentID, threadID, resourceID string, msgs []Message) error {
	now := time.Now().UTC()
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.d.rebind(`
INSERT INTO agentry_threads (agent_id, thread_id, resource_id, title, created_us, updated_us) VALUES ($1, $2, $3, $4, $5, $5)
ON CONFLICT (agent_id, thread_id) DO UPDATE SET updated_us = excluded.updated_us`),
			agentID, threadID, resourceID, titleOf(msgs), now.UnixMicro()); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, s.d.rebind(`
INSERT INTO agentry_messages (agent_id, thread_id, message_id, resource_id, role, content, tool_calls, tool_call_id, created_us)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (agent_id, thread_id, message_id) DO NOTHING`))
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, m := range msgs {
			calls := ""
			if len(m.ToolCalls) > 0 {
				b, _ := json.Marshal(m.ToolCalls)
				calls = string(b)
			}
			created := m.CreatedAt
			if created.IsZero() {
				created = now
			}
			if _, err := stmt.ExecContext(ctx, agentID, threadID, m.ID, resourceID, m.Role, m.Content, calls, m.ToolCallID, created.UnixMicro()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return unavailable("save messages", err)
	}
	return nil
}

const messageColumns = `message_id, thread_id, resource_id, role, content, tool_calls, tool_call_id, created_us`

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

// Recall implements Store.
func (s *sqlStore) Recall(ctx context.Context, agentID, threadID string, n int) ([]Message, error) {
	if n <= 0 {
		return nil, nil
	}
	msgs, err := s.query(ctx, `SELECT `+messageColumns+` FROM agentry_messages WHERE agent_id = $1 AND thread_id = $2 ORDER BY seq DESC LIMIT $3`, agentID, threadID, n)
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(msgs)-1; i < j; i, j = i+1, j-1 {
		msgs[i], msgs[j] = msgs[j], msgs[i]
	}
	return msgs, nil
}

// Messages implements Store.
func (s *sqlStore) Messages(ctx context.Context, agentID, threadID string) ([]Message, error) {
	return s.query(ctx, `SELECT `+messageColumns+` FROM agentry_messages WHERE agent_id = $1 AND thread_id = $2 ORDER BY seq`, agentID, threadID)
}

// Threads implements Store.
func (s *sqlStore) Threads(ctx context.Context, agentID, resourceID string) ([]Thread, error) {
	q := `SELECT thread_id, resource_id, title, created_us, updated_us FROM agentry_threads WHERE agent_id = $1`
	args := []any{agentID}
	if resourceID != "" {
		q += ` AND resource_id = $2`
		args = append(args, resourceID)
	}
	rows, err := s.db.QueryContext(ctx, s.d.rebind(q+` ORDER BY updated_us DESC`), args...)
	if err != nil {
		return nil, unavailable("list threads", err)
	}
	defer rows.Close()
	out := []Thread{}
	for rows.Next() {
		t := Thread{AgentID: agentID}
		var created, updated int64
		if err := rows.Scan(&t.ID, &t.ResourceID, &t.Title, &created, &updated); err != nil {
			return nil, unavailable("list threads", err)
		}
		t.CreatedAt, t.UpdatedAt = time.UnixMicro(created).UTC(), time.UnixMicro(updated).UTC()
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, unavailable("list threads", err)
	}
	return out, nil
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
