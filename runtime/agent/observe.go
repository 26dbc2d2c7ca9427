package agent

import (
	"context"

	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentry-dev/agentry/runtime/metrics"
)

// A server's own work for a run (recalling the thread, storing the turn, holding or resuming a
// run stopped for approval) belongs to the run: without this, a direct call carrying no
// traceparent would leave a trace of its own for the recall, one for the run and one for the
// store. BeginRun opens the run's invoke_agent span before that work; a Run or Resume on a
// context carrying it joins that span instead of opening another, and EndRun closes it. An
// agent run without BeginRun observes itself (observed).

// observation is a run begun by BeginRun. One request's goroutine uses it: no lock.
type observation struct {
	agent   *Agent
	span    trace.Span
	joined  bool
	res     *Result
	err     error
	outcome string // agentry_runs_total's, once a run joined
	failure string // error.type of the server's work around the run, the first one
	ended   bool
}

type observationKey struct{}

func observing(ctx context.Context) *observation {
	o, _ := ctx.Value(observationKey{}).(*observation)
	return o
}

// BeginRun opens the agent's run span on ctx, for work done around the run itself; the
// conversation may be unknown yet (a Run that joins names it). It does nothing when ctx already
// carries a begun run.
func (a *Agent) BeginRun(ctx context.Context, conversation string) context.Context {
	if observing(ctx) != nil {
		return ctx
	}
	ctx, span := a.startRun(ctx, conversation)
	return context.WithValue(ctx, observationKey{}, &observation{agent: a, span: span})
}

// HandOffRun gives the run begun on ctx to a goroutine that outlives the request (a run that
// goes on when its client leaves): the returned context carries it, EndRun on that context ends
// it, and EndRun or FailRun on ctx (the request's) no longer touch it.
func HandOffRun(ctx context.Context) context.Context {
	o := observing(ctx)
	if o == nil || o.ended {
		return ctx
	}
	moved := *o
	o.ended = true
	return context.WithValue(ctx, observationKey{}, &moved)
}

// FailRun marks the run begun on ctx as failed in the work around it, with errType as its
// error.type (a fixed vocabulary: never an error's text). Without a begun run it does nothing.
func FailRun(ctx context.Context, errType string) {
	if o := observing(ctx); o != nil && o.failure == "" {
		o.failure = errType
	}
}

// EndRun ends the run begun on ctx, if any: its span with the run's result and the first
// failure, and its count in agentry_runs_total when a run took place (a run whose turn could
// not be stored counts as an error).
func EndRun(ctx context.Context) {
	o := observing(ctx)
	if o == nil || o.ended {
		return
	}
	o.ended = true
	if o.err == nil && o.failure != "" {
		o.span.SetAttributes(semconv.ErrorTypeKey.String(o.failure))
		o.span.SetStatus(codes.Error, o.failure)
	}
	endRun(o.span, o.res, o.err)
	if o.joined {
		outcome := o.outcome
		if outcome == "ok" && o.failure != "" {
			outcome = "error"
		}
		metrics.Runs.WithLabelValues(o.agent.ID, outcome).Inc()
	}
}

// join runs fn inside the run begun on ctx, when it is this agent's and no run joined it yet.
func (o *observation) join(a *Agent, conversation string) bool {
	if o == nil || o.agent != a || o.joined || o.ended {
		return false
	}
	o.joined = true
	if conversation != "" {
		o.span.SetAttributes(semconv.GenAIConversationID(conversation))
	}
	return true
}

// runOutcome is agentry_runs_total's outcome of a run that returned err on ctx.
func runOutcome(ctx context.Context, err error) string {
	switch {
	case err == nil:
		return "ok"
	case ctx.Err() != nil:
		return "canceled"
	}
	return "error"
}
