package server

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/runtime/agui"
)

// keepAliveFrame is an SSE comment: clients ignore it, proxies see traffic.
const keepAliveFrame = ": keep-alive\n\n"

// sseStream writes server-sent events, flushing each one at once. After the first write
// failure every later write fails too, so a gone client stops the run. While open it sends a
// comment frame whenever nothing was written for the keep-alive interval, so proxies do not
// cut a stream that waits on a long model or tool step.
type sseStream struct {
	c         echo.Context
	keepAlive time.Duration
	mu        sync.Mutex
	err       error
	started   bool
	lastWrite time.Time
	done      chan struct{}
	stopOnce  sync.Once
}

// newSSE makes the stream of a response; start sends the headers, stop must follow.
func (s *Server) newSSE(c echo.Context) *sseStream {
	return &sseStream{c: c, keepAlive: s.opts.KeepAlive, done: make(chan struct{})}
}

func (s *sseStream) start() {
	h := s.c.Response().Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	s.mu.Lock()
	s.c.Response().WriteHeader(http.StatusOK)
	s.c.Response().Flush()
	s.started = true
	s.lastWrite = time.Now()
	s.mu.Unlock()
	if s.keepAlive > 0 {
		go s.keepAliveLoop()
	}
}

// stop ends the keep-alive loop; the handler calls it before it returns, so nothing writes to
// the response after that.
func (s *sseStream) stop() {
	s.stopOnce.Do(func() { close(s.done) })
	// Taking the lock waits for a keep-alive write in progress.
	s.mu.Lock()
	s.err = fmt.Errorf("stream closed")
	s.mu.Unlock()
}

func (s *sseStream) keepAliveLoop() {
	t := time.NewTicker(s.keepAlive / 3)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case now := <-t.C:
			s.mu.Lock()
			if s.err == nil && now.Sub(s.lastWrite) >= s.keepAlive {
				s.writeLocked([]byte(keepAliveFrame))
			}
			s.mu.Unlock()
		}
	}
}

func (s *sseStream) writeLocked(frame []byte) {
	if _, err := s.c.Response().Write(frame); err != nil {
		s.err = err
		return
	}
	s.c.Response().Flush()
	s.lastWrite = time.Now()
}

func (s *sseStream) send(ev any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if err := s.c.Request().Context().Err(); err != nil {
		s.err = err
		return err
	}
	frame, err := agui.Encode(ev)
	if err != nil {
		s.err = fmt.Errorf("failed to encode event: %w", err)
		return s.err
	}
	s.writeLocked(frame)
	return s.err
}

func (s *sseStream) sendRaw(frame string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.writeLocked([]byte(frame))
	}
}
