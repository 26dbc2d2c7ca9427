package bridge

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/protocol/agui"
)

// A run's live frames reach only the sockets open while they are sent. A page that reloads
// mid-answer, or a socket that moved to another replica, asks for the agent call in flight
// (the hub's replay frame); the replica bridging the run sends it the call's events so far,
// compacted, in agent.replay frames, and the live frames go on after them. Only the call in
// flight is kept: an ended call's output is a stored message the page reads with the rest.

// Replay parts are sized to cross replicas in one notification (store.MaxBroadcast), with
// room for the envelope; a text longer than a piece is sent as several deltas.
const (
	replayPartBytes  = 6000
	replayPieceBytes = 1000 // JSON escapes a byte in at most 6: a piece alone stays under a part
)

// liveCall is what a plan relayed of its agent call in flight: the AG-UI events from the call's
// RUN_STARTED on, consecutive text deltas of one message (and argument deltas of one tool
// call) merged. mu also orders publishing: a replay goes out between two live frames, never
// across one.
type liveCall struct {
	mu     sync.Mutex
	relay  relay
	open   bool // a call is in flight (from its RUN_STARTED until its output is stored)
	over   bool // the call relayed more than maxOutput: it is not replayed (a gap is worse)
	size   int
	events []liveEvent
}

// liveEvent is one relayed event, or merged deltas (delta set, raw nil).
type liveEvent struct {
	raw   []byte
	typ   string // of merged deltas: TEXT_MESSAGE_CONTENT or TOOL_CALL_ARGS
	id    string // the message's or the tool call's
	delta *strings.Builder
}

// deltaOf is what the log reads of an event to merge it.
type deltaOf struct {
	Type       string `json:"type"`
	MessageID  string `json:"messageId"`
	ToolCallID string `json:"toolCallId"`
	Delta      string `json:"delta"`
}

// add keeps event (l.mu held).
func (l *liveCall) add(event []byte) {
	var ev deltaOf
	if json.Unmarshal(event, &ev) != nil {
		return
	}
	switch ev.Type {
	case agui.RunStarted:
		l.open, l.over, l.size, l.events = true, false, 0, nil
	case agui.RunFinished, agui.RunError:
		l.end()
		return
	}
	if !l.open || l.over {
		return
	}
	l.size += len(event)
	if l.size > maxOutput {
		l.over, l.events = true, nil
		return
	}
	id := ev.MessageID
	if ev.Type == agui.ToolCallArgs {
		id = ev.ToolCallID
	}
	if (ev.Type == agui.TextMessageContent || ev.Type == agui.ReasoningMessageContent || ev.Type == agui.ToolCallArgs) && id != "" {
		if n := len(l.events); n > 0 && l.events[n-1].typ == ev.Type && l.events[n-1].id == id {
			l.events[n-1].delta.WriteString(ev.Delta)
			return
		}
		d := &strings.Builder{}
		d.WriteString(ev.Delta)
		l.events = append(l.events, liveEvent{typ: ev.Type, id: id, delta: d})
		return
	}
	l.events = append(l.events, liveEvent{raw: bytes.Clone(event)})
}

// end forgets the call: its output is about to be stored (l.mu held).
func (l *liveCall) end() { l.open, l.over, l.size, l.events = false, false, 0, nil }

// replayParts encodes the kept events as agent.replay frames of at most about replayPartBytes
// each (l.mu held); none when no call is in flight or it is not replayable.
func (l *liveCall) replayParts(head map[string]string) [][]byte {
	if !l.open || l.over || len(l.events) == 0 {
		return nil
	}
	var events []json.RawMessage
	for _, e := range l.events {
		if e.raw != nil {
			events = append(events, e.raw)
			continue
		}
		for _, piece := range pieces(e.delta.String(), replayPieceBytes) {
			ev := map[string]string{"type": e.typ, "delta": piece}
			if e.typ == agui.ToolCallArgs {
				ev["toolCallId"] = e.id
			} else {
				ev["messageId"] = e.id
			}
			events = append(events, model.MustJSON(ev))
		}
	}
	var parts [][]json.RawMessage
	size := replayPartBytes
	for _, ev := range events {
		if size+len(ev) > replayPartBytes {
			parts = append(parts, nil)
			size = 0
		}
		parts[len(parts)-1] = append(parts[len(parts)-1], ev)
		size += len(ev) + 1
	}
	frames := make([][]byte, len(parts))
	for i, part := range parts {
		frames[i] = model.MustJSON(replayFrame{
			Type: "agent.replay", ConversationID: head["conversationId"], AgentID: head["agentId"], RunID: head["runId"],
			Part: i + 1, Parts: len(parts), Events: part,
		})
	}
	return frames
}

// replayFrame is one part of a replay: the SDK applies the events once it has every part.
type replayFrame struct {
	Type           string            `json:"type"`
	ConversationID string            `json:"conversationId"`
	AgentID        string            `json:"agentId"`
	RunID          string            `json:"runId"`
	Part           int               `json:"part"`
	Parts          int               `json:"parts"`
	Events         []json.RawMessage `json:"events"`
}

// pieces cuts s into pieces of at most n bytes, never inside a character.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}

// publish relays one AG-UI event of p's run to its conversation, and keeps it for replays.
func (b *Bridge) publish(p *Plan, event []byte) {
	if p.quiet {
		return
	}
	l := &p.live
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.relay.prefix == nil {
		l.relay = newRelay(p)
	}
	l.add(event)
	b.o.Publisher.Publish(p.run.ConversationID, l.relay.frame(event))
}

// endCall forgets p's call in flight before its output is stored: a replay after this point
// would show the answer beside its stored message.
func (b *Bridge) endCall(p *Plan) {
	p.live.mu.Lock()
	p.live.end()
	p.live.mu.Unlock()
}

// Replay sends, through send, the agent call in flight of the conversation's run when this
// replica bridges it (the hub's OnReplay); nothing otherwise.
func (b *Bridge) Replay(conversation string, send func(frame []byte)) {
	b.mu.Lock()
	p := b.running[conversation]
	b.mu.Unlock()
	if p == nil || p.quiet {
		return
	}
	p.live.mu.Lock()
	defer p.live.mu.Unlock()
	head := map[string]string{"conversationId": p.run.ConversationID, "agentId": p.cfg.AgentID, "runId": p.run.RunID}
	for _, f := range p.live.replayParts(head) {
		send(f)
	}
}

// tracked registers p as its conversation's run on this replica until the returned func.
func (b *Bridge) tracked(p *Plan) func() {
	b.mu.Lock()
	b.running[p.run.ConversationID] = p
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		if b.running[p.run.ConversationID] == p {
			delete(b.running, p.run.ConversationID)
		}
		b.mu.Unlock()
	}
}
