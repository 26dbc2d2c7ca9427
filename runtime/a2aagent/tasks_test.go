package a2aagent

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
)

// TestTaskStoreIsBounded: a stored task reads back as a copy; beyond max the least recently
// saved goes, and a task past its ttl is gone.
func TestTaskStoreIsBounded(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	s := NewTaskStore(2, time.Minute)
	s.now = func() time.Time { return now }
	task := func(id string) *a2a.Task {
		return &a2a.Task{ID: a2a.TaskID(id), ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking},
			Artifacts: []*a2a.Artifact{{ID: "a", Parts: a2a.ContentParts{a2a.TextPart{Text: "hi " + id}}}}}
	}
	for _, id := range []string{"t1", "t2"} {
		if err := s.Save(ctx, task(id)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Get(ctx, "t1")
	if err != nil || got.Artifacts[0].Parts[0].(a2a.TextPart).Text != "hi t1" {
		t.Fatalf("t1: %+v %v", got, err)
	}
	got.Status.State = a2a.TaskStateCompleted // a copy: the store's task is unchanged
	if again, _ := s.Get(ctx, "t1"); again.Status.State != a2a.TaskStateWorking {
		t.Error("the store handed out its own task")
	}
	_ = s.Save(ctx, task("t1")) // t1 is now the newest: t2 goes when t3 arrives
	_ = s.Save(ctx, task("t3"))
	if _, err := s.Get(ctx, "t2"); !errors.Is(err, a2a.ErrTaskNotFound) || s.Len() != 2 {
		t.Errorf("t2 after t3: %v, %d tasks", err, s.Len())
	}
	now = now.Add(2 * time.Minute)
	if _, err := s.Get(ctx, "t3"); !errors.Is(err, a2a.ErrTaskNotFound) || s.Len() != 0 {
		t.Errorf("t3 past its ttl: %v, %d tasks", err, s.Len())
	}
}
