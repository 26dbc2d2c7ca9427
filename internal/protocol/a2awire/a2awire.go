// Package a2awire holds what both callers of A2A agents (the runtime's a2a tools and the chat
// bridge) need beside the official SDK: the text of a message's parts, and an HTTP transport
// that sends an agent's headers and the trace context on every call the SDK's client makes.
package a2awire

import (
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/a2a"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// Text joins the text parts of an A2A message or artifact.
func Text(parts a2a.ContentParts) string {
	var b strings.Builder
	for _, p := range parts {
		switch t := p.(type) {
		case a2a.TextPart:
			b.WriteString(t.Text)
		case *a2a.TextPart:
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// Transport sets Headers on every request and injects the trace context (the called agent's
// run joins the caller's trace). Base nil is http.DefaultTransport.
type Transport struct {
	Base    http.RoundTripper
	Headers http.Header
}

// RoundTrip implements http.RoundTripper.
func (t Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.Headers {
		r.Header[k] = v
	}
	otel.GetTextMapPropagator().Inject(r.Context(), propagation.HeaderCarrier(r.Header))
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r)
}

// Client is c with its transport wrapped to send headers and the trace context.
func Client(c *http.Client, headers http.Header) *http.Client {
	out := *c
	out.Transport = Transport{Base: c.Transport, Headers: headers}
	return &out
}
