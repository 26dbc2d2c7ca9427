package telemetry

import (
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
)

// Tracer is a named tracer of whichever provider is installed globally, looked up once per
// provider. otel.Tracer on every span took the SDK provider's lock and a map lookup (a tenth
// of the SDK's cost per span in the runtime bench); a tracer kept from package init would go
// on using the first provider installed, and tests install one each.
type Tracer struct {
	name string
	cur  atomic.Pointer[providerTracer]
}

type providerTracer struct {
	provider trace.TracerProvider
	tracer   trace.Tracer
}

// NewTracer names the instrumentation scope (the package's import path).
func NewTracer(name string) *Tracer { return &Tracer{name: name} }

// Get returns the tracer of the global provider installed now.
func (t *Tracer) Get() trace.Tracer {
	p := otel.GetTracerProvider()
	if c := t.cur.Load(); c != nil && c.provider == p {
		return c.tracer
	}
	c := &providerTracer{provider: p, tracer: p.Tracer(t.name)}
	t.cur.Store(c)
	return c.tracer
}
