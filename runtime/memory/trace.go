package memory

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentry-dev/agentry/internal/platform/telemetry"
)

// Traced makes a store's reads and writes of a run spans ("memory recall", "memory save"):
// the backend, the agent and thread, how many messages; never their content.
func Traced(s Store) Store { return traced{s} }

type traced struct{ Store }

var spans = telemetry.NewTracer("github.com/agentry-dev/agentry/runtime/memory")

func tracer() trace.Tracer { return spans.Get() }

func (t traced) start(ctx context.Context, op, agentID, threadID string) (context.Context, trace.Span) {
	return tracer().Start(ctx, "memory "+op, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("agentry.memory.backend", t.Kind()), semconv.GenAIAgentID(agentID), semconv.GenAIConversationID(threadID)))
}

func end(span trace.Span, err error) {
	if err != nil {
		span.SetAttributes(semconv.ErrorTypeKey.String("memory_error"))
		span.SetStatus(codes.Error, "memory_error")
	}
	span.End()
}

func (t traced) Save(ctx context.Context, agentID, threadID, resourceID string, msgs []Message) (err error) {
	ctx, span := t.start(ctx, "save", agentID, threadID)
	span.SetAttributes(attribute.Int("agentry.memory.messages", len(msgs)))
	defer func() { end(span, err) }()
	return t.Store.Save(ctx, agentID, threadID, resourceID, msgs)
}

func (t traced) Recall(ctx context.Context, agentID, threadID, resourceID string, n int) (msgs []Message, err error) {
	ctx, span := t.start(ctx, "recall", agentID, threadID)
	defer func() {
		span.SetAttributes(attribute.Int("agentry.memory.messages", len(msgs)))
		end(span, err)
	}()
	return t.Store.Recall(ctx, agentID, threadID, resourceID, n)
}
