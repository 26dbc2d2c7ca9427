// Package telemetry sets up OpenTelemetry tracing from the standard OTEL_* environment
// variables: off (the global no-op provider, nothing measurable added) unless an OTLP endpoint
// or OTEL_TRACES_EXPORTER=otlp is set; OTLP over HTTP/protobuf (the only
// OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL taken); sampling, resource and headers as the SDK reads them
// (OTEL_TRACES_SAMPLER[_ARG], OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
// OTEL_EXPORTER_OTLP_[TRACES_]HEADERS). Propagation is W3C trace context and baggage.
package telemetry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// Enabled reports whether the environment asks for trace export.
func Enabled(getenv func(string) string) bool {
	if v := strings.TrimSpace(getenv(sdkDisabledEnv)); strings.EqualFold(v, "true") {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(getenv(exporterEnv))) {
	case "none":
		return false
	case "otlp":
		return true
	}
	return getenv(EndpointEnv) != "" || getenv(tracesEndpointEnv) != ""
}

// CaptureContent reports whether prompt and completion text may go on spans.
func CaptureContent(getenv func(string) string) bool {
	return strings.EqualFold(strings.TrimSpace(getenv(CaptureContentEnv)), "true")
}

// Setup installs a tracer provider exporting over OTLP when the environment asks for it, and
// the W3C propagators either way. service names the process when OTEL_SERVICE_NAME does not.
// The returned shutdown flushes what is buffered (bounded by ctx).
func Setup(ctx context.Context, service, version string) (shutdown func(context.Context) error, err error) {
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	if !Enabled(os.Getenv) {
		return func(context.Context) error { return nil }, nil
	}
	exp, err := exporter(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to create the OTLP trace exporter: %w", err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewWithAttributes(semconv.SchemaURL,
		semconv.ServiceName(service), semconv.ServiceVersion(version)))
	if err != nil && !errors.Is(err, resource.ErrSchemaURLConflict) {
		return nil, fmt.Errorf("failed to describe the service for traces: %w", err)
	}
	// The environment (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) wins over the defaults.
	if env, err := resource.New(ctx, resource.WithFromEnv()); err == nil {
		if merged, err := resource.Merge(res, env); err == nil {
			res = merged
		}
	}
	// The sampler is the SDK's reading of OTEL_TRACES_SAMPLER (parent-based always-on by default).
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(2*time.Second)), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	return tp.Shutdown, nil
}

func exporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	protocol := cmp.Or(os.Getenv(tracesProtocolEnv), os.Getenv(protocolEnv))
	// gRPC is not offered: every collector takes OTLP over HTTP (port 4318), and the gRPC
	// exporter's client would grow every agent pod for nothing a collector needs.
	switch strings.ToLower(strings.TrimSpace(protocol)) {
	case "", "http/protobuf":
		return otlptracehttp.New(ctx)
	default:
		return nil, fmt.Errorf(protocolEnv+" %q is not supported: use http/protobuf (the collector's port 4318)", protocol)
	}
}
