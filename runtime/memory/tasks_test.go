package memory

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// age makes the stored task look last changed d ago, as the backend keeps it.
func age(t *testing.T, s Store, agentID, id string, d time.Duration) {
	t.Helper()
	switch b := s.(type) {
	case *InMemory:
		b.mu.Lock()
		task := b.tasks[agentID+"\x00"+id]
		task.UpdatedAt = task.UpdatedAt.Add(-d)
		b.tasks[agentID+"\x00"+id] = task
		b.mu.Unlock()
	case *sqlStore:
		_, err := b.db.ExecContext(ctx, b.d.rebind(`UPDATE agentry_a2a_tasks SET updated_us = updated_us - $1 WHERE agent_id = $2 AND task_id = $3`), d.Microseconds(), agentID, id)
		testutil.Check(t, err)
	default:
		t.Fatalf("unknown backend %T", s)
	}
}

func TestTasks(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			testutil.Check(t, s.SaveTask(ctx, "a", StoredTask{ID: "t1", ResourceID: "ann", State: []byte(`{"state":"submitted"}`)}))
			testutil.Check(t, s.SaveTask(ctx, "a", StoredTask{ID: "t1", ResourceID: "ann", State: []byte(`{"state":"working"}`)}))
			got, err := s.Task(ctx, "a", "t1", "ann")
			testutil.Check(t, err)
			if string(got.State) != `{"state":"working"}` || got.ResourceID != "ann" || time.Since(got.UpdatedAt) > time.Minute {
				t.Errorf("stored: %s %+v", got.State, got)
			}
			// Another resource neither reads nor replaces it; another agent has no such task.
			if _, err := s.Task(ctx, "a", "t1", "bob"); !errors.Is(err, ErrTaskNotFound) {
				t.Errorf("another resource reads: %v", err)
			}
			if _, err := s.Task(ctx, "a", "t1", ""); !errors.Is(err, ErrTaskNotFound) {
				t.Errorf("no resource reads: %v", err)
			}
			if err := s.SaveTask(ctx, "a", StoredTask{ID: "t1", ResourceID: "bob", State: []byte(`{"state":"canceled"}`)}); !errors.Is(err, ErrTaskNotFound) {
				t.Errorf("another resource replaces: %v", err)
			}
			if _, err := s.Task(ctx, "b", "t1", "ann"); !errors.Is(err, ErrTaskNotFound) {
				t.Errorf("another agent's task: %v", err)
			}
			if got, _ := s.Task(ctx, "a", "t1", "ann"); string(got.State) != `{"state":"working"}` {
				t.Errorf("after the refused writes: %s", got.State)
			}
			// The empty resource is a resource like any other.
			testutil.Check(t, s.SaveTask(ctx, "a", StoredTask{ID: "t2", State: []byte(`{}`)}))
			if _, err := s.Task(ctx, "a", "t2", ""); err != nil {
				t.Errorf("the anonymous task: %v", err)
			}
			if _, err := s.Task(ctx, "a", "t2", "ann"); !errors.Is(err, ErrTaskNotFound) {
				t.Errorf("a resource reads the anonymous task: %v", err)
			}
			// A task past TaskKeep is gone.
			age(t, s, "a", "t1", TaskKeep+time.Second)
			if _, err := s.Task(ctx, "a", "t1", "ann"); !errors.Is(err, ErrTaskNotFound) {
				t.Errorf("an expired task: %v", err)
			}
		})
	}
}

// TestInMemoryTasksBounded: the in-process backend keeps at most maxInMemoryTasks, dropping the
// least recently changed.
func TestInMemoryTasksBounded(t *testing.T) {
	s := NewInMemory()
	for i := range maxInMemoryTasks + 1 {
		testutil.Check(t, s.SaveTask(ctx, "a", StoredTask{ID: fmt.Sprint("t", i), State: []byte(`{}`)}))
		if i == 0 {
			age(t, s, "a", "t0", time.Minute) // the oldest, though it sorts first anyway
		}
	}
	if n := len(s.tasks); n > maxInMemoryTasks || n < maxInMemoryTasks*9/10 {
		t.Fatalf("%d tasks kept", n)
	}
	if _, err := s.Task(ctx, "a", "t0", ""); !errors.Is(err, ErrTaskNotFound) {
		t.Errorf("the oldest task is kept: %v", err)
	}
	if _, err := s.Task(ctx, "a", fmt.Sprint("t", maxInMemoryTasks), ""); err != nil {
		t.Errorf("the newest task is dropped: %v", err)
	}
}
