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

// RunEvent is one event of a run's stream as the store keeps it: its sequence number (from 1)
// and its JSON (opaque here).
type RunEvent struct {
	Seq  int
	Data json.RawMessage
}

// RunState is what the store knows of a run besides its events.
type RunState struct {
	// Ended: the run finished (its last event is stored).
	Ended bool
	// CancelRequested: a caller asked another replica to end the run.
	CancelRequested bool
	// UpdatedAt is when the replica running it last wrote (events, or a heartbeat).
	UpdatedAt time.Time
}

// ErrRunNotFound means the store holds no run of that id for the caller.
var ErrRunNotFound = errors.New("no run with that id")

// RunKeep is how long a run's events are kept after its last write.
const RunKeep = 10 * time.Minute

// Runs stores the events of runs that outlive their requests, so a client may re-attach to a
// run through any replica sharing the store. A run belongs to the resource that started it.
type Runs interface {
	// SaveRunEvents stores events of resource's run (their Seq continue the stored ones), keeps
	// at most maxEvents of them (the oldest go), marks the run ended when ended, and touches it
	// (a heartbeat when events is empty). It returns the run's state after the write.
	SaveRunEvents(ctx context.Context, agentID, runID, resource string, events []RunEvent, ended bool, maxEvents int) (RunState, error)
	// RunEvents reads up to limit events after seq after, and the run's state. ErrRunNotFound
	// for a run the store does not hold for resource.
	RunEvents(ctx context.Context, agentID, runID, resource string, after, limit int) ([]RunEvent, RunState, error)
	// CancelRun asks the replica running resource's run to end it; ErrRunNotFound when no such
	// run is going on.
	CancelRun(ctx context.Context, agentID, runID, resource string) error
}

const runsSchema = `
CREATE TABLE agentry_runs (
  agent_id    TEXT NOT NULL,
  run_id      TEXT NOT NULL,
  resource_id TEXT NOT NULL DEFAULT '',
  ended       INTEGER NOT NULL DEFAULT 0,
  cancel      INTEGER NOT NULL DEFAULT 0,
  updated_us  {{BIGINT}} NOT NULL,
  PRIMARY KEY (agent_id, run_id)
);
CREATE INDEX agentry_runs_by_update ON agentry_runs (updated_us);
CREATE TABLE agentry_run_events (
  agent_id TEXT NOT NULL,
  run_id   TEXT NOT NULL,
  seq      INTEGER NOT NULL,
  data     TEXT NOT NULL,
  PRIMARY KEY (agent_id, run_id, seq)
);`

func (s *sqlStore) SaveRunEvents(ctx context.Context, agentID, runID, resource string, events []RunEvent, ended bool, maxEvents int) (RunState, error) {
	now := time.Now()
	if err := s.pruneRuns(ctx, now); err != nil {
		return RunState{}, unavailable("delete expired runs", err)
	}
	var st RunState
	err := sqldb.InTx(ctx, s.db, func(tx *sql.Tx) error {
		// A run of the same id by another resource is left alone: none affected.
		res, err := tx.ExecContext(ctx, s.d.rebind(`
INSERT INTO agentry_runs (agent_id, run_id, resource_id, ended, updated_us) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (agent_id, run_id) DO UPDATE SET ended = CASE WHEN excluded.ended = 1 THEN 1 ELSE agentry_runs.ended END, updated_us = excluded.updated_us
WHERE agentry_runs.resource_id = excluded.resource_id`), agentID, runID, resource, boolInt(ended), now.UnixMicro())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return ErrRunNotFound
		}
		for _, ev := range events {
			if _, err := tx.ExecContext(ctx, s.d.rebind(`INSERT INTO agentry_run_events (agent_id, run_id, seq, data) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`),
				agentID, runID, ev.Seq, string(ev.Data)); err != nil {
				return err
			}
		}
		if n := len(events); n > 0 && maxEvents > 0 {
			if _, err := tx.ExecContext(ctx, s.d.rebind(`DELETE FROM agentry_run_events WHERE agent_id = $1 AND run_id = $2 AND seq <= $3`),
				agentID, runID, events[n-1].Seq-maxEvents); err != nil {
				return err
			}
		}
		var endedN, cancelN int
		if err := tx.QueryRowContext(ctx, s.d.rebind(`SELECT ended, cancel FROM agentry_runs WHERE agent_id = $1 AND run_id = $2`), agentID, runID).Scan(&endedN, &cancelN); err != nil {
			return err
		}
		st = RunState{Ended: endedN != 0, CancelRequested: cancelN != 0, UpdatedAt: time.UnixMicro(now.UnixMicro())}
		return nil
	})
	switch {
	case errors.Is(err, ErrRunNotFound):
		return RunState{}, err
	case err != nil:
		return RunState{}, unavailable(fmt.Sprintf("save events of run %q", runID), err)
	}
	return st, nil
}

func (s *sqlStore) RunEvents(ctx context.Context, agentID, runID, resource string, after, limit int) ([]RunEvent, RunState, error) {
	var owner string
	var endedN, cancelN int
	var updated int64
	err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT resource_id, ended, cancel, updated_us FROM agentry_runs WHERE agent_id = $1 AND run_id = $2 AND updated_us >= $3`),
		agentID, runID, time.Now().Add(-RunKeep).UnixMicro()).Scan(&owner, &endedN, &cancelN, &updated)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, RunState{}, ErrRunNotFound
	case err != nil:
		return nil, RunState{}, unavailable(fmt.Sprintf("read run %q", runID), err)
	case owner != resource:
		return nil, RunState{}, ErrRunNotFound
	}
	st := RunState{Ended: endedN != 0, CancelRequested: cancelN != 0, UpdatedAt: time.UnixMicro(updated)}
	rows, err := s.db.QueryContext(ctx, s.d.rebind(`SELECT seq, data FROM agentry_run_events WHERE agent_id = $1 AND run_id = $2 AND seq > $3 ORDER BY seq LIMIT $4`),
		agentID, runID, after, limit)
	if err != nil {
		return nil, RunState{}, unavailable(fmt.Sprintf("read events of run %q", runID), err)
	}
	defer rows.Close()
	var out []RunEvent
	for rows.Next() {
		var ev RunEvent
		var data string
		if err := rows.Scan(&ev.Seq, &data); err != nil {
			return nil, RunState{}, unavailable(fmt.Sprintf("read events of run %q", runID), err)
		}
		ev.Data = json.RawMessage(data)
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, RunState{}, unavailable(fmt.Sprintf("read events of run %q", runID), err)
	}
	return out, st, nil
}

func (s *sqlStore) CancelRun(ctx context.Context, agentID, runID, resource string) error {
	res, err := s.db.ExecContext(ctx, s.d.rebind(`UPDATE agentry_runs SET cancel = 1 WHERE agent_id = $1 AND run_id = $2 AND resource_id = $3 AND ended = 0`),
		agentID, runID, resource)
	if err != nil {
		return unavailable(fmt.Sprintf("cancel run %q", runID), err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return ErrRunNotFound
	}
	return nil
}

// pruneRuns deletes runs (and their events) past RunKeep when this process has not done so for
// taskPruneEvery.
func (s *sqlStore) pruneRuns(ctx context.Context, now time.Time) error {
	if !pruneDue(&s.runsPruned, now) {
		return nil
	}
	return sqldb.InTx(ctx, s.db, func(tx *sql.Tx) error {
		cutoff := now.Add(-RunKeep).UnixMicro()
		if _, err := tx.ExecContext(ctx, s.d.rebind(`DELETE FROM agentry_run_events WHERE (agent_id, run_id) IN (SELECT agent_id, run_id FROM agentry_runs WHERE updated_us < $1)`), cutoff); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.d.rebind(`DELETE FROM agentry_runs WHERE updated_us < $1`), cutoff)
		return err
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// memRun is a run as the in-process backend keeps it.
type memRun struct {
	resource string
	state    RunState
	events   []RunEvent
}

func (s *InMemory) SaveRunEvents(_ context.Context, agentID, runID, resource string, events []RunEvent, ended bool, maxEvents int) (RunState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.runs == nil {
		s.runs = map[string]*memRun{}
	}
	for k, r := range s.runs {
		if now.Sub(r.state.UpdatedAt) >= RunKeep {
			delete(s.runs, k)
		}
	}
	key := agentID + "\x00" + runID
	r, ok := s.runs[key]
	if !ok {
		r = &memRun{resource: resource}
		s.runs[key] = r
	}
	if r.resource != resource {
		return RunState{}, ErrRunNotFound
	}
	for _, ev := range events {
		if n := len(r.events); n == 0 || ev.Seq > r.events[n-1].Seq {
			r.events = append(r.events, RunEvent{Seq: ev.Seq, Data: append(json.RawMessage(nil), ev.Data...)})
		}
	}
	if maxEvents > 0 && len(r.events) > maxEvents {
		r.events = append([]RunEvent(nil), r.events[len(r.events)-maxEvents:]...)
	}
	r.state.Ended = r.state.Ended || ended
	r.state.UpdatedAt = now
	return r.state, nil
}

func (s *InMemory) RunEvents(_ context.Context, agentID, runID, resource string, after, limit int) ([]RunEvent, RunState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.runs[agentID+"\x00"+runID]
	if !ok || r.resource != resource || time.Since(r.state.UpdatedAt) >= RunKeep {
		return nil, RunState{}, ErrRunNotFound
	}
	var out []RunEvent
	for _, ev := range r.events {
		if ev.Seq > after && len(out) < limit {
			out = append(out, RunEvent{Seq: ev.Seq, Data: append(json.RawMessage(nil), ev.Data...)})
		}
	}
	return out, r.state, nil
}

func (s *InMemory) CancelRun(_ context.Context, agentID, runID, resource string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.runs[agentID+"\x00"+runID]
	if !ok || r.resource != resource || r.state.Ended {
		return ErrRunNotFound
	}
	r.state.CancelRequested = true
	return nil
}
