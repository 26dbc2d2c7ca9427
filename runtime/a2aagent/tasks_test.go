package a2aagent

import (
	"context"
	"errors"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/agentry-dev/agentry/runtime/memory"
)

// TestTaskStoreKeepsTasksPerCaller: a stored task reads back as a copy, for its caller only.
func TestTaskStoreKeepsTasksPerCaller(t *testing.T) {
	s := TaskStore{Store: memory.NewInMemory(), AgentID: "chef"}
	ann := WithResource(context.Background(), "ann")
	task := &a2a.Task{ID: "t1", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking},
		Artifacts: []*a2a.Artifact{{ID: "a", Parts: a2a.ContentParts{a2a.TextPart{Text: "hi"}}}}}
	if err := s.Save(ann, task); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ann, "t1")
	if err != nil || got.Artifacts[0].Parts[0].(a2a.TextPart).Text != "hi" || got.Status.State != a2a.TaskStateWorking {
		t.Fatalf("t1: %+v %v", got, err)
	}
	got.Status.State = a2a.TaskStateCompleted // a copy: the store's task is unchanged
	if again, _ := s.Get(ann, "t1"); again.Status.State != a2a.TaskStateWorking {
		t.Error("the store handed out its own task")
	}
	bob := WithResource(context.Background(), "bob")
	if _, err := s.Get(bob, "t1"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("bob reads ann's task: %v", err)
	}
	if err := s.Save(bob, task); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("bob replaces ann's task: %v", err)
	}
	if _, err := s.Get(context.Background(), "t1"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("an anonymous caller reads ann's task: %v", err)
	}
}
