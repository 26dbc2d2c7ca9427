package bridge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/protocol/agui"
)

// TestLiveCallReplay: a long answer (multi-byte text, a tool call's arguments in pieces) is
// replayed in parts that each fit one notification between replicas, numbered, whose events
// rebuild exactly what was relayed; the call's end (its output about to be stored) and the next
// call's start forget it; a call larger than an answer may be is not replayed at all.
func TestLiveCallReplay(t *testing.T) {
	var l liveCall
	add := func(ev agui.Event) { l.add(model.MustJSON(ev)) }
	head := map[string]string{"conversationId": "c", "agentId": "chef", "runId": "r"}
	if parts := l.replayParts(head); parts != nil {
		t.Fatalf("before any call: %d parts", len(parts))
	}
	add(agui.Event{Type: agui.RunStarted})
	add(agui.Event{Type: agui.TextMessageStart, MessageID: "m1"})
	var want strings.Builder
	for i := range 4000 {
		d := "é漢 <b>" + string(rune('a'+i%26))
		want.WriteString(d)
		add(agui.Event{Type: agui.TextMessageContent, MessageID: "m1", Delta: d})
	}
	add(agui.Event{Type: agui.ToolCallStart, ToolCallID: "t1", ToolCallName: "lookup"})
	for _, d := range []string{`{"q":`, `"eggs"`, `}`} {
		add(agui.Event{Type: agui.ToolCallArgs, ToolCallID: "t1", Delta: d})
	}
	parts := l.replayParts(head)
	if len(parts) < 2 {
		t.Fatalf("%d parts for %d bytes of text", len(parts), want.Len())
	}
	var text, args strings.Builder
	var types []string
	for i, raw := range parts {
		if len(raw) > 7700 {
			t.Errorf("part %d is %d bytes: too large for one notification", i+1, len(raw))
		}
		var f replayFrame
		if err := json.Unmarshal(raw, &f); err != nil || f.Type != "agent.replay" || f.Part != i+1 || f.Parts != len(parts) || f.RunID != "r" || f.ConversationID != "c" {
			t.Fatalf("part %d: %s (%v)", i+1, raw[:min(len(raw), 200)], err)
		}
		for _, e := range f.Events {
			var ev agui.Event
			if err := json.Unmarshal(e, &ev); err != nil {
				t.Fatal(err)
			}
			if n := len(types); n == 0 || types[n-1] != ev.Type {
				types = append(types, ev.Type)
			}
			switch ev.Type {
			case agui.TextMessageContent:
				text.WriteString(ev.Delta)
			case agui.ToolCallArgs:
				args.WriteString(ev.Delta)
			}
		}
	}
	if text.String() != want.String() || args.String() != `{"q":"eggs"}` {
		t.Errorf("replayed text is %d bytes (want %d), args %q", text.Len(), want.Len(), args.String())
	}
	if got := strings.Join(types, " "); got != "RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TOOL_CALL_START TOOL_CALL_ARGS" {
		t.Errorf("replayed events: %s", got)
	}

	l.end()
	if parts := l.replayParts(head); parts != nil {
		t.Errorf("after the call ended: %d parts", len(parts))
	}
	add(agui.Event{Type: agui.TextMessageContent, MessageID: "m1", Delta: "late"})
	if parts := l.replayParts(head); parts != nil {
		t.Errorf("an event after the call ended was kept: %d parts", len(parts))
	}
	add(agui.Event{Type: agui.RunStarted})
	add(agui.Event{Type: agui.TextMessageContent, MessageID: "m2", Delta: strings.Repeat("x", maxOutput)})
	if parts := l.replayParts(head); parts != nil {
		t.Errorf("a call over the output bound: %d parts", len(parts))
	}
}
