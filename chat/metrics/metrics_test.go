package metrics

import (
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentry-dev/agentry/chat/hub"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// series gathers reg as "name{l=v,…} value" lines.
func series(t *testing.T, reg *prometheus.Registry) []string {
	t.Helper()
	mfs, err := reg.Gather()
	testutil.Check(t, err)
	var out []string
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			var v float64
			switch {
			case m.Counter != nil:
				v = m.GetCounter().GetValue()
			case m.Gauge != nil:
				v = m.GetGauge().GetValue()
			case m.Histogram != nil:
				v = float64(m.GetHistogram().GetSampleCount())
			}
			out = append(out, mf.GetName()+"{"+strings.Join(labels, ",")+"} "+strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	sort.Strings(out)
	return out
}

func TestRunOutcomes(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	testutil.Check(t, err)
	testutil.Check(t, RegisterHub(reg, func() hub.Stats { return hub.Stats{Sockets: 3, Dropped: 2, Delivered: 7, Pruned: 11} }))
	m.AgentRun("", time.Second)
	m.AgentRun(model.RunErrIdleTimeout, time.Second)
	m.AgentRun(model.RunErrShuttingDown, time.Second)
	m.AgentRun(model.RunErrUnreachable, time.Second)
	m.AgentRun("SOMETHING_NEW", time.Second) // never a new label value
	m.Request("BREW", "/chat/v1/me", 418, time.Millisecond, false)
	m.MessagesStored("agent", 2)
	var nilM *Metrics
	nilM.AgentRun("", 0) // a nil *Metrics records nothing
	nilM.MessagesStored("user", 1)
	got := strings.Join(series(t, reg), "\n")
	for _, want := range []string{
		"agentry_chat_agent_runs_total{code=,outcome=ok} 1",
		"agentry_chat_agent_runs_total{code=AGENT_IDLE_TIMEOUT,outcome=timeout} 1",
		"agentry_chat_agent_runs_total{code=SERVICE_SHUTTING_DOWN,outcome=canceled} 1",
		"agentry_chat_agent_runs_total{code=AGENT_UNREACHABLE,outcome=error} 1",
		"agentry_chat_agent_runs_total{code=other,outcome=error} 1",
		"agentry_chat_agent_run_duration_seconds{outcome=error} 2",
		"agentry_chat_http_requests_total{code=418,method=other,route=/chat/v1/me} 1",
		"agentry_chat_messages_stored_total{source=agent} 2",
		"agentry_chat_sockets{} 3",
		"agentry_chat_slow_consumers_closed_total{} 2",
		"agentry_chat_frames_sent_total{kind=event} 7",
		"agentry_chat_events_pruned_total{} 11",
	} {
		if !strings.Contains(got+"\n", want+"\n") {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}
