package server

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/runtime/agui"
)

// sseStream writes server-sent events, flushing each one at once. After the first write
// failure every later write fails too, so a gone client stops the run.
type sseStream struct {
	c       echo.Context
	mu      sync.Mutex
	err     error
	started bool
}

func (s *sseStream) start() {
	h := s.c.Response().Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	s.c.Response().WriteHeader(http.StatusOK)
	s.c.Response().Flush()
	s.started = true
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
	if _, err := s.c.Response().Write(frame); err != nil {
		s.err = err
		return err
	}
	s.c.Response().Flush()
	return nil
}

func (s *sseStream) sendRaw(frame string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		_, s.err = s.c.Response().Write([]byte(frame))
		s.c.Response().Flush()
	}
}
