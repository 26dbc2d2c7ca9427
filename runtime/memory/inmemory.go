package memory

import (
	"context"
	"sort"
	"sync"
	"time"
)

// InMemory is the memory:// backend: process-local, gone on restart. For tests and trials.
type InMemory struct {
	mu      sync.Mutex
	threads map[string]*memThread // by agent + "\x00" + thread
	pending map[string]PendingRun // by agent + "\x00" + run
	tasks   map[string]StoredTask // by agent + "\x00" + task
	// tasksPruned is when expired tasks were last deleted.
	tasksPruned time.Time
	runs        map[string]*memRun // by agent + "\x00" + run
}

type memThread struct {
	Thread
	msgs []Message
	ids  map[string]bool
}

// NewInMemory returns an empty in-process store.
func NewInMemory() *InMemory { return &InMemory{threads: map[string]*memThread{}} }

// Kind implements Store.
func (s *InMemory) Kind() string { return "memory" }

// thread returns the caller's thread, nil when it does not exist, and ErrThreadOwnedByOther
// when it belongs to another resource. The caller holds s.mu.
func (s *InMemory) thread(agentID, threadID, resourceID string) (*memThread, error) {
	t, ok := s.threads[agentID+"\x00"+threadID]
	if !ok {
		return nil, nil
	}
	if t.ResourceID != resourceID {
		return nil, ErrThreadOwnedByOther
	}
	return t, nil
}

// Save implements Store.
func (s *InMemory) Save(_ context.Context, agentID, threadID, resourceID string, msgs []Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now().UTC()
	t, err := s.thread(agentID, threadID, resourceID)
	if err != nil {
		return err
	}
	if t == nil {
		t = &memThread{Thread: Thread{ID: threadID, ResourceID: resourceID, AgentID: agentID, Title: titleOf(msgs), CreatedAt: now}, ids: map[string]bool{}}
		s.threads[agentID+"\x00"+threadID] = t
	}
	for _, m := range msgs {
		if t.ids[m.ID] {
			continue
		}
		t.ids[m.ID] = true
		m.ThreadID, m.ResourceID = threadID, resourceID
		if m.CreatedAt.IsZero() {
			m.CreatedAt = now
		}
		t.msgs = append(t.msgs, m)
	}
	t.UpdatedAt = now
	return nil
}

// Recall implements Store.
func (s *InMemory) Recall(_ context.Context, agentID, threadID, resourceID string, n int) ([]Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.thread(agentID, threadID, resourceID)
	if err != nil || t == nil || n <= 0 {
		return nil, err
	}
	from := max(0, len(t.msgs)-n)
	return append([]Message(nil), t.msgs[from:]...), nil
}

// Messages implements Store.
func (s *InMemory) Messages(_ context.Context, agentID, threadID, resourceID string, p Page) (MessagePage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.thread(agentID, threadID, resourceID)
	if err != nil {
		return MessagePage{}, err
	}
	if t == nil {
		return MessagePage{}, ErrThreadNotFound
	}
	page, more := pageOf(t.msgs, p)
	return MessagePage{Messages: page, Total: len(t.msgs), HasMore: more}, nil
}

// Threads implements Store.
func (s *InMemory) Threads(_ context.Context, agentID, resourceID string, p Page) (ThreadPage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all := []Thread{}
	for _, t := range s.threads {
		if t.AgentID == agentID && t.ResourceID == resourceID {
			all = append(all, t.Thread)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].UpdatedAt.After(all[j].UpdatedAt) })
	page, more := pageOf(all, p)
	return ThreadPage{Threads: page, Total: len(all), HasMore: more}, nil
}

// pageOf copies one page of items.
func pageOf[T any](items []T, p Page) ([]T, bool) {
	p = p.normalized()
	from := min(p.offset(), len(items))
	to := min(from+p.Size, len(items))
	return append([]T{}, items[from:to]...), to < len(items)
}

// Ping implements Store.
func (s *InMemory) Ping(context.Context) error { return nil }

// Close implements Store.
func (s *InMemory) Close() error { return nil }
