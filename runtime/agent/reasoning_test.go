package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// Each step's reasoning streams first and ends before its tool call or text; the result keeps
// it per step and for the run, and the conversation the model sees next has none of it.
func TestReasoningPerStepNeverInTheConversation(t *testing.T) {
	client := &scriptedClient{steps: []llm.Response{
		{Reasoning: "I should echo. ", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "echo", Arguments: `{"say":"hi"}`}}, FinishReason: "tool_calls"},
		{Reasoning: "Now answer. ", Text: "It said hi.", FinishReason: "stop"},
	}}
	a := &Agent{ID: "a", Model: client, Tools: map[string]*tools.Tool{"echo": echoTool(t)}, ToolKeys: []string{"echo"}}
	var events []Event
	res, err := a.Run(context.Background(), Input{Messages: []llm.Message{{Role: "user", Content: "echo hi"}}},
		func(e Event) error { events = append(events, e); return nil })
	testutil.Check(t, err)
	want := "step reasoning-start reasoning reasoning-end call-start args call-end result step-end " +
		"step reasoning-start reasoning reasoning-end text-start text text-end step-end"
	if got := eventNames(events); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	if res.Reasoning != "I should echo. Now answer. " || res.Steps[0].Reasoning != "I should echo. " || res.Steps[1].Reasoning != "Now answer. " || res.Text != "It said hi." {
		t.Errorf("result: reasoning %q steps %q/%q text %q", res.Reasoning, res.Steps[0].Reasoning, res.Steps[1].Reasoning, res.Text)
	}
	for _, m := range append(client.seen[1].Messages, res.Messages...) {
		if strings.Contains(m.Content, "echo.") || strings.Contains(m.Content, "Now answer") {
			t.Errorf("reasoning in a message: %+v", m)
		}
	}
}

// Reasoning after the answer began opens no reasoning message (it would follow the text it
// led to); the result still has it.
func TestLateReasoningStaysInTheResult(t *testing.T) {
	h := &streamHandler{sink: func(Event) error { return nil }, msgID: "msg_1"}
	var got []EventType
	h.sink = func(e Event) error { got = append(got, e.Type); return nil }
	testutil.Check(t, h.OnText("Hi"))
	testutil.Check(t, h.OnReasoning("late"))
	testutil.Check(t, h.close())
	if len(got) != 3 || got[0] != EventTextStart || got[1] != EventTextDelta || got[2] != EventTextEnd {
		t.Errorf("events %v", got)
	}
}
