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

// Save implements Store.
func (s *InMemory) Save(_ context.Context, agentID, threadID, resourceID string, msgs []Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now().UTC()
	key := agentID + "\x00" + threadID
	t, ok := s.threads[key]
	if !ok {
		t = &memThread{Thread: Thread{ID: threadID, ResourceID: resourceID, AgentID: agentID, Title: titleOf(msgs), CreatedAt: now}, ids: map[string]bool{}}
		s.threads[key] = t
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
func (s *InMemory) Recall(_ context.Context, agentID, threadID string, n int) ([]Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.threads[agentID+"\x00"+threadID]
	if !ok || n <= 0 {
		return nil, nil
	}
	from := max(0, len(t.msgs)-n)
	return append([]Message(nil), t.msgs[from:]...), nil
}

// Messages implements Store.
func (s *InMemory) Messages(ctx context.Context, agentID, threadID string) ([]Message, error) {
	return s.Recall(ctx, agentID, threadID, int(^uint(0)>>1))
}

// Threads implements Store.
func (s *InMemory) Threads(_ context.Context, agentID, resourceID string) ([]Thread, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Thread{}
	for _, t := range s.threads {
		if t.AgentID == agentID && (resourceID == "" || t.ResourceID == resourceID) {
			out = append(out, t.Thread)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UpdatedAt.After(out[j].UpdatedAt) })
	return out, nil
}

// Ping implements Store.
func (s *InMemory) Ping(context.Context) error { return nil }

// Close implements Store.
func (s *InMemory) Close() error { return nil }
