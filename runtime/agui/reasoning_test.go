package agui

import (
	"testing"

	wire "github.com/agentry-dev/agentry/internal/protocol/agui"
	"github.com/agentry-dev/agentry/runtime/agent"
)

// A step's reasoning maps to one span holding one reasoning message, both named by an id that
// is not the step's text message id (AG-UI keeps them as separate messages).
func TestMapperReasoning(t *testing.T) {
	m := &Mapper{ThreadID: "t", RunID: "r"}
	var got []wire.Event
	for _, e := range []agent.Event{
		{Type: agent.EventReasoningStart, MessageID: "msg_1"},
		{Type: agent.EventReasoningDelta, MessageID: "msg_1", Delta: "hm"},
		{Type: agent.EventReasoningDelta, MessageID: "msg_1", Delta: ""}, // nothing to send
		{Type: agent.EventReasoningEnd, MessageID: "msg_1"},
		{Type: agent.EventTextStart, MessageID: "msg_1"},
	} {
		got = append(got, m.Map(e)...)
	}
	want := []struct{ typ, role, delta string }{
		{wire.ReasoningStart, "", ""}, {wire.ReasoningMessageStart, "reasoning", ""}, {wire.ReasoningMessageContent, "", "hm"},
		{wire.ReasoningMessageEnd, "", ""}, {wire.ReasoningEnd, "", ""}, {wire.TextMessageStart, "assistant", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("%d events: %+v", len(got), got)
	}
	id := got[0].MessageID
	if id == "" || id == "msg_1" {
		t.Fatalf("reasoning id %q", id)
	}
	for i, w := range want {
		ev := got[i]
		if ev.Type != w.typ || ev.Role != w.role || ev.Delta != w.delta || (i < 5 && ev.MessageID != id) {
			t.Errorf("event %d: %+v, want %+v with messageId %s", i, ev, w, id)
		}
	}
}
