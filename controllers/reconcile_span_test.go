package controllers

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// isReconcileOf reports a "reconcile Agent" span of the Agent ns/name.
func isReconcileOf(s sdktrace.ReadOnlySpan, ns, name string) bool {
	a := testutil.SpanAttrs(s)
	return s.Name() == "reconcile Agent" && a["agentry.agent"] == name && a["k8s.namespace.name"] == ns
}

// reconciledSince waits until a reconcile of the Agent that started after since has ended and
// none of its reconciles is in flight, and returns the ended reconciles.
func reconciledSince(t *testing.T, rec *tracetest.SpanRecorder, ns, name string, since time.Time) []sdktrace.ReadOnlySpan {
	t.Helper()
	var ended []sdktrace.ReadOnlySpan
	eventually(t, fmt.Sprintf("a reconcile of %s/%s since %s", ns, name, since.Format(time.StampMilli)), func() error {
		ended = nil
		done, after := map[trace.SpanID]bool{}, false
		for _, s := range rec.Ended() {
			if isReconcileOf(s, ns, name) {
				ended, done[s.SpanContext().SpanID()] = append(ended, s), true
				after = after || s.StartTime().After(since)
			}
		}
		for _, s := range rec.Started() {
			if isReconcileOf(s, ns, name) && !done[s.SpanContext().SpanID()] {
				return errors.New("a reconcile is in flight")
			}
		}
		if !after {
			return errors.New("none started since")
		}
		return nil
	})
	return ended
}

// With a tracer provider installed (agentry operator with OTEL_* set), every reconcile of an
// Agent is a "reconcile Agent" span naming its namespace and name.
func TestReconcileSpans(t *testing.T) {
	rec := testutil.RecordSpans(t)
	const ns = "t-trace"
	start := time.Now()
	create(t, ns, agentDoc("traced", "  model: {name: m}"))
	for _, s := range reconciledSince(t, rec, ns, "traced", start) {
		if s.Status().Code == codes.Error {
			t.Errorf("a reconcile that succeeded is an error span: %v", s.Status())
		}
	}
}
