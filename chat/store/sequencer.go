package store

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// The sequencer gives PostgreSQL events their positions. Writers insert events with pos NULL
// (and an insertion id) and commit without any lock shared by all writers, so their commits
// overlap and share WAL flushes. A sequencer pass is one transaction (the function
// chat_sequence_events, one round trip) that takes the advisory lock sequencerLockID
// (try-lock: if another replica's sequencer holds it, retry soon), sets pos of the
// unsequenced events in id order from chat_events_pos_seq, NOTIFYs the other replicas and
// commits. Only one pass holds the lock at a time and its positions become
// visible when it commits, so positions grow in the order readers can see them: a reader of
// "pos > last" never skips a position that commits later. Within a conversation, id order
// is seq order (the conversation row lock orders the writers, who take ids after it), so
// pos order agrees with seq.
//
// Every store runs a loop, woken by its own writes (write waits for the pass that follows
// its commit), and by a poll, which also sequences the events of a replica that died between
// its commit and its pass. Writers do not NOTIFY: PostgreSQL serialises the commits of
// notifying transactions (a lock on the notification queue held until the commit is
// durable), which would bring back the serialisation this design removes.
type sequencer struct {
	db   *sql.DB
	wake chan struct{} // the store's Wake, signalled after a pass gave events positions
	kick chan struct{}
	poll time.Duration

	mu        sync.Mutex
	requested uint64        // writers' requests so far
	done      uint64        // requests covered by the last successful pass
	passed    chan struct{} // closed and replaced after each successful pass
	stopped   bool

	cancel context.CancelFunc
	exited chan struct{}
}

const (
	sequencerBatch      = 1000
	sequencerPoll       = 500 * time.Millisecond
	sequencerRetry      = 2 * time.Millisecond // another replica's pass holds the lock
	sequencerBackoffMax = time.Second          // after a database error
	// sequencerWaitMax bounds a writer's wait for its events' positions: its transaction has
	// committed, so the write has succeeded; a later pass sequences them.
	sequencerWaitMax = 5 * time.Second
)

func startSequencer(db *sql.DB, wake chan struct{}, poll time.Duration) *sequencer {
	ctx, cancel := context.WithCancel(context.Background())
	q := &sequencer{db: db, wake: wake, kick: make(chan struct{}, 1), poll: poll,
		passed: make(chan struct{}), cancel: cancel, exited: make(chan struct{})}
	go q.run(ctx)
	return q
}

func (q *sequencer) run(ctx context.Context) {
	defer close(q.exited)
	poll := time.NewTicker(q.poll)
	defer poll.Stop()
	backoff := 10 * time.Millisecond
	for ctx.Err() == nil {
		q.mu.Lock()
		target := q.requested
		q.mu.Unlock()
		n, ok, err := q.pass(ctx)
		if n > 0 {
			signal(q.wake)
		}
		var wait <-chan time.Time
		switch {
		case err != nil:
			wait = time.After(backoff)
			backoff = min(backoff*2, sequencerBackoffMax)
		case !ok:
			wait = time.After(sequencerRetry)
		default:
			backoff = 10 * time.Millisecond
			q.mu.Lock()
			q.done = target
			close(q.passed)
			q.passed = make(chan struct{})
			q.mu.Unlock()
		}
		if wait != nil {
			select {
			case <-ctx.Done():
			case <-wait:
			}
			continue
		}
		select {
		case <-ctx.Done():
		case <-q.kick:
		case <-poll.C:
		}
	}
}

// pass sequences every event committed before it started; ok is false when another replica's
// pass held the lock.
func (q *sequencer) pass(ctx context.Context) (n int, ok bool, err error) {
	for {
		k, ok, err := q.batch(ctx)
		n += k
		if err != nil || !ok || k < sequencerBatch {
			return n, ok, err
		}
	}
}

// batch sequences up to sequencerBatch events in one transaction: chat_sequence_events
// (migration 3) returns how many, or -1 when another replica's sequencer holds the lock.
func (q *sequencer) batch(ctx context.Context) (int, bool, error) {
	var n int
	if err := q.db.QueryRowContext(ctx, `SELECT chat_sequence_events($1)`, sequencerBatch).Scan(&n); err != nil {
		return 0, false, err
	}
	if n < 0 {
		return 0, false, nil
	}
	return n, true, nil
}

// await returns once a pass that started after the call has committed (so the events the
// caller committed before have positions), or when ctx ends, sequencerWaitMax passes or the
// sequencer stops.
func (q *sequencer) await(ctx context.Context) {
	q.mu.Lock()
	if q.stopped {
		q.mu.Unlock()
		return
	}
	q.requested++
	req := q.requested
	q.mu.Unlock()
	signal(q.kick)
	timeout := time.NewTimer(sequencerWaitMax)
	defer timeout.Stop()
	for {
		q.mu.Lock()
		if q.done >= req || q.stopped {
			q.mu.Unlock()
			return
		}
		passed := q.passed
		q.mu.Unlock()
		select {
		case <-passed:
		case <-ctx.Done():
			return
		case <-timeout.C:
			return
		}
	}
}

// stop ends the loop and releases the writers waiting for it.
func (q *sequencer) stop() {
	q.mu.Lock()
	if q.stopped {
		q.mu.Unlock()
		return
	}
	q.mu.Unlock()
	q.cancel()
	<-q.exited
	q.mu.Lock()
	q.stopped = true
	close(q.passed)
	q.mu.Unlock()
}
