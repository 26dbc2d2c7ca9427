package telemetry

// The standard OTEL_* variables: the ones the operator sets on runtime pods, and the ones
// Enabled and the exporter read.
const (
	EndpointEnv           = "OTEL_EXPORTER_OTLP_ENDPOINT"
	HeadersEnv            = "OTEL_EXPORTER_OTLP_HEADERS"
	ServiceNameEnv        = "OTEL_SERVICE_NAME"
	ResourceAttributesEnv = "OTEL_RESOURCE_ATTRIBUTES"
	SamplerEnv            = "OTEL_TRACES_SAMPLER"
	SamplerArgEnv         = "OTEL_TRACES_SAMPLER_ARG"

	// CaptureContentEnv opts in to recording prompt and completion text on spans (the GenAI
	// conventions' variable): off by default, as conversations are the users' data.
	CaptureContentEnv = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

	sdkDisabledEnv    = "OTEL_SDK_DISABLED"
	exporterEnv       = "OTEL_TRACES_EXPORTER"
	tracesEndpointEnv = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	protocolEnv       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	tracesProtocolEnv = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
)
