package bridge

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentry-dev/agentry/internal/platform/telemetry"
)

// The bridge's run is an "invoke_agent <agent>" client span (the agent runs elsewhere), a child
// of the message that started it; every call to the agent carries its W3C traceparent, so the
// agent's own spans join the same trace. Names, ids and outcomes only: never message text,
// header values or the agent's URL (it may carry a key).
var spans = telemetry.NewTracer("github.com/agentry-dev/agentry/chat/bridge")

func tracer() trace.Tracer { return spans.Get() }

func (b *Bridge) startRun(p *Plan) (context.Context, trace.Span) {
	ctx := trace.ContextWithSpanContext(b.ctx, p.parent)
	ctx, span := tracer().Start(ctx, "invoke_agent "+p.cfg.AgentID, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		semconv.GenAIOperationNameInvokeAgent, semconv.GenAIAgentID(p.cfg.AgentID), semconv.GenAIAgentName(p.cfg.Name),
		semconv.GenAIConversationID(p.run.ConversationID), attribute.String("agentry.run.id", p.run.RunID),
		attribute.String("agentry.agent.protocol", string(p.cfg.Provider))))
	if sc := span.SpanContext(); sc.IsSampled() {
		p.traceID = sc.TraceID().String()
	}
	return ctx, span
}

func endRun(span trace.Span, rerr *runError) {
	if rerr != nil {
		span.SetAttributes(semconv.ErrorTypeKey.String(rerr.Code))
		span.SetStatus(codes.Error, rerr.Code)
	}
	span.End()
}

// inject puts the run's traceparent on a request to the agent.
func inject(ctx context.Context, h propagation.HeaderCarrier) {
	otel.GetTextMapPropagator().Inject(ctx, h)
}
