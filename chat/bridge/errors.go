package bridge

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/platform/egress"
	"github.com/agentry-dev/agentry/internal/platform/netfail"
)

// runError is a failed call: Code is a model.RunErr… code, Reason says why for people (no
// host, header or URL), Cause is logged.
type runError struct {
	Code   string
	Reason string
	Cause  error
}

func (e *runError) Error() string {
	if e.Cause != nil {
		return e.Code + ": " + e.Reason + ": " + e.Cause.Error()
	}
	return e.Code + ": " + e.Reason
}

func fail(code, reason string, cause error) *runError {
	return &runError{Code: code, Reason: reason, Cause: cause}
}

var (
	errIdle = errors.New("idle timeout")
)

// transportFailure classifies an error of the request or of reading the stream. ctx is the
// call's context, whose cause tells an idle timeout from the run's own limit or a shutdown.
func (b *Bridge) transportFailure(ctx context.Context, err error) *runError {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errIdle):
		return fail(model.RunErrIdleTimeout, fmt.Sprintf("it stopped sending for %s", b.o.IdleTimeout), err)
	case errors.Is(cause, errShuttingDown) || b.ctx.Err() != nil:
		return fail(model.RunErrShuttingDown, "the chat service restarted during the run; send your message again", err)
	case errors.Is(cause, context.DeadlineExceeded):
		return fail(model.RunErrRunTimeout, fmt.Sprintf("it did not finish within %s", b.o.RunTimeout), err)
	}
	switch kind := netfail.TLS(err); {
	case kind == netfail.PlainHTTP:
		return fail(model.RunErrTLS, "the TLS handshake with it failed: it answered plain HTTP to https", err)
	case kind == netfail.Untrusted:
		return fail(model.RunErrTLS, "its TLS certificate could not be verified", err)
	case kind != netfail.NotTLS, strings.Contains(err.Error(), "tls:"):
		return fail(model.RunErrTLS, "the TLS handshake with it failed", err)
	}
	return fail(model.RunErrUnreachable, DescribeDialError(err), err)
}

// DescribeDialError says in a few words, for whoever configured the URL, why a connection
// failed: a category, never an address or a port (so answers cannot map a network).
func DescribeDialError(err error) string {
	if re, ok := egress.Refused(err); ok {
		return "its address is not allowed (" + string(re.Category) + "); an operator can allow internal networks with --agent-allow-networks"
	}
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.As(err, &dnsErr):
		return "its host name could not be resolved"
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return "it could not be reached (connection refused or timed out)"
	}
	return "the connection to it failed"
}

// statusFailure is a non-2xx answer.
func statusFailure(res *http.Response) *runError {
	if res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden {
		// A bearer challenge says what was wrong with a token (RFC 6750 error_description).
		if why := challengeDescription(res.Header.Get("WWW-Authenticate")); why != "" {
			return fail(model.RunErrUnauthorized, fmt.Sprintf("it refused the chat service's credentials (HTTP %d: %s); an admin should check the agent's auth settings", res.StatusCode, why), nil)
		}
		return fail(model.RunErrUnauthorized, fmt.Sprintf("it refused the chat service's credentials (HTTP %d); an admin should check the agent's headers", res.StatusCode), nil)
	}
	return fail(model.RunErrHTTP, fmt.Sprintf("it answered HTTP %d", res.StatusCode), nil)
}

// challengeDescription is the error_description of a Bearer challenge, letters, digits, spaces
// and simple punctuation only, at most 120 characters: the agent's words reach a person.
func challengeDescription(h string) string {
	m := bearerDescription.FindStringSubmatch(h)
	if m == nil {
		return ""
	}
	return clip(m[1], 120)
}

var bearerDescription = regexp.MustCompile(`(?i)^Bearer\b.*\berror_description="([A-Za-z0-9 .,:;'()_-]{1,200})"`)

// clip shortens s to n runes for people-facing text.
func clip(s string, n int) string {
	s = noNUL(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// idleReader cancels the call when no byte arrives for the idle timeout: keep-alive comments
// count, so a slow but alive agent is not cut off.
type idleReader struct {
	r     interface{ Read([]byte) (int, error) }
	timer *time.Timer
	d     time.Duration
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.timer.Reset(r.d)
	}
	return n, err
}

// noNUL drops NUL characters from text an agent sent: the store refuses text holding them (as
// PostgreSQL does), and an answer must not be lost for one stray byte.
func noNUL(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "")
}
