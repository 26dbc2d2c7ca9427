package controllers

import (
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// With a tracer provider installed (agentry operator with OTEL_* set), every reconcile of an
// Agent is a "reconcile Agent" span naming its namespace and name.
func TestReconcileSpans(t *testing.T) {
	rec := testutil.RecordSpans(t)

	const ns = "t-trace"
	create(t, ns, `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: traced}
spec:
  model: {name: m}
`)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, s := range rec.Ended() {
			if s.Name() != "reconcile Agent" {
				continue
			}
			a := testutil.SpanAttrs(s)
			if a["agentry.agent"] != "traced" || a["k8s.namespace.name"] != ns {
				continue
			}
			if s.Status().Code == codes.Error {
				t.Errorf("a reconcile that succeeded is an error span: %v", s.Status())
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no reconcile span for %s/traced among %d spans", ns, len(rec.Ended()))
}
