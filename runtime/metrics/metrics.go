// Package metrics holds the runtime's Prometheus metrics on a registry of its own.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Registry is served at /metrics.
var Registry = prometheus.NewRegistry()

var (
	// HTTPRequests counts HTTP requests by agent, route and status code.
	HTTPRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agentry_http_requests_total",
		Help: "HTTP requests by agent, route and status code.",
	}, []string{"agent", "route", "code"})

	// HTTPDuration observes request durations (for streams: until the stream ends).
	HTTPDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "agentry_http_request_duration_seconds",
		Help:    "HTTP request duration by agent and route; streams count until they end.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 12),
	}, []string{"agent", "route"})

	// ModelRequests counts model steps by agent and outcome (ok, error, canceled).
	ModelRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agentry_model_requests_total",
		Help: "Model requests (steps) by agent and outcome.",
	}, []string{"agent", "outcome"})

	// ModelDuration observes how long one model step takes.
	ModelDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "agentry_model_request_duration_seconds",
		Help:    "Model request (step) duration by agent.",
		Buckets: prometheus.ExponentialBuckets(0.01, 2.5, 12),
	}, []string{"agent"})

	// ModelTokens counts tokens by agent, model and kind (prompt, completion).
	ModelTokens = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agentry_model_tokens_total",
		Help: "Tokens used by agent, model and kind (prompt, completion).",
	}, []string{"agent", "model", "kind"})

	// Runs counts agent runs (generate, stream, AG-UI) by agent and outcome (ok, error,
	// canceled).
	Runs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agentry_runs_total",
		Help: "Agent runs by agent and outcome (ok, error, canceled).",
	}, []string{"agent", "outcome"})

	// ToolCalls counts tool executions by agent, tool and outcome (ok, invalid_input, error,
	// frontend, held, declined). The tool label is a configured tool's or FrontendAction's name, or "client"
	// (a request's own tools) or "unknown" (a name the model made up): names that come from
	// outside never become label values, so a client cannot create series.
	ToolCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agentry_tool_calls_total",
		Help: "Tool calls by agent, tool (configured name, or client / unknown) and outcome.",
	}, []string{"agent", "tool", "outcome"})

	// RunSteps observes the steps a run took.
	RunSteps = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "agentry_run_steps",
		Help:    "Model steps per run by agent.",
		Buckets: []float64{1, 2, 3, 5, 8, 13, 21, 34, 55, 100},
	}, []string{"agent"})

	// ActiveStreams is the number of open streaming responses.
	ActiveStreams = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "agentry_active_streams",
		Help: "Streaming responses in progress by agent.",
	}, []string{"agent"})
)

func init() {
	Registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		HTTPRequests, HTTPDuration, ModelRequests, ModelDuration, ModelTokens, Runs, ToolCalls, RunSteps, ActiveStreams,
	)
}
