// Package logwarn logs warnings at slog's WARN level through a logr.Logger, which has only
// info and error: a warning an operator must act on is neither.
package logwarn

import (
	"context"
	"log/slog"

	"github.com/go-logr/logr"
)

// Warn logs msg with the key/value pairs at WARN through log's slog handler (the logger's
// name and values kept). The binaries' loggers are slog's; another sink gets it as info.
func Warn(log logr.Logger, msg string, keysAndValues ...any) {
	l := slog.New(logr.ToSlogHandler(log))
	if l.Enabled(context.Background(), slog.LevelWarn) {
		l.Warn(msg, keysAndValues...)
	}
}
