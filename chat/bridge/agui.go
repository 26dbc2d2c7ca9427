package bridge

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	neturl "net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/protocol/agui"
	"github.com/agentry-dev/agentry/internal/protocol/sse"
)

// maxLine bounds one SSE line (an event); maxOutput bounds what one call may accumulate.
const (
	maxLine   = 1 << 20
	maxOutput = 4 << 20
)

// entry is one message of a call's output, in arrival order: an assistant message (text and
// tool calls) or a tool result.
type entry struct {
	messageID string
	text      strings.Builder
	calls     []*call
	reasoning *model.Reasoning
	result    *model.ToolResultData
}

type call struct {
	model.ToolCall
	args strings.Builder
}

// output accumulates one call's stream.
type output struct {
	entries []*entry
	byMsg   map[string]*entry
	byCall  map[string]*call
	results map[string]bool
	pending []string // from RUN_FINISHED's outcome
	// interrupts are the tool calls the run stopped for (RUN_FINISHED outcome interrupt).
	interrupts []agui.Interrupt
	size       int
	finished   bool
	// finish is the RUN_FINISHED event, held back until the output is stored and the
	// conversation released: a client that sees the run end may send the next message at once.
	finish []byte
	// usage is what the call's RUN_FINISHED says it used (recordUsage stores it).
	usage []agui.TokenUsage
	// thought is the reasoning received since the last assistant message began: it belongs to
	// the next one (models reason, then answer), or to the last one when none follows.
	thought thought
	// now is the clock reasoning durations are measured with (time.Now; tests set it).
	now func() time.Time
}

// thought is reasoning on its way to the message it precedes.
type thought struct {
	text          strings.Builder
	started, done time.Time
	// untimed: the reasoning arrived all at once (a generate answer), so it has no duration.
	untimed bool
}

func (t *thought) add(delta string, now time.Time) {
	if t.started.IsZero() {
		t.started = now
	}
	t.text.WriteString(delta)
}

// end marks the reasoning complete (REASONING_END, or the answer starting without one).
func (t *thought) end(now time.Time) {
	if !t.started.IsZero() && t.done.IsZero() {
		t.done = now
	}
}

// take hands over the reasoning so far, if any, and starts afresh.
func (t *thought) take(now time.Time) *model.Reasoning {
	if t.started.IsZero() {
		return nil
	}
	t.end(now)
	r := &model.Reasoning{Text: t.text.String()}
	if !t.untimed {
		// At least 1 ms, so a timed reasoning always says so (0 is "unknown").
		r.DurationMs = max(1, t.done.Sub(t.started).Milliseconds())
	}
	*t = thought{}
	if strings.TrimSpace(r.Text) == "" {
		return nil
	}
	return r
}

func newOutput() *output {
	return &output{byMsg: map[string]*entry{}, byCall: map[string]*call{}, results: map[string]bool{}, now: time.Now}
}

// attachThought gives the reasoning received so far to e, the message it preceded.
func (o *output) attachThought(e *entry) {
	if r := o.thought.take(o.now()); r != nil {
		if e.reasoning != nil { // a second span before the same message: one reasoning
			r.Text, r.DurationMs = e.reasoning.Text+"\n\n"+r.Text, e.reasoning.DurationMs+r.DurationMs
		}
		e.reasoning = r
	}
}

// settleThought gives reasoning no message followed to the call's last assistant message.
func (o *output) settleThought() {
	for i := len(o.entries) - 1; i >= 0; i-- {
		if o.entries[i].result == nil {
			o.attachThought(o.entries[i])
			return
		}
	}
}

func (o *output) message(id string) *entry {
	if id == "" && len(o.entries) > 0 {
		for i := len(o.entries) - 1; i >= 0; i-- {
			if o.entries[i].result == nil {
				return o.entries[i]
			}
		}
	}
	if e := o.byMsg[id]; e != nil && id != "" {
		return e
	}
	e := &entry{messageID: id}
	o.entries = append(o.entries, e)
	if id != "" {
		o.byMsg[id] = e
	}
	return e
}

func (o *output) startCall(id, name, parent string) *call {
	if c := o.byCall[id]; c != nil {
		return c
	}
	parent = cmp.Or(parent, "tool-"+id)
	c := &call{ToolCall: model.ToolCall{ID: id, Name: name}}
	e := o.message(parent)
	e.calls = append(e.calls, c)
	o.byCall[id] = c
	return c
}

// apply folds one event into the output (the *_CHUNK forms included). It returns false for
// an event that ends the call.
func (o *output) apply(ev *agui.Event) {
	o.size += len(ev.Delta) + len(ev.Content)
	switch ev.Type {
	case agui.ReasoningStart, agui.ReasoningMessageStart:
		o.thought.add("", o.now())
	case agui.ReasoningMessageContent, agui.ReasoningMessageChunk:
		o.thought.add(ev.Delta, o.now())
	case agui.ReasoningEnd:
		o.thought.end(o.now())
	case agui.TextMessageStart:
		o.attachThought(o.message(ev.MessageID))
	case agui.TextMessageContent, agui.TextMessageChunk:
		e := o.message(ev.MessageID)
		o.attachThought(e)
		e.text.WriteString(ev.Delta)
	case agui.ToolCallStart:
		o.startCall(ev.ToolCallID, ev.ToolCallName, ev.ParentMessageID)
		o.attachThought(o.message(cmp.Or(ev.ParentMessageID, "tool-"+ev.ToolCallID)))
	case agui.ToolCallChunk:
		id := ev.ToolCallID
		if id == "" && len(o.entries) > 0 {
			if e := o.entries[len(o.entries)-1]; len(e.calls) > 0 {
				id = e.calls[len(e.calls)-1].ID
			}
		}
		o.startCall(id, ev.ToolCallName, ev.ParentMessageID).args.WriteString(ev.Delta)
	case agui.ToolCallArgs:
		if c := o.byCall[ev.ToolCallID]; c != nil {
			c.args.WriteString(ev.Delta)
		}
	case agui.ToolCallResult:
		var content string
		if json.Unmarshal(ev.Content, &content) != nil {
			content = string(ev.Content)
		}
		name := ""
		if c := o.byCall[ev.ToolCallID]; c != nil {
			name = c.Name
		}
		o.results[ev.ToolCallID] = true
		o.entries = append(o.entries, &entry{result: &model.ToolResultData{ToolCallID: ev.ToolCallID, Name: name, Result: content}})
	case agui.RunFinished:
		o.settleThought()
		o.finished = true
		o.usage = ev.Usage
		if ev.Outcome != nil {
			o.pending = ev.Outcome.PendingToolCallIDs
			if ev.Outcome.Type == agui.OutcomeInterrupt {
				o.interrupts = ev.Outcome.Interrupts
			}
		}
	}
}

// callAGUI posts in to the agent and relays its stream until RUN_FINISHED.
func (b *Bridge) callAGUI(ctx context.Context, p *Plan, url string, headers map[string]string, in agui.RunAgentInput, actions map[string]model.FrontendAction) (*output, *runError) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, fail(model.RunErrProtocol, "the conversation could not be encoded", err)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(b.o.IdleTimeout, func() { cancel(errIdle) })
	defer idle.Stop()

	res, rerr := b.post(ctx, p, url, headers, body, "text/event-stream")
	if rerr != nil {
		return nil, rerr
	}
	return b.streamAGUI(ctx, p, url, in.RunID, headers, res, idle, actions)
}

// rejoinAGUI takes over an AG-UI call another replica was relaying: its events from the first
// (clients start the live answer over at RUN_STARTED), then on as callAGUI.
func (b *Bridge) rejoinAGUI(ctx context.Context, p *Plan, url, runID string, headers map[string]string, actions map[string]model.FrontendAction) (*output, *runError) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(b.o.IdleTimeout, func() { cancel(errIdle) })
	defer idle.Stop()
	res, err := b.reattach(ctx, p, url, runID, headers, 0)
	if err != nil {
		return nil, fail(model.RunErrShuttingDown, "the chat service restarted during the run and the agent no longer has it; send your message again", fmt.Errorf("%w: %w", errCallGone, err))
	}
	return b.streamAGUI(ctx, p, url, runID, headers, res, idle, actions)
}

// streamAGUI relays a call's stream until RUN_FINISHED, re-attaching when it drops.
func (b *Bridge) streamAGUI(ctx context.Context, p *Plan, url, runID string, headers map[string]string, res *http.Response, idle *time.Timer, actions map[string]model.FrontendAction) (*output, *runError) {
	out := newOutput()
	received := 0
	for attempt := 0; ; attempt++ {
		broke, rerr := b.readAGUI(ctx, p, res, idle, out, actions, &received)
		res.Body.Close()
		if !broke || ctx.Err() != nil || attempt == maxReattach {
			return out, rerr
		}
		// The stream dropped mid-run (a network hop, a proxy): the run goes on in the runtime,
		// which keeps its events; read the rest after the ones received.
		b.log.Info("agent stream dropped; re-attaching", "agent", p.cfg.AgentID, "run", runID, "after", received, "cause", rerr.Reason)
		next, err := b.reattach(ctx, p, url, runID, headers, received)
		if err != nil {
			return out, rerr // no way back in (not an Agentry runtime, or the run is gone)
		}
		res = next
	}
}

// runInterrupted is the RUN_ERROR code Agentry's runtime ends a run with whose replica went away.
const runInterrupted = "RUN_INTERRUPTED"

// errCallGone: a call taken over could not be re-attached to.
var errCallGone = errors.New("the agent call cannot be re-attached to")

// maxReattach bounds the re-attaches of one call.
const maxReattach = 3

// reattach asks the runtime for the run's events after the received ones:
// GET {endpoint}/runs/{runId} with Last-Event-ID (Agentry's runtime keeps a run's events for
// 10 minutes after it ended).
func (b *Bridge) reattach(ctx context.Context, p *Plan, url, runID string, headers map[string]string, received int) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(url, "/")+"/runs/"+neturl.PathEscape(runID), nil)
	if err != nil {
		return nil, err
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Last-Event-ID", strconv.Itoa(received))
	inject(ctx, propagation.HeaderCarrier(req.Header))
	client := b.o.Client
	if p.cfg.AgentRef != "" {
		client = b.o.ClusterClient
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK || !hasMediaType(res, "text/event-stream") {
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
		res.Body.Close()
		return nil, fmt.Errorf("re-attach answered %d", res.StatusCode)
	}
	return res, nil
}

// readAGUI reads one response's events into out, relaying them, counting them in received.
// broke: the stream ended before the run did (a transport failure, or no RUN_FINISHED), which a
// re-attach may mend; any other error is the run's.
func (b *Bridge) readAGUI(ctx context.Context, p *Plan, res *http.Response, idle *time.Timer, out *output, actions map[string]model.FrontendAction, received *int) (broke bool, _ *runError) {
	if !hasMediaType(res, "text/event-stream") {
		return false, fail(model.RunErrContentType, fmt.Sprintf("it answered %s instead of an event stream (text/event-stream); check the Deployment URL", contentTypeOf(res)), nil)
	}
	events := sse.NewReader(&idleReader{r: res.Body, timer: idle, d: b.o.IdleTimeout}, maxLine)
	for {
		raw, err := events.Next()
		if err != nil {
			return !errors.Is(err, sse.ErrTooLong), b.streamEnded(ctx, err)
		}
		*received++
		var ev agui.Event
		if err := json.Unmarshal(raw, &ev); err != nil || ev.Type == "" {
			return false, fail(model.RunErrProtocol, "it sent an event that is not AG-UI (JSON with a type)", err)
		}
		if ev.Type == agui.RunError && ev.Code == runInterrupted {
			// The runtime's replica running the call went away (killed, node lost): a try again
			// asks a live one.
			return false, fail(model.RunErrInterrupted, "its answer was interrupted: the agent stopped before it finished", nil)
		}
		if ev.Type == agui.RunError || ev.Type == agui.ErrorType {
			msg := strings.TrimSpace(ev.Message)
			msg = cmp.Or(msg, "no message")
			return false, fail(model.RunErrAgent, "it reported an error: "+clip(msg, 300), nil)
		}
		out.apply(&ev)
		if out.size > maxOutput {
			return false, fail(model.RunErrProtocol, fmt.Sprintf("its answer is larger than %d MiB", maxOutput>>20), nil)
		}
		if ev.Type == agui.ToolCallStart || ev.Type == agui.ToolCallChunk {
			if a, ok := actions[ev.ToolCallName]; ok {
				raw = withAction(raw, a)
			}
		}
		if out.finished {
			out.finish = raw
			return false, nil
		}
		b.publish(p, raw)
	}
}

// streamEnded explains why a stream stopped before RUN_FINISHED.
func (b *Bridge) streamEnded(ctx context.Context, err error) *runError {
	switch {
	case errors.Is(err, sse.ErrTooLong):
		return fail(model.RunErrProtocol, fmt.Sprintf("it sent an event larger than %d MiB", maxLine>>20), err)
	case !sse.IsEOF(err):
		return b.transportFailure(ctx, err)
	case ctx.Err() != nil:
		return b.transportFailure(ctx, ctx.Err())
	}
	return fail(model.RunErrProtocol, "its stream ended before the run finished (no RUN_FINISHED)", nil)
}

// post sends the request and checks the status.
func (b *Bridge) post(ctx context.Context, p *Plan, url string, headers map[string]string, body []byte, accept string) (*http.Response, *runError) {
	req, err := newRequest(ctx, url, headers, body, accept)
	if err != nil {
		return nil, fail(model.RunErrUnreachable, "its Deployment URL is not valid", err)
	}
	client := b.o.Client
	if p.cfg.AgentRef != "" {
		client = b.o.ClusterClient // the operator's in-cluster endpoint, not an admin's URL
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, b.transportFailure(ctx, err)
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
		res.Body.Close()
		return nil, statusFailure(res)
	}
	return res, nil
}

// newRequest is a call of an agent: the JSON body with the agent's headers and the trace
// context, asking for accept.
func newRequest(ctx context.Context, url string, headers map[string]string, body []byte, accept string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	inject(ctx, propagation.HeaderCarrier(req.Header))
	return req, nil
}

// hasMediaType says whether the answer's content type is mt (parameters such as charset aside).
func hasMediaType(res *http.Response, mt string) bool {
	got, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	return got == mt
}

func contentTypeOf(res *http.Response) string {
	ct := res.Header.Get("Content-Type")
	if ct == "" {
		return "no content type"
	}
	return "content type " + clip(ct, 80)
}

// withAction adds the frontend action's display name and execution text to a tool call
// start, so a client shows them without knowing the agent's configuration.
func withAction(raw []byte, a model.FrontendAction) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	m["displayName"] = model.MustJSON(a.DisplayName)
	m["executionText"] = model.MustJSON(a.ExecutionText)
	m["frontend"] = json.RawMessage("true")
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}

// relay encodes the frames of one run: {"type":"agent","conversationId","agentId","runId",
// "event":<the AG-UI event>}. The prefix is built once; each frame costs one copy.
type relay struct{ prefix []byte }

func newRelay(p *Plan) relay {
	head := model.MustJSON(map[string]string{"type": "agent", "conversationId": p.run.ConversationID, "agentId": p.cfg.AgentID, "runId": p.run.RunID})
	prefix := append(bytes.Clone(head[:len(head)-1]), []byte(`,"event":`)...)
	return relay{prefix: prefix}
}

func (r relay) frame(event []byte) []byte {
	f := make([]byte, 0, len(r.prefix)+len(event)+1)
	f = append(f, r.prefix...)
	f = append(f, event...)
	return append(f, '}')
}
