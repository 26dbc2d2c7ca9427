package controllers

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/agentry-dev/agentry/internal/platform/telemetry"
)

var spans = telemetry.NewTracer("github.com/agentry-dev/agentry/controllers")

// startAgentSpan starts the span of one Agent reconcile, "reconcile Agent" (exported when the
// operator exports traces): which Agent, and whether the reconcile failed. end takes the
// reconcile's error.
func startAgentSpan(ctx context.Context, req ctrl.Request) (_ context.Context, end func(error)) {
	ctx, span := spans.Get().Start(ctx, "reconcile Agent", trace.WithAttributes(
		attribute.String("k8s.namespace.name", req.Namespace), attribute.String("agentry.agent", req.Name)))
	return ctx, func(err error) {
		if err != nil {
			span.SetStatus(codes.Error, "reconcile failed")
		}
		span.End()
	}
}
