package memory

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync/atomic"
	"time"
)

// StoredTask is an A2A task as an agent keeps it: the protocol's JSON (opaque here) and the
// resource (the caller) it belongs to.
type StoredTask struct {
	ID         string
	ResourceID string
	State      json.RawMessage
	UpdatedAt  time.Time
}

// ErrTaskNotFound means the agent holds no task of that id for the caller: never made, made by
// another resource, or expired.
var ErrTaskNotFound = errors.New("no task with that id")

// TaskKeep is how long a task is kept after its last change: a client may read a task it
// started (tasks/get) for this long.
const TaskKeep = 24 * time.Hour

// maxInMemoryTasks bounds the in-process backend: a runtime without a shared store serves for
// weeks, and a task is written by callers.
const maxInMemoryTasks = 10_000

// taskPruneEvery: the SQL backends delete expired tasks at most this often per process, not on
// every save (a streamed answer saves its task on every event).
const taskPruneEvery = time.Minute

// Tasks stores an agent's A2A tasks, so any replica sharing the store answers for them. A task
// belongs to the resource that made it, for good.
type Tasks interface {
	// SaveTask stores t (replacing the stored task of its id). A task of another resource is
	// left as it is: ErrTaskNotFound (not theirs to see).
	SaveTask(ctx context.Context, agentID string, t StoredTask) error
	// Task reads the resource's task; ErrTaskNotFound when there is none.
	Task(ctx context.Context, agentID, id, resourceID string) (StoredTask, error)
}

const tasksSchema = `
CREATE TABLE agentry_a2a_tasks (
  agent_id    TEXT NOT NULL,
  task_id     TEXT NOT NULL,
  resource_id TEXT NOT NULL DEFAULT '',
  state       TEXT NOT NULL,
  updated_us  {{BIGINT}} NOT NULL,
  PRIMARY KEY (agent_id, task_id)
);
CREATE INDEX agentry_a2a_tasks_by_update ON agentry_a2a_tasks (updated_us);`

func (s *InMemory) SaveTask(_ context.Context, agentID string, t StoredTask) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tasks == nil {
		s.tasks = map[string]StoredTask{}
	}
	key := agentID + "\x00" + t.ID
	if old, ok := s.tasks[key]; ok && old.ResourceID != t.ResourceID {
		return ErrTaskNotFound
	}
	t.State = append(json.RawMessage(nil), t.State...)
	t.UpdatedAt = time.Now()
	s.tasks[key] = t
	s.pruneTasks(t.UpdatedAt)
	return nil
}

// pruneTasks drops expired tasks (at most every taskPruneEvery) and, beyond maxInMemoryTasks,
// the least recently changed down to nine tenths of it, so a full store does not sort on every
// save. Called with s.mu held.
func (s *InMemory) pruneTasks(now time.Time) {
	if now.Sub(s.tasksPruned) >= taskPruneEvery {
		s.tasksPruned = now
		for k, t := range s.tasks {
			if now.Sub(t.UpdatedAt) >= TaskKeep {
				delete(s.tasks, k)
			}
		}
	}
	if len(s.tasks) <= maxInMemoryTasks {
		return
	}
	keys := make([]string, 0, len(s.tasks))
	for k := range s.tasks {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return s.tasks[keys[i]].UpdatedAt.Before(s.tasks[keys[j]].UpdatedAt) })
	for _, k := range keys[:len(keys)-maxInMemoryTasks*9/10] {
		delete(s.tasks, k)
	}
}

func (s *InMemory) Task(_ context.Context, agentID, id, resourceID string) (StoredTask, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tasks[agentID+"\x00"+id]
	if !ok || t.ResourceID != resourceID || time.Since(t.UpdatedAt) >= TaskKeep {
		return StoredTask{}, ErrTaskNotFound
	}
	t.State = append(json.RawMessage(nil), t.State...)
	return t, nil
}

func (s *sqlStore) SaveTask(ctx context.Context, agentID string, t StoredTask) error {
	now := time.Now()
	if err := s.pruneTasks(ctx, now); err != nil {
		return unavailable("delete expired tasks", err)
	}
	// The update only when the stored task is the same resource's: none affected means another's.
	res, err := s.db.ExecContext(ctx, s.d.rebind(`
INSERT INTO agentry_a2a_tasks (agent_id, task_id, resource_id, state, updated_us) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (agent_id, task_id) DO UPDATE SET state = excluded.state, updated_us = excluded.updated_us
WHERE agentry_a2a_tasks.resource_id = excluded.resource_id`),
		agentID, t.ID, t.ResourceID, string(t.State), now.UnixMicro())
	if err != nil {
		return unavailable(fmt.Sprintf("save task %q", t.ID), err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return ErrTaskNotFound
	}
	return nil
}

// pruneTasks deletes expired tasks when this process has not done so for taskPruneEvery.
func (s *sqlStore) pruneTasks(ctx context.Context, now time.Time) error {
	if !pruneDue(&s.tasksPruned, now) {
		return nil
	}
	_, err := s.db.ExecContext(ctx, s.d.rebind(`DELETE FROM agentry_a2a_tasks WHERE updated_us < $1`), now.Add(-TaskKeep).UnixMicro())
	return err
}

func (s *sqlStore) Task(ctx context.Context, agentID, id, resourceID string) (StoredTask, error) {
	t := StoredTask{ID: id}
	var state string
	var updated int64
	err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT resource_id, state, updated_us FROM agentry_a2a_tasks WHERE agent_id = $1 AND task_id = $2 AND updated_us >= $3`),
		agentID, id, time.Now().Add(-TaskKeep).UnixMicro()).Scan(&t.ResourceID, &state, &updated)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return StoredTask{}, ErrTaskNotFound
	case err != nil:
		return StoredTask{}, unavailable(fmt.Sprintf("read task %q", id), err)
	case t.ResourceID != resourceID:
		return StoredTask{}, ErrTaskNotFound
	}
	t.State, t.UpdatedAt = json.RawMessage(state), time.UnixMicro(updated)
	return t, nil
}

// pruneDue says whether this process should delete expired rows now: at most once every
// taskPruneEvery per kind (last holds the previous time, Unix µs), one caller at a time.
func pruneDue(last *atomic.Int64, now time.Time) bool {
	prev := last.Load()
	return now.UnixMicro()-prev >= taskPruneEvery.Microseconds() && last.CompareAndSwap(prev, now.UnixMicro())
}
