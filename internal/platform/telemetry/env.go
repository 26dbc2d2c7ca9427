package telemetry

// The standard OTEL_* variables the SDK reads, as the operator sets them on runtime pods.
const (
	EndpointEnv           = "OTEL_EXPORTER_OTLP_ENDPOINT"
	HeadersEnv            = "OTEL_EXPORTER_OTLP_HEADERS"
	ServiceNameEnv        = "OTEL_SERVICE_NAME"
	ResourceAttributesEnv = "OTEL_RESOURCE_ATTRIBUTES"
	SamplerEnv            = "OTEL_TRACES_SAMPLER"
	SamplerArgEnv         = "OTEL_TRACES_SAMPLER_ARG"
)
