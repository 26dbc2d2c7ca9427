package a2aagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"

	"github.com/agentry-dev/agentry/runtime/memory"
)

// TaskStore keeps an agent's A2A tasks in a memory store (the agent's own, so every replica
// sharing it answers tasks/get; else the runtime's in-process one). A task belongs to the caller
// that made it (the resource WithResource put in the request's context): another caller
// neither reads nor continues it.
type TaskStore struct {
	Store   memory.Tasks
	AgentID string
}

var _ a2asrv.TaskStore = TaskStore{}

type resourceKey struct{}

// WithResource names the caller of an A2A request: its verified subject, or the user its
// headers name.
func WithResource(ctx context.Context, resource string) context.Context {
	return context.WithValue(ctx, resourceKey{}, resource)
}

// ResourceOf is the caller WithResource named ("" for none).
func ResourceOf(ctx context.Context) string {
	r, _ := ctx.Value(resourceKey{}).(string)
	return r
}

// Save implements a2asrv.TaskStore.
func (s TaskStore) Save(ctx context.Context, task *a2a.Task) error {
	raw, err := json.Marshal(task)
	if err != nil {
		return fmt.Errorf("failed to encode task %q: %w", task.ID, err)
	}
	err = s.Store.SaveTask(ctx, s.AgentID, memory.StoredTask{ID: string(task.ID), ResourceID: ResourceOf(ctx), State: raw})
	if errors.Is(err, memory.ErrTaskNotFound) {
		return a2a.ErrTaskNotFound
	}
	return err
}

// Get implements a2asrv.TaskStore: a2a.ErrTaskNotFound for a task the caller does not (or no
// longer) have.
func (s TaskStore) Get(ctx context.Context, id a2a.TaskID) (*a2a.Task, error) {
	st, err := s.Store.Task(ctx, s.AgentID, string(id), ResourceOf(ctx))
	if errors.Is(err, memory.ErrTaskNotFound) {
		return nil, a2a.ErrTaskNotFound
	}
	if err != nil {
		return nil, err
	}
	var t a2a.Task
	if err := json.Unmarshal(st.State, &t); err != nil {
		return nil, fmt.Errorf("failed to decode task %q: %w", id, err)
	}
	return &t, nil
}
