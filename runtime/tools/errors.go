package tools

import (
	"context"
	"log/slog"

	"github.com/go-logr/logr"
)

// CallError is a tool failure whose message is safe to show the model and the client (it goes
// into tool results and API answers) while the cause, which can name URLs, addresses, Secret
// names or an endpoint's error page, stays in the runtime's log.
type CallError struct {
	// Public is what the model and the client see.
	Public string
	// Err is the cause, for the log only.
	Err error
}

func (e *CallError) Error() string { return e.Public }
func (e *CallError) Unwrap() error { return e.Err }

// Detail is the cause for the log.
func (e *CallError) Detail() string {
	if e.Err == nil {
		return e.Public
	}
	return e.Public + ": " + e.Err.Error()
}

func callError(public string, cause error) *CallError { return &CallError{Public: public, Err: cause} }

// logFor is the request's logger, or the process's default logger (stderr), so a tool failure's
// cause is never dropped because the caller put no logger in the context.
func logFor(ctx context.Context) logr.Logger {
	if l, err := logr.FromContext(ctx); err == nil {
		return l
	}
	return logr.FromSlogHandler(slog.Default().Handler())
}
