package agui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	wire "github.com/agentry-dev/agentry/internal/protocol/agui"
	"github.com/agentry-dev/agentry/internal/protocol/sse"
	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/llm"
)

func TestMapperEnvelopeAndOmittedFields(t *testing.T) {
	m := &Mapper{ThreadID: "t1", RunID: "r1", Now: func() int64 { return 1700000000123 }}
	var all []wire.Event
	all = append(all, m.Started())
	all = append(all, m.Map(agent.Event{Type: agent.EventTextStart, MessageID: "m1"})...)
	all = append(all, m.Map(agent.Event{Type: agent.EventTextDelta, MessageID: "m1", Delta: ""})...) // dropped
	all = append(all, m.Map(agent.Event{Type: agent.EventTextDelta, MessageID: "m1", Delta: "hi"})...)
	all = append(all, m.Map(agent.Event{Type: agent.EventToolResult, ToolCall: llm.ToolCall{ID: "c1"}, Result: json.RawMessage(`{}`)})...)
	all = append(all, m.Finished([]llm.ToolCall{{ID: "c9"}}, llm.Usage{}, "openai", "m"))
	all = append(all, m.Failed("")...)
	if len(all) != 7 {
		t.Fatalf("%d events", len(all))
	}
	for _, ev := range all {
		frame, err := json.Marshal(ev)
		testutil.NoError(t, err)
		s := string(sse.AppendData(nil, frame))
		if !strings.HasPrefix(s, "data: {") || !strings.HasSuffix(s, "}\n\n") || strings.Count(s, "\n") != 2 {
			t.Errorf("frame %q", s)
		}
		if strings.Contains(s, "null") || !strings.Contains(s, `"runId":"r1"`) || !strings.Contains(s, `"threadId":"t1"`) || !strings.Contains(s, `"timestamp":1700000000123`) {
			t.Errorf("envelope: %s", s)
		}
	}
	var content string
	if json.Unmarshal(all[3].Content, &content) != nil || content != "{}" {
		t.Errorf("tool result content: %+v", all[3])
	}
	if all[4].Outcome.PendingToolCallIDs[0] != "c9" || all[4].Usage != nil {
		t.Errorf("finished: %+v", all[4])
	}
	if all[5].Type != "error" || all[5].Message != ProcessingFailed || all[6].Type != wire.RunError || all[6].Message != ProcessingFailed {
		t.Errorf("failed: %+v %+v", all[5], all[6])
	}
}
