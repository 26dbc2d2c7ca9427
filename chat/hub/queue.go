package hub

import "sync"

// sendQueue is a socket's bounded queue of frames. Unlike a buffered channel it holds no memory
// while empty: most sockets are idle most of the time, and a 256-frame channel costs 10 KiB per
// socket whether it is used or not.
type sendQueue struct {
	mu     sync.Mutex
	frames []outFrame
	max    int
	// ready holds one token while frames wait, so the writer sleeps on a channel.
	ready chan struct{}
}

func newSendQueue(max int) *sendQueue {
	return &sendQueue{max: max, ready: make(chan struct{}, 1)}
}

// push adds f unless max frames already wait; it never blocks.
func (q *sendQueue) push(f outFrame) bool {
	q.mu.Lock()
	if len(q.frames) >= q.max {
		q.mu.Unlock()
		return false
	}
	q.frames = append(q.frames, f)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return true
}

// take returns the waiting frames, oldest first, and empties the queue. The writer owns the
// batch from then on, so the queue bounds what waits, not what is being written.
func (q *sendQueue) take() []outFrame {
	q.mu.Lock()
	defer q.mu.Unlock()
	fs := q.frames
	q.frames = nil
	return fs
}
