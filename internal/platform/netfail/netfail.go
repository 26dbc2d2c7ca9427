// Package netfail tells which kind of TLS failure an HTTP client's error is, so the chat
// bridge and MCP discovery say the same thing, in words a person can act on, for the same
// failure (never an address).
package netfail

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
)

// TLSKind is a kind of TLS failure.
type TLSKind int

const (
	// NotTLS: the error is not a TLS failure.
	NotTLS TLSKind = iota
	// Untrusted: the server's certificate could not be verified (unknown authority, wrong host, invalid).
	Untrusted
	// PlainHTTP: an https URL, and the server answered plain HTTP.
	PlainHTTP
	// NoHandshake: the server did not answer the handshake with TLS records.
	NoHandshake
	// Refused: the server sent a TLS alert (it refused the handshake).
	Refused
)

// TLS classifies err.
func TLS(err error) TLSKind {
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var recordErr tls.RecordHeaderError
	var alert tls.AlertError
	switch {
	case errors.Is(err, http.ErrSchemeMismatch):
		// net/http replaces the handshake's RecordHeaderError with this when the answer was HTTP.
		return PlainHTTP
	case errors.As(err, &certErr), errors.As(err, &unknownCA), errors.As(err, &hostErr), errors.As(err, &invalid):
		return Untrusted
	case errors.As(err, &recordErr):
		return NoHandshake
	case errors.As(err, &alert):
		return Refused
	}
	return NotTLS
}
