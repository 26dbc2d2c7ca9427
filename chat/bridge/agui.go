package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/agentry-dev/agentry/chat/model"
)

// streamEvent holds the AG-UI event fields the bridge acts on; the event itself is relayed
// as it came, so fields the bridge does not know still reach clients.
type streamEvent struct {
	Type            string          `json:"type"`
	MessageID       string          `json:"messageId"`
	Delta           string          `json:"delta"`
	ToolCallID      string          `json:"toolCallId"`
	ToolCallName    string          `json:"toolCallName"`
	ParentMessageID string          `json:"parentMessageId"`
	Content         json.RawMessage `json:"content"`
	Message         string          `json:"message"`
	Code            string          `json:"code"`
	Outcome         *runOutcome     `json:"outcome"`
}

// runOutcome is RUN_FINISHED's outcome: frontend calls left pending, or interrupts.
type runOutcome struct {
	Type               string      `json:"type"`
	PendingToolCallIDs []string    `json:"pendingToolCallIds"`
	Interrupts         []interrupt `json:"interrupts"`
}

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
	interrupts []interrupt
	size       int
	finished   bool
	// finish is the RUN_FINISHED frame, held back until the output is stored and the
	// conversation released: a client that sees the run end may send the next message at once.
	finish []byte
}

func newOutput() *output {
	return &output{byMsg: map[string]*entry{}, byCall: map[string]*call{}, results: map[string]bool{}}
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
	if parent == "" {
		parent = "tool-" + id
	}
	c := &call{ToolCall: model.ToolCall{ID: id, Name: name}}
	e := o.message(parent)
	e.calls = append(e.calls, c)
	o.byCall[id] = c
	return c
}

// apply folds one event into the output (the *_CHUNK forms included). It returns false for
// an event that ends the call.
func (o *output) apply(ev streamEvent) {
	o.size += len(ev.Delta) + len(ev.Content)
	switch ev.Type {
	case "TEXT_MESSAGE_START":
		o.message(ev.MessageID)
	case "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CHUNK":
		o.message(ev.MessageID).text.WriteString(ev.Delta)
	case "TOOL_CALL_START":
		o.startCall(ev.ToolCallID, ev.ToolCallName, ev.ParentMessageID)
	case "TOOL_CALL_CHUNK":
		id := ev.ToolCallID
		if id == "" && len(o.entries) > 0 {
			if e := o.entries[len(o.entries)-1]; len(e.calls) > 0 {
				id = e.calls[len(e.calls)-1].ID
			}
		}
		o.startCall(id, ev.ToolCallName, ev.ParentMessageID).args.WriteString(ev.Delta)
	case "TOOL_CALL_ARGS":
		if c := o.byCall[ev.ToolCallID]; c != nil {
			c.args.WriteString(ev.Delta)
		}
	case "TOOL_CALL_RESULT":
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
	case "RUN_FINISHED":
		o.finished = true
		if ev.Outcome != nil {
			o.pending = ev.Outcome.PendingToolCallIDs
			if ev.Outcome.Type == "interrupt" {
				o.interrupts = ev.Outcome.Interrupts
			}
		}
	}
}

// callAGUI posts in to the agent and relays its stream until RUN_FINISHED.
func (b *Bridge) callAGUI(ctx context.Context, p *Plan, url string, headers map[string]string, in runInput, actions map[string]model.FrontendAction) (*output, *runError) {
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
	defer res.Body.Close()
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "text/event-stream" {
		return nil, fail(model.RunErrContentType, fmt.Sprintf("it answered %s instead of an event stream (text/event-stream); check the Deployment URL", contentTypeOf(res)), nil)
	}

	out := newOutput()
	sc := bufio.NewScanner(&idleReader{r: res.Body, timer: idle, d: b.o.IdleTimeout})
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var data bytes.Buffer
	relay := newRelay(p)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) > 0 {
			if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				if data.Len() > 0 {
					data.WriteByte('\n')
				}
				data.Write(bytes.TrimPrefix(v, []byte(" ")))
			}
			continue // comments (keep-alives), event: and id: fields
		}
		if data.Len() == 0 {
			continue
		}
		raw := bytes.Clone(data.Bytes())
		data.Reset()
		var ev streamEvent
		if err := json.Unmarshal(raw, &ev); err != nil || ev.Type == "" {
			return out, fail(model.RunErrProtocol, "it sent an event that is not AG-UI (JSON with a type)", err)
		}
		if ev.Type == "RUN_ERROR" || ev.Type == "error" {
			msg := strings.TrimSpace(ev.Message)
			if msg == "" {
				msg = "no message"
			}
			return out, fail(model.RunErrAgent, "it reported an error: "+clip(msg, 300), nil)
		}
		out.apply(ev)
		if out.size > maxOutput {
			return out, fail(model.RunErrProtocol, fmt.Sprintf("its answer is larger than %d MiB", maxOutput>>20), nil)
		}
		if ev.Type == "TOOL_CALL_START" || ev.Type == "TOOL_CALL_CHUNK" {
			if a, ok := actions[ev.ToolCallName]; ok {
				raw = withAction(raw, a)
			}
		}
		if out.finished {
			out.finish = relay.frame(raw)
			return out, nil
		}
		b.publish(p, relay.frame(raw))
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return out, fail(model.RunErrProtocol, fmt.Sprintf("it sent an event larger than %d MiB", maxLine>>20), err)
		}
		return out, b.transportFailure(ctx, err)
	}
	if ctx.Err() != nil {
		return out, b.transportFailure(ctx, ctx.Err())
	}
	return out, fail(model.RunErrProtocol, "its stream ended before the run finished (no RUN_FINISHED)", nil)
}

// post sends the request and checks the status.
func (b *Bridge) post(ctx context.Context, p *Plan, url string, headers map[string]string, body []byte, accept string) (*http.Response, *runError) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fail(model.RunErrUnreachable, "its Deployment URL is not valid", err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	inject(ctx, propagation.HeaderCarrier(req.Header))
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
