package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite" // the pure-Go SQLite driver ("sqlite")

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/platform/sqldb"
)

// Open opens the store a URL names: file:PATH (SQLite) or postgres://… (PostgreSQL), and
// applies the migrations it has not seen yet.
func Open(ctx context.Context, url string) (Store, error) {
	return OpenWith(ctx, url, Options{})
}

// Options configure a store beyond its URL.
type Options struct {
	// HeadersKey is the 32-byte AES-256 key agent headers are encrypted with. Without it,
	// agents can be configured but not given headers.
	HeadersKey []byte
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, url string, opts Options) (Store, error) {
	if opts.HeadersKey != nil && len(opts.HeadersKey) != 32 {
		return nil, fmt.Errorf("the chat headers key must be 32 bytes (AES-256), got %d", len(opts.HeadersKey))
	}
	switch {
	case strings.HasPrefix(url, "file:"):
		return openSQLite(ctx, strings.TrimPrefix(url, "file:"), opts)
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		return openPostgres(ctx, url, opts)
	default:
		return nil, fmt.Errorf("unsupported chat store URL %q: use file:PATH or postgres://", Redact(url))
	}
}

// Redact hides the password of a URL, for logs and errors.
func Redact(url string) string { return sqldb.Redact(url) }

// sqlStore implements Store on database/sql for both SQL backends.
type sqlStore struct {
	db        *sql.DB
	d         dialect
	cursorKey []byte
	headers   *sealer // nil without a headers key
	wake      chan struct{}
	bcast     chan []byte // PostgreSQL only: ephemeral frames of other replicas
	listener  *listener   // PostgreSQL only
	seq       *sequencer  // PostgreSQL only
}

func openSQLite(ctx context.Context, path string, opts Options) (Store, error) {
	db, err := sqldb.OpenSQLite(path, "chat")
	if err != nil {
		return nil, err
	}
	// SQLite has one process, so no other replica ever commits: the channel never fires.
	return newSQLStore(ctx, db, sqliteDialect, make(chan struct{}), opts)
}

func openPostgres(ctx context.Context, url string, opts Options) (Store, error) {
	pool, db, err := sqldb.OpenPostgres(ctx, url)
	if err != nil {
		return nil, err
	}
	wake := make(chan struct{}, 1)
	s, err := newSQLStore(ctx, db, postgresDialect, wake, opts)
	if err != nil {
		pool.Close()
		return nil, err
	}
	s.bcast = make(chan []byte, 1024)
	s.listener = startListener(pool.Config().ConnConfig.Copy(), wake, s.bcast)
	s.seq = startSequencer(db, wake, sequencerPoll)
	return &pgStore{sqlStore: s, pool: pool}, nil
}

// pgStore also owns the pgx pool under database/sql, which db.Close does not close.
type pgStore struct {
	*sqlStore
	pool *pgxpool.Pool
}

func (s *pgStore) Close() error {
	err := s.sqlStore.Close()
	s.pool.Close()
	return err
}

func newSQLStore(ctx context.Context, db *sql.DB, d dialect, wake chan struct{}, opts Options) (*sqlStore, error) {
	s := &sqlStore{db: db, d: d, wake: wake}
	if opts.HeadersKey != nil {
		sl, err := newSealer(opts.HeadersKey)
		if err != nil {
			_ = db.Close()
			return nil, err
		}
		s.headers = sl
	}
	if err := s.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

// Kind implements Store.
func (s *sqlStore) Kind() string { return s.d.name }

// Ping implements Store.
func (s *sqlStore) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return unavailable("reach the chat database", err)
	}
	return nil
}

// Close implements Store.
func (s *sqlStore) Close() error {
	if s.seq != nil {
		s.seq.stop()
	}
	if s.listener != nil {
		s.listener.stop()
	}
	return s.db.Close()
}

// Wake implements Events.
func (s *sqlStore) Wake() <-chan struct{} { return s.wake }

// unavailable is the error of a database failure: the catalogue code for clients, the cause
// (SQL, host) only in the error chain for logs.
func unavailable(op string, err error) error {
	return fmt.Errorf("failed to %s: %w: %w", op, model.Errorf(model.ErrUnavailable, "the chat store is unavailable; retry later"), err)
}

// fail passes a rule's *model.Error through and turns anything else into ErrUnavailable.
func fail(op string, err error) error {
	var me *model.Error
	if errors.As(err, &me) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("failed to %s: %w: %w", op, model.Errorf(model.ErrUnavailable, "the request was cancelled"), err)
	}
	return unavailable(op, err)
}

// Broadcast implements Events.
func (s *sqlStore) Broadcast(ctx context.Context, payload []byte) error {
	if s.bcast == nil {
		return nil
	}
	if len(payload) > MaxBroadcast {
		return fmt.Errorf("failed to broadcast %d bytes: at most %d fit a notification", len(payload), MaxBroadcast)
	}
	if _, err := s.db.ExecContext(ctx, `SELECT pg_notify($1, $2)`, broadcastChannel, string(payload)); err != nil {
		return unavailable("broadcast", err)
	}
	return nil
}

// BroadcastsDropped implements Events.
func (s *sqlStore) BroadcastsDropped() uint64 {
	if s.listener == nil {
		return 0
	}
	return s.listener.dropped.Load()
}

// Broadcasts implements Events.
func (s *sqlStore) Broadcasts() <-chan []byte {
	if s.bcast == nil {
		return nil
	}
	return s.bcast
}
