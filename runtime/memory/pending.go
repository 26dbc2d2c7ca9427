package memory

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentry-dev/agentry/internal/platform/sqldb"
)

// PendingRun is a run stopped for a person's approval: what it needs to continue, stored so any
// replica sharing the store can resume it. State is the agent loop's own (opaque here).
type PendingRun struct {
	ID         string
	ThreadID   string
	ResourceID string
	State      json.RawMessage
	ExpiresAt  time.Time
}

// ErrPendingNotFound means no pending run has that id: never stopped, or already resumed.
var ErrPendingNotFound = errors.New("no pending run with that id")

// pendingKeep is how long a pending run nobody answered is kept after it expired (an answer
// then still gets a decline, not "unknown"); older ones are deleted as new ones are saved.
const pendingKeep = 24 * time.Hour

// Pending stores runs waiting for approval. All methods are safe for concurrent use, across
// processes for the SQL backends.
type Pending interface {
	// SavePending stores a stopped run (replacing one of the same id).
	SavePending(ctx context.Context, agentID string, p PendingRun) error
	// UpdatePending reads the run and lets fn change it, holding it against every other update
	// until fn returns: then p is stored, or deleted when fn says remove. fn's error aborts
	// with nothing changed. ErrPendingNotFound when there is no such run.
	UpdatePending(ctx context.Context, agentID, id string, fn func(p *PendingRun) (remove bool, err error)) error
}

func (s *InMemory) SavePending(_ context.Context, agentID string, p PendingRun) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil {
		s.pending = map[string]PendingRun{}
	}
	cutoff := time.Now().Add(-pendingKeep)
	for k, old := range s.pending {
		if old.ExpiresAt.Before(cutoff) {
			delete(s.pending, k)
		}
	}
	p.State = append(json.RawMessage(nil), p.State...)
	s.pending[agentID+"\x00"+p.ID] = p
	return nil
}

func (s *InMemory) UpdatePending(_ context.Context, agentID, id string, fn func(p *PendingRun) (bool, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := agentID + "\x00" + id
	p, ok := s.pending[key]
	if !ok {
		return ErrPendingNotFound
	}
	p.State = append(json.RawMessage(nil), p.State...)
	remove, err := fn(&p)
	if err != nil {
		return err
	}
	if remove {
		delete(s.pending, key)
	} else {
		s.pending[key] = p
	}
	return nil
}

const pendingSchema = `
CREATE TABLE agentry_pending_runs (
  agent_id    TEXT NOT NULL,
  run_id      TEXT NOT NULL,
  thread_id   TEXT NOT NULL DEFAULT '',
  resource_id TEXT NOT NULL DEFAULT '',
  state       TEXT NOT NULL,
  expires_us  {{BIGINT}} NOT NULL,
  created_us  {{BIGINT}} NOT NULL,
  PRIMARY KEY (agent_id, run_id)
);
CREATE INDEX agentry_pending_runs_by_expiry ON agentry_pending_runs (expires_us);`

func (s *sqlStore) SavePending(ctx context.Context, agentID string, p PendingRun) error {
	now := time.Now()
	err := sqldb.InTx(ctx, s.db, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.d.rebind(`DELETE FROM agentry_pending_runs WHERE expires_us < $1`), now.Add(-pendingKeep).UnixMicro()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.d.rebind(`
INSERT INTO agentry_pending_runs (agent_id, run_id, thread_id, resource_id, state, expires_us, created_us) VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (agent_id, run_id) DO UPDATE SET state = excluded.state, expires_us = excluded.expires_us`),
			agentID, p.ID, p.ThreadID, p.ResourceID, string(p.State), p.ExpiresAt.UnixMicro(), now.UnixMicro())
		return err
	})
	if err != nil {
		return unavailable("save a pending run", err)
	}
	return nil
}

func (s *sqlStore) UpdatePending(ctx context.Context, agentID, id string, fn func(p *PendingRun) (bool, error)) error {
	var fnErr error
	err := sqldb.InTx(ctx, s.db, func(tx *sql.Tx) error {
		// PostgreSQL locks the row for the transaction; SQLite's transactions are immediate
		// (the database's write lock is taken at BEGIN), which serialises them the same way.
		q := `SELECT thread_id, resource_id, state, expires_us FROM agentry_pending_runs WHERE agent_id = $1 AND run_id = $2`
		if s.d.name == "postgres" {
			q += ` FOR UPDATE`
		}
		p := PendingRun{ID: id}
		var state string
		var exp int64
		if err := tx.QueryRowContext(ctx, s.d.rebind(q), agentID, id).Scan(&p.ThreadID, &p.ResourceID, &state, &exp); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				fnErr = ErrPendingNotFound
				return fnErr
			}
			return err
		}
		p.State, p.ExpiresAt = json.RawMessage(state), time.UnixMicro(exp)
		remove, err := fn(&p)
		if err != nil {
			fnErr = err
			return err
		}
		if remove {
			_, err = tx.ExecContext(ctx, s.d.rebind(`DELETE FROM agentry_pending_runs WHERE agent_id = $1 AND run_id = $2`), agentID, id)
		} else {
			_, err = tx.ExecContext(ctx, s.d.rebind(`UPDATE agentry_pending_runs SET state = $3, expires_us = $4 WHERE agent_id = $1 AND run_id = $2`),
				agentID, id, string(p.State), p.ExpiresAt.UnixMicro())
		}
		return err
	})
	switch {
	case fnErr != nil && errors.Is(err, fnErr):
		return fnErr
	case err != nil:
		return unavailable(fmt.Sprintf("update pending run %q", id), err)
	}
	return nil
}
