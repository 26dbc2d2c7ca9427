package telemetry

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A cached tracer follows the global provider when a new one is installed.
func TestTracerFollowsTheGlobalProvider(t *testing.T) {
	prev := otel.GetTracerProvider()
	t.Cleanup(func() { otel.SetTracerProvider(prev) })
	tr := NewTracer("example.com/scope")
	for i := 0; i < 2; i++ {
		rec := tracetest.NewSpanRecorder()
		otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
		for j := 0; j < 2; j++ {
			_, span := tr.Get().Start(context.Background(), "op")
			span.End()
		}
		if got := len(rec.Ended()); got != 2 {
			t.Fatalf("provider %d recorded %d spans, want 2", i, got)
		}
		if s := rec.Ended()[0].InstrumentationScope().Name; s != "example.com/scope" {
			t.Fatalf("scope %q", s)
		}
	}
}
