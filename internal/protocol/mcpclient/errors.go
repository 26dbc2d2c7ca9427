package mcpclient

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/platform/egress"
	"github.com/agentry-dev/agentry/internal/platform/netfail"
)

// Reasons of an MCPServer's Ready condition.
const (
	ReasonUnreachable   = v1alpha1.ReasonUnreachable
	ReasonTLSError      = v1alpha1.ReasonTLSError
	ReasonUnauthorized  = v1alpha1.ReasonUnauthorized
	ReasonProtocolError = v1alpha1.ReasonProtocolError
	ReasonTimeout       = v1alpha1.ReasonTimeout
)

// Error is a failure to talk to an MCP server: Reason is the Ready condition's reason and
// Message says what happened in words an admin can act on (no header values, no bodies).
type Error struct {
	Reason  string
	Message string
	Err     error
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

// Classify sorts any error of this package or the SDK into an *Error.
func Classify(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return classify(err, nil, "request")
}

func classify(err error, rec *recorder, op string) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	status := 0
	if rec != nil {
		status = rec.take()
	}
	mk := func(reason, format string, args ...any) *Error {
		return &Error{Reason: reason, Message: fmt.Sprintf(format, args...), Err: err}
	}
	if refused, ok := egress.Refused(err); ok {
		return mk(ReasonUnreachable, "connection refused by Agentry's egress policy (%s)", refused.Category)
	}
	switch status {
	case http.StatusUnauthorized:
		return mk(ReasonUnauthorized, "the server answered %s 401 Unauthorized: it needs credentials (spec.headersSecretRef, e.g. an Authorization header) or refused the ones sent", op)
	case http.StatusForbidden:
		return mk(ReasonUnauthorized, "the server answered %s 403 Forbidden: the credentials sent are not allowed", op)
	}
	switch netfail.TLS(err) {
	case netfail.Untrusted:
		return mk(ReasonTLSError, "TLS: the server's certificate is not trusted: %v", rootCause(err))
	case netfail.PlainHTTP:
		return mk(ReasonTLSError, "TLS: the server answered plain HTTP to https (is the url's scheme right?)")
	case netfail.NoHandshake:
		return mk(ReasonTLSError, "TLS: the server did not answer the TLS handshake (is the url's scheme right?)")
	case netfail.Refused:
		var alert tls.AlertError
		errors.As(err, &alert)
		return mk(ReasonTLSError, "TLS: the server refused the handshake: %v", alert)
	}
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		return mk(ReasonTimeout, "no answer to %s in time", op)
	}
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.As(err, &dnsErr):
		return mk(ReasonUnreachable, "the server's host name does not resolve: %s", dnsErr.Name)
	case errors.Is(err, syscall.ECONNREFUSED):
		return mk(ReasonUnreachable, "connection refused: nothing listens at the url's host and port")
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return mk(ReasonUnreachable, "no route to the server's host")
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return mk(ReasonUnreachable, "cannot connect: %v", opErr.Err)
	}
	switch {
	case status == http.StatusBadGateway, status == http.StatusServiceUnavailable, status == http.StatusGatewayTimeout:
		return mk(ReasonUnreachable, "the server answered %s %d %s", op, status, http.StatusText(status))
	case status == http.StatusNotFound, status == http.StatusMethodNotAllowed:
		return mk(ReasonProtocolError, "the server answered %s %d %s: is the url the server's MCP endpoint, and spec.transport the one it speaks?", op, status, http.StatusText(status))
	case status >= 400:
		return mk(ReasonProtocolError, "the server answered %s %d %s", op, status, http.StatusText(status))
	}
	return mk(ReasonProtocolError, "%s failed: %v", op, rootCause(err))
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// rootCause is the innermost error's text: the SDK's wrappers repeat the request summary.
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		if _, multi := next.(interface{ Unwrap() []error }); multi {
			return next
		}
		err = next
	}
}
