// Package metrics holds the chat service's Prometheus metrics. They are registered on a
// registry the caller passes (agentry chat serves its own on --metrics-addr; agentry dev adds
// them to the runtime's /metrics), never on the global one. A nil *Metrics records nothing, so
// tests and callers without metrics pass nil.
package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentry-dev/agentry/chat/hub"
	"github.com/agentry-dev/agentry/chat/model"
)

// Metrics records what the API and the agent bridge do; the hub's counters are read at scrape
// time (RegisterHub).
type Metrics struct {
	requests        *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec
	messagesStored  *prometheus.CounterVec
	agentRuns       *prometheus.CounterVec
	agentRunTime    *prometheus.HistogramVec
}

// New registers the API's and the bridge's metrics on reg.
func New(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agentry_chat_http_requests_total",
			Help: "Chat REST requests by method, route template and status code.",
		}, []string{"method", "route", "code"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "agentry_chat_http_request_duration_seconds",
			Help:    "Chat REST request latency by method and route template (the WebSocket is left out).",
			Buckets: prometheus.ExponentialBuckets(0.002, 2.5, 11),
		}, []string{"method", "route"}),
		messagesStored: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agentry_chat_messages_stored_total",
			Help: "Messages this replica stored, by source (user: REST; agent: the agent bridge).",
		}, []string{"source"}),
		agentRuns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agentry_chat_agent_runs_total",
			Help: "Agent runs by outcome (ok, error, timeout, canceled) and failure code (AGENT_…; empty when ok).",
		}, []string{"outcome", "code"}),
		agentRunTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "agentry_chat_agent_run_duration_seconds",
			Help:    "Agent run duration (frontend action waits included) by outcome.",
			Buckets: prometheus.ExponentialBuckets(0.05, 2.5, 11),
		}, []string{"outcome"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.requestDuration, m.messagesStored, m.agentRuns, m.agentRunTime} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Request records one REST request. route is the route template (never the raw path), or
// "other" for an unmatched one.
func (m *Metrics) Request(method, route string, status int, d time.Duration, socket bool) {
	if m == nil {
		return
	}
	switch method {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
	default:
		method = "other"
	}
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	if !socket {
		m.requestDuration.WithLabelValues(method, route).Observe(d.Seconds())
	}
}

// MessagesStored counts n messages stored by source ("user" or "agent").
func (m *Metrics) MessagesStored(source string, n int) {
	if m == nil || n <= 0 {
		return
	}
	m.messagesStored.WithLabelValues(source).Add(float64(n))
}

// runCodes bounds the code label to the catalogue.
var runCodes = map[string]bool{
	model.RunErrUnreachable: true, model.RunErrTLS: true, model.RunErrUnauthorized: true, model.RunErrHTTP: true,
	model.RunErrContentType: true, model.RunErrAgent: true, model.RunErrIdleTimeout: true, model.RunErrRunTimeout: true,
	model.RunErrProtocol: true, model.RunErrNotReady: true, model.RunErrShuttingDown: true, model.RunErrTooManyActions: true,
}

// Outcome classifies a run's failure code ("" for success).
func Outcome(code string) string {
	switch code {
	case "":
		return "ok"
	case model.RunErrIdleTimeout, model.RunErrRunTimeout:
		return "timeout"
	case model.RunErrShuttingDown:
		return "canceled"
	default:
		return "error"
	}
}

// AgentRun records a finished run: code is its failure code, "" when it succeeded.
func (m *Metrics) AgentRun(code string, d time.Duration) {
	if m == nil {
		return
	}
	if code != "" && !runCodes[code] {
		code = "other"
	}
	outcome := Outcome(code)
	m.agentRuns.WithLabelValues(outcome, code).Inc()
	m.agentRunTime.WithLabelValues(outcome).Observe(d.Seconds())
}

// RegisterHub exposes the hub's counters, read when Prometheus scrapes (the hub keeps them as
// atomics on its hot path).
func RegisterHub(reg prometheus.Registerer, stats func() hub.Stats) error {
	return reg.Register(&hubCollector{stats: stats})
}

var (
	descSockets = prometheus.NewDesc("agentry_chat_sockets", "Open, authenticated WebSockets on this replica.", nil, nil)
	descFrames  = prometheus.NewDesc("agentry_chat_frames_sent_total",
		"Frames sent to sockets by kind: event (stored events written, replay included), reset, typing and agent (ephemeral frames queued).", []string{"kind"}, nil)
	descReplayed = prometheus.NewDesc("agentry_chat_events_replayed_total", "Events replayed to sockets that resumed.", nil, nil)
	descPruned   = prometheus.NewDesc("agentry_chat_events_pruned_total", "Events this replica deleted as older than the retention.", nil, nil)
	descSlow     = prometheus.NewDesc("agentry_chat_slow_consumers_closed_total", "Sockets closed with 4008 because their send queue filled.", nil, nil)
	descEvicted  = prometheus.NewDesc("agentry_chat_sockets_evicted_total", "Sockets closed with 4009 because their user opened more than the per-user limit.", nil, nil)
	descDropped  = prometheus.NewDesc("agentry_chat_broadcast_dropped_total",
		"Ephemeral frames (typing, agent events) not relayed between replicas: not sent (queue full, too large, or the store failed) or let go on arrival (receiving buffer full).", nil, nil)
)

type hubCollector struct{ stats func() hub.Stats }

func (c *hubCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descSockets, descFrames, descReplayed, descPruned, descSlow, descEvicted, descDropped} {
		ch <- d
	}
}

func (c *hubCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	ch <- prometheus.MustNewConstMetric(descSockets, prometheus.GaugeValue, float64(s.Sockets))
	ch <- prometheus.MustNewConstMetric(descFrames, prometheus.CounterValue, float64(s.Delivered), "event")
	ch <- prometheus.MustNewConstMetric(descFrames, prometheus.CounterValue, float64(s.Resets), "reset")
	ch <- prometheus.MustNewConstMetric(descFrames, prometheus.CounterValue, float64(s.Typing), "typing")
	ch <- prometheus.MustNewConstMetric(descFrames, prometheus.CounterValue, float64(s.Published), "agent")
	ch <- prometheus.MustNewConstMetric(descReplayed, prometheus.CounterValue, float64(s.Replayed))
	ch <- prometheus.MustNewConstMetric(descPruned, prometheus.CounterValue, float64(s.Pruned))
	ch <- prometheus.MustNewConstMetric(descSlow, prometheus.CounterValue, float64(s.Dropped))
	ch <- prometheus.MustNewConstMetric(descEvicted, prometheus.CounterValue, float64(s.Evicted))
	ch <- prometheus.MustNewConstMetric(descDropped, prometheus.CounterValue, float64(s.BroadcastDropped))
}
