package logwarn

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/go-logr/logr"
)

// TestWarn: a warning is logged at WARN with the logger's values, and not at all when the
// handler's level is above WARN.
func TestWarn(t *testing.T) {
	var buf bytes.Buffer
	log := logr.FromSlogHandler(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})).WithValues("component", "chat")
	Warn(log, "no headers key", "hint", "set one")
	if got := buf.String(); !strings.Contains(got, "level=WARN") || !strings.Contains(got, `msg="no headers key"`) || !strings.Contains(got, "component=chat") || !strings.Contains(got, `hint="set one"`) {
		t.Errorf("logged %q", got)
	}
	buf.Reset()
	quiet := logr.FromSlogHandler(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelError}))
	Warn(quiet, "dropped")
	if buf.Len() != 0 {
		t.Errorf("a warning below the level was logged: %q", buf.String())
	}
}
