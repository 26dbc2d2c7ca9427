// Package sqldb holds what the SQL stores (conversation memory, chat) share: opening SQLite
// and PostgreSQL the same way, versioned migrations, and hiding passwords in URLs.
package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // the pure-Go SQLite driver
)

// Redact hides the password of a URL, for logs and errors.
func Redact(url string) string {
	scheme, rest, ok := strings.Cut(url, "://")
	if !ok {
		return url
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return url
	}
	if user, _, hasPass := strings.Cut(rest[:at], ":"); hasPass {
		return scheme + "://" + user + ":***@" + rest[at+1:]
	}
	return url
}

// OpenSQLite opens (creating its directory) the SQLite database at path; what names it in
// errors ("memory", "chat").
func OpenSQLite(path, what string) (*sql.DB, error) {
	if path == "" {
		return nil, fmt.Errorf("file: %s URL needs a path, e.g. file:.agentry/%s.db", what, what)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("failed to create directory %q for the %s database: %w", dir, what, err)
		}
	}
	// WAL lets readers run beside the one writer; synchronous=NORMAL keeps every committed
	// transaction across a crash of the process (not necessarily of the machine); immediate
	// transactions take the write lock up front, so concurrent writers wait (busy_timeout)
	// instead of failing on upgrade, and a rule checked inside a write transaction cannot be
	// invalidated before it commits.
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("failed to open SQLite database %q: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	return db, nil
}

// DefaultPoolSize is the PostgreSQL pool size unless the URL sets pool_max_conns.
const DefaultPoolSize = 16

// OpenPostgres connects a pgx pool (DefaultPoolSize connections unless the URL says otherwise) and a database/sql handle over it.
// Closing the handle does not close the pool: close both.
func OpenPostgres(ctx context.Context, url string) (*pgxpool.Pool, *sql.DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, nil, fmt.Errorf("invalid PostgreSQL URL %q: %w", Redact(url), err)
	}
	// Every write holds a connection through its commit's WAL flush, so throughput is bounded
	// by the pool, not by the CPU count pgx sizes it from; pool_max_conns in the URL wins.
	if !strings.Contains(url, "pool_max_conns") && cfg.MaxConns < DefaultPoolSize {
		cfg.MaxConns = DefaultPoolSize
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to connect to PostgreSQL %q: %w", Redact(url), err)
	}
	return pool, stdlib.OpenDBFromPool(pool), nil
}

// Migrations are a store's schema steps, applied once each in order.
type Migrations struct {
	// Table records the applied versions (one per store, e.g. chat_schema_migrations).
	Table string
	// Lock, when set, is run first in each migration's transaction to serialise processes
	// starting at once (PostgreSQL: pg_advisory_xact_lock).
	Lock string
	// Rebind turns $1-style placeholders into the dialect's own.
	Rebind func(string) string
	Steps  []string
}

// Apply runs the steps not yet recorded, each in a transaction together with its record.
func (m Migrations) Apply(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+m.Table+` (version INTEGER PRIMARY KEY, applied_us BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("failed to prepare migrations in %q: %w", m.Table, err)
	}
	for i, stmt := range m.Steps {
		version := i + 1
		if err := m.apply(ctx, db, version, stmt); err != nil {
			return fmt.Errorf("failed to apply schema migration %d of %q: %w", version, m.Table, err)
		}
	}
	return nil
}

func (m Migrations) apply(ctx context.Context, db *sql.DB, version int, stmt string) error {
	return InTx(ctx, db, func(tx *sql.Tx) error {
		if m.Lock != "" {
			if _, err := tx.ExecContext(ctx, m.Lock); err != nil {
				return err
			}
		}
		var n int
		if err := tx.QueryRowContext(ctx, m.Rebind(`SELECT COUNT(*) FROM `+m.Table+` WHERE version = $1`), version).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, m.Rebind(`INSERT INTO `+m.Table+` (version, applied_us) VALUES ($1, $2)`), version, time.Now().UnixMicro())
		return err
	})
}

// InTx runs fn in a transaction, committed when fn returns nil and rolled back otherwise.
func InTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
