package a2aagent

import (
	"container/list"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
)

// Task store bounds: a runtime serves for weeks, so its tasks may not grow without end.
const (
	DefaultMaxTasks = 10_000
	DefaultTaskTTL  = time.Hour
)

// TaskStore keeps an agent's A2A tasks in this process, at most max of them and each for ttl
// after its last change (the oldest go first). A copy is stored and handed out, so the SDK and
// a client never share one.
type TaskStore struct {
	max int
	ttl time.Duration
	now func() time.Time

	mu    sync.Mutex
	order *list.List // of *taskEntry, least recently saved first
	byID  map[a2a.TaskID]*list.Element
}

type taskEntry struct {
	id    a2a.TaskID
	raw   []byte
	saved time.Time
}

// NewTaskStore is a store of at most max tasks (DefaultMaxTasks when not positive), each kept
// ttl after its last change (DefaultTaskTTL when not positive).
func NewTaskStore(max int, ttl time.Duration) *TaskStore {
	if max <= 0 {
		max = DefaultMaxTasks
	}
	if ttl <= 0 {
		ttl = DefaultTaskTTL
	}
	return &TaskStore{max: max, ttl: ttl, now: time.Now, order: list.New(), byID: map[a2a.TaskID]*list.Element{}}
}

// Save implements a2asrv.TaskStore.
func (s *TaskStore) Save(_ context.Context, task *a2a.Task) error {
	raw, err := json.Marshal(task)
	if err != nil {
		return fmt.Errorf("failed to store task %q: %w", task.ID, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if el, ok := s.byID[task.ID]; ok {
		s.order.Remove(el)
	}
	s.byID[task.ID] = s.order.PushBack(&taskEntry{id: task.ID, raw: raw, saved: now})
	s.expire(now)
	return nil
}

// Get implements a2asrv.TaskStore: a2a.ErrTaskNotFound for a task it does not (or no longer) hold.
func (s *TaskStore) Get(_ context.Context, id a2a.TaskID) (*a2a.Task, error) {
	s.mu.Lock()
	s.expire(s.now())
	el, ok := s.byID[id]
	var raw []byte
	if ok {
		raw = el.Value.(*taskEntry).raw
	}
	s.mu.Unlock()
	if !ok {
		return nil, a2a.ErrTaskNotFound
	}
	var t a2a.Task
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("failed to read task %q: %w", id, err)
	}
	return &t, nil
}

// Len is how many tasks the store holds.
func (s *TaskStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order.Len()
}

// expire drops tasks past their time and the oldest beyond max. Called with mu held.
func (s *TaskStore) expire(now time.Time) {
	for el := s.order.Front(); el != nil; el = s.order.Front() {
		e := el.Value.(*taskEntry)
		if s.order.Len() <= s.max && now.Sub(e.saved) < s.ttl {
			return
		}
		s.order.Remove(el)
		delete(s.byID, e.id)
	}
}
