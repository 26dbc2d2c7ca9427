// Package runlog keeps the events of agent runs so a run outlives the request that started it:
// the run appends its events to a Log, and any number of streams follow the Log from an offset
// (the first request's, and a client's that re-attaches with the last event it received). Logs
// are bounded in events and bytes per run, and kept for a while after their run ended.
package runlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentry-dev/agentry/internal/platform/defaults"
)

// Event is one event of a run's stream: its sequence number (from 1) and its JSON.
type Event struct {
	Seq  int
	Data json.RawMessage
}

// Limits bound the logs of one runtime.
type Limits struct {
	// MaxEvents and MaxBytes bound one run's log: past them the oldest events are dropped (a
	// client re-attaching before them gets ErrGone). Defaults DefaultMaxEvents, DefaultMaxBytes.
	MaxEvents, MaxBytes int
	// Keep is how long a log is kept after its run ended (default DefaultKeep).
	Keep time.Duration
	// MaxRuns bounds the logs kept at once; past it the longest-ended go first, and a new run
	// is refused while every kept log's run is still going (default DefaultMaxRuns).
	MaxRuns int
}

// Defaults of Limits.
const (
	DefaultMaxEvents = 20_000
	DefaultMaxBytes  = 8 << 20
	DefaultKeep      = 10 * time.Minute
	DefaultMaxRuns   = 2_000
)

func (l Limits) normalized() Limits {
	defaults.Positive(&l.MaxEvents, DefaultMaxEvents)
	defaults.Positive(&l.MaxBytes, DefaultMaxBytes)
	defaults.Positive(&l.MaxRuns, DefaultMaxRuns)
	if l.Keep <= 0 {
		l.Keep = DefaultKeep
	}
	return l
}

// ErrGone means the events after the offset asked for were dropped already (the log's bound).
var ErrGone = errors.New("the run's earlier events are no longer kept")

// Log is one run's events.
type Log struct {
	limits Limits

	mu     sync.Mutex
	events []Event
	bytes  int
	next   int // the next event's Seq
	ended  time.Time
	// wake is closed at the next change (an event or the end) and replaced.
	wake chan struct{}
	// tails get every event as it is added (Tail), without a goroutine between the run and
	// its client's stream.
	tails map[*tail]struct{}
	// onEnd tells the Runs keeping the log that its run ended (called once, without l.mu).
	onEnd func()
}

// tail is one Tail: its sink and the channel closed when it stops getting events.
type tail struct {
	sink func([]byte) error
	done chan struct{}
}

func newLog(l Limits) *Log { return &Log{limits: l, next: 1, wake: make(chan struct{})} }

// Append encodes v as the run's next event. After End it fails.
func (l *Log) Append(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("failed to encode a run event: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.add(data)
}

// add appends an event; l.mu is held.
func (l *Log) add(data []byte) error {
	if !l.ended.IsZero() {
		return errors.New("the run's log has ended")
	}
	l.events = append(l.events, Event{Seq: l.next, Data: data})
	l.next++
	l.bytes += len(data)
	for len(l.events) > 1 && (len(l.events) > l.limits.MaxEvents || l.bytes > l.limits.MaxBytes) {
		l.bytes -= len(l.events[0].Data)
		l.events[0] = Event{}
		l.events = l.events[1:]
	}
	for t := range l.tails {
		if t.sink(data) != nil {
			l.untail(t)
		}
	}
	l.changed()
	return nil
}

// Tail sends through sink the events after seq after, then each new event as it is added,
// until the run ends, sink fails or stop is called; done is closed then. sink runs under the
// log's lock and must not block (sse.Writer.SendJSON queues). ErrGone when some of those events
// were dropped already.
func (l *Log) Tail(after int, sink func([]byte) error) (done <-chan struct{}, stop func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	first := l.next - len(l.events)
	if after+1 < first {
		return nil, nil, ErrGone
	}
	t := &tail{sink: sink, done: make(chan struct{})}
	for _, ev := range l.events[max(after+1-first, 0):] {
		if sink(ev.Data) != nil {
			close(t.done)
			return t.done, func() {}, nil
		}
	}
	if !l.ended.IsZero() {
		close(t.done)
		return t.done, func() {}, nil
	}
	if l.tails == nil {
		l.tails = map[*tail]struct{}{}
	}
	l.tails[t] = struct{}{}
	return t.done, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.untail(t)
	}, nil
}

// untail stops t (l.mu held); a second call does nothing.
func (l *Log) untail(t *tail) {
	if _, ok := l.tails[t]; ok {
		delete(l.tails, t)
		close(t.done)
	}
}

// AppendRaw adds data, which need not be JSON (Mastra's closing `[DONE]`), as the next event.
func (l *Log) AppendRaw(data []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.add(append([]byte(nil), data...))
}

// Send is Append, for the handlers that write a run's events to a stream.
func (l *Log) Send(v any) error { return l.Append(v) }

// End marks the run ended: followers read what is left and stop.
func (l *Log) End() {
	l.mu.Lock()
	first := l.ended.IsZero()
	if first {
		l.ended = time.Now()
		for t := range l.tails {
			l.untail(t)
		}
		l.changed()
	}
	onEnd := l.onEnd
	l.mu.Unlock()
	if first && onEnd != nil {
		onEnd()
	}
}

// changed wakes the followers; l.mu is held.
func (l *Log) changed() {
	close(l.wake)
	l.wake = make(chan struct{})
}

// Since is the events after seq after, whether the run has ended, and a channel closed at the
// next change. ErrGone when some of those events were dropped already.
func (l *Log) Since(after int) ([]Event, bool, <-chan struct{}, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ended := !l.ended.IsZero()
	first := l.next - len(l.events)
	if after+1 < first {
		return nil, ended, l.wake, ErrGone
	}
	i := max(after+1-first, 0)
	if i >= len(l.events) {
		return nil, ended, l.wake, nil
	}
	return append([]Event(nil), l.events[i:]...), ended, l.wake, nil
}

// First is the seq of the oldest event kept (the next event's when none is).
func (l *Log) First() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next - len(l.events)
}

// Ended says whether the run ended, and when.
func (l *Log) Ended() (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended, !l.ended.IsZero()
}

// Size is the events and bytes the log holds.
func (l *Log) Size() (events, bytes int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.events), l.bytes
}
