package agent

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agentry-dev/agentry/runtime/llm"
)

// idModel only names a model: the benchmark starts and ends spans, it calls nothing.
type idModel struct{}

func (idModel) ModelID() string { return "gpt-4o-mini" }
func (idModel) Stream(context.Context, llm.Request, llm.StreamHandler) (*llm.Response, error) {
	return nil, errors.New("not called")
}

// BenchmarkRunSpans is what tracing adds to a run of one model call: its two spans, started,
// ended and exported over OTLP/HTTP to a server that discards them. The batcher blocks instead
// of dropping spans, so the export's cost is in every operation (README, Tracing and metrics).
func BenchmarkRunSpans(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) }))
	defer srv.Close()
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(srv.URL+"/v1/traces"))
	if err != nil {
		b.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp, sdktrace.WithBlocking()))
	otel.SetTracerProvider(tp)
	defer func() { _ = tp.Shutdown(context.Background()) }()
	a := &Agent{ID: "bench", Name: "Bench", Provider: "openai", Model: idModel{}}
	res := &Result{FinishReason: "stop"}
	resp := &llm.Response{FinishReason: "stop"}
	b.ReportAllocs()
	for b.Loop() {
		ctx, run := a.startRun(context.Background(), "thread-1")
		_, chat := a.startChat(ctx)
		endChat(chat, resp, nil)
		endRun(run, res, nil)
	}
	if err := tp.ForceFlush(context.Background()); err != nil {
		b.Fatal(err)
	}
}
