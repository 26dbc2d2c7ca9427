package sse

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"
)

// ErrClosed is Send's error after Close.
var ErrClosed = errors.New("stream closed")

// Writer streams events to an HTTP response. Send queues an event's frame and returns at once;
// one goroutine writes whatever is queued in one write and one flush, so a burst of events (a
// model step's deltas) costs a few writes instead of one write and one flush each, while an
// event that comes alone is still written at once. It also sends a comment frame whenever
// nothing was written for the keep-alive interval, so proxies do not cut a stream that waits on
// a long model or tool step.
type Writer struct {
	w         http.ResponseWriter
	rc        *http.ResponseController
	ctx       context.Context
	keepAlive time.Duration

	mu      sync.Mutex
	pending []byte
	// enc encodes events straight into pending (no copy of each event's JSON).
	enc *json.Encoder
	// err is sticky: after the client went away or a write failed every Send fails, so a gone
	// client stops the run.
	err error

	wake, stop chan struct{}
	done       chan struct{}
	closeOnce  sync.Once
}

// Start sets the stream's headers and starts writing; Close must follow. The headers go out
// with the first events (a stream's first event follows at once), saving a write. ctx is the
// request's: once it ends, Send fails.
func Start(ctx context.Context, w http.ResponseWriter, keepAlive time.Duration) *Writer {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &Writer{w: w, rc: http.NewResponseController(w), ctx: ctx, keepAlive: keepAlive,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	s.enc = json.NewEncoder(appender{&s.pending})
	go s.loop()
	return s
}

// Send queues v as an event.
func (s *Writer) Send(v any) error {
	s.mu.Lock()
	if err := s.usable(); err != nil {
		s.mu.Unlock()
		return err
	}
	n := len(s.pending)
	s.pending = append(s.pending, "data: "...)
	// Encode ends the JSON with "\n"; one more ends the event.
	if err := s.enc.Encode(v); err != nil {
		s.pending = s.pending[:n]
		s.mu.Unlock()
		return err
	}
	s.pending = append(s.pending, '\n')
	s.mu.Unlock()
	s.signal()
	return nil
}

// SendJSON queues an event whose data is JSON already (an event kept in a run's log).
func (s *Writer) SendJSON(data []byte) error {
	s.mu.Lock()
	if err := s.usable(); err != nil {
		s.mu.Unlock()
		return err
	}
	s.pending = AppendData(s.pending, data)
	s.mu.Unlock()
	s.signal()
	return nil
}

// SendData queues an event whose data is not JSON (Mastra's closing `[DONE]`).
func (s *Writer) SendData(data string) {
	s.mu.Lock()
	if s.usable() == nil {
		s.pending = AppendData(s.pending, []byte(data))
	}
	s.mu.Unlock()
	s.signal()
}

// Failed says whether the client went away or a write failed.
func (s *Writer) Failed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usable() != nil && !errors.Is(s.err, ErrClosed)
}

// Close writes what is queued, stops the writer and waits for it: nothing writes to the
// response after Close returns.
func (s *Writer) Close() {
	s.closeOnce.Do(func() { close(s.stop) })
	<-s.done
	s.mu.Lock()
	s.err = cmp.Or(s.err, ErrClosed)
	s.mu.Unlock()
}

// usable is s.err, or the request's end; s.mu is held.
func (s *Writer) usable() error {
	s.err = cmp.Or(s.err, s.ctx.Err())
	return s.err
}

// appender appends what is written to a byte slice.
type appender struct{ b *[]byte }

func (a appender) Write(p []byte) (int, error) {
	*a.b = append(*a.b, p...)
	return len(p), nil
}

func (s *Writer) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Writer) fail(err error) {
	if err == nil {
		return
	}
	s.mu.Lock()
	s.err = cmp.Or(s.err, err)
	s.mu.Unlock()
}

func (s *Writer) loop() {
	defer close(s.done)
	var tick <-chan time.Time
	if s.keepAlive > 0 {
		t := time.NewTicker(s.keepAlive / 3)
		defer t.Stop()
		tick = t.C
	}
	var batch []byte
	lastWrite := time.Now()
	for {
		stopping := false
		select {
		case <-s.wake:
		case <-s.stop:
			stopping = true
		case now := <-tick:
			if now.Sub(lastWrite) < s.keepAlive {
				continue
			}
			s.mu.Lock()
			if len(s.pending) == 0 {
				s.pending = append(s.pending, KeepAliveFrame...)
			}
			s.mu.Unlock()
		}
		s.mu.Lock()
		// The two buffers swap places: the next events queue while this batch is written.
		batch, s.pending = s.pending, batch[:0]
		broken := s.err != nil // the client is gone, or a write failed: nobody reads on
		s.mu.Unlock()
		if len(batch) > 0 && !broken {
			_, err := s.w.Write(batch)
			if err == nil {
				err = s.rc.Flush()
			}
			s.fail(err)
			lastWrite = time.Now()
		}
		if stopping {
			return
		}
	}
}
