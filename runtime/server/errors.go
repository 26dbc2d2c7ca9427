package server

import (
	"errors"

	"github.com/agentry-dev/agentry/runtime/llm"
)

// Messages of failures whose cause is internal: the cause goes to the log, the caller gets
// one of these.
const (
	msgMemoryUnavailable = "conversation memory is unavailable"
	msgShuttingDown      = "the server is shutting down; send the request again"
	// codeShuttingDown is the RUN_ERROR code of a run ended by a shutdown.
	codeShuttingDown = "SERVER_SHUTTING_DOWN"
)

// publicMessage is what a caller is told of a failed run: the model's own account of what went
// wrong (status, provider message, hint) when there is one, never hosts, addresses or
// transport errors.
func publicMessage(err error) string {
	var me *llm.Error
	if errors.As(err, &me) && me.Public != "" {
		return me.Public
	}
	if errors.Is(err, llm.ErrMissingAPIKey) {
		return err.Error() // names the variable and the Secret to set, nothing else
	}
	return genericAgentError
}
