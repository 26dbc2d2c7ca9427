package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// scriptedClient replays llm.Responses through the StreamHandler the way a streaming model
// would: text in fragments, then each tool call's start and argument fragments.
type scriptedClient struct {
	steps []llm.Response
	calls int
	seen  []llm.Request
}

func (c *scriptedClient) ModelID() string { return "test" }

func (c *scriptedClient) Stream(ctx context.Context, req llm.Request, h llm.StreamHandler) (*llm.Response, error) {
	c.seen = append(c.seen, req)
	if c.calls >= len(c.steps) {
		return nil, errors.New("no more scripted steps")
	}
	r := c.steps[c.calls]
	c.calls++
	if rh, ok := h.(llm.ReasoningHandler); ok {
		for _, w := range strings.SplitAfter(r.Reasoning, " ") {
			if w != "" {
				if err := rh.OnReasoning(w); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, w := range strings.SplitAfter(r.Text, " ") {
		if w != "" {
			if err := h.OnText(w); err != nil {
				return nil, err
			}
		}
	}
	for i, tc := range r.ToolCalls {
		if err := h.OnToolCallStart(i, tc.ID, tc.Name); err != nil {
			return nil, err
		}
		half := len(tc.Arguments) / 2
		for _, part := range []string{tc.Arguments[:half], tc.Arguments[half:]} {
			if err := h.OnToolCallArgs(i, part); err != nil {
				return nil, err
			}
		}
	}
	return &r, nil
}

func echoTool(t *testing.T) *tools.Tool {
	t.Helper()
	tool, errs := tools.Compile(&v1alpha1.Tool{
		ObjectMeta: metav1.ObjectMeta{Name: "echo"},
		Spec: v1alpha1.ToolSpec{
			ID: "echo", Description: "echoes",
			InputSchema: &runtime.RawExtension{Raw: []byte(`{"type":"object","required":["say"],"properties":{"say":{"type":"string"}}}`)},
			Execute:     v1alpha1.ToolExecute{CEL: `{"said": input.say}`},
		},
	}, tools.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return tool
}

func eventNames(events []Event) string {
	names := map[EventType]string{
		EventStepStarted: "step", EventReasoningStart: "reasoning-start", EventReasoningDelta: "reasoning", EventReasoningEnd: "reasoning-end", EventTextStart: "text-start", EventTextDelta: "text", EventTextEnd: "text-end",
		EventToolCallStart: "call-start", EventToolCallArgs: "args", EventToolCallEnd: "call-end",
		EventToolResult: "result", EventStepFinished: "step-end",
	}
	var out []string
	for i, e := range events {
		if i > 0 && e.Type == events[i-1].Type && (e.Type == EventTextDelta || e.Type == EventToolCallArgs || e.Type == EventReasoningDelta) {
			continue
		}
		out = append(out, names[e.Type])
	}
	return strings.Join(out, " ")
}

func TestRunEventOrderWithServerAndFrontendTools(t *testing.T) {
	client := &scriptedClient{steps: []llm.Response{
		{Text: "Let me check. ", ToolCalls: []llm.ToolCall{
			{ID: "c1", Name: "echo", Arguments: `{"say":"hi"}`},
			{ID: "c2", Name: "show-card", Arguments: `{"title":"x"}`},
		}, FinishReason: "tool_calls"},
	}}
	a := &Agent{ID: "a", Model: client, Tools: map[string]*tools.Tool{"echo": echoTool(t)}, ToolKeys: []string{"echo"}, Instructions: "be nice",
		FrontendActions: []FrontendAction{{Name: "show-card", Description: "shows a card"}}}
	var events []Event
	res, err := a.Run(context.Background(), Input{Messages: []llm.Message{{Role: "user", Content: "hello"}}},
		func(e Event) error { events = append(events, e); return nil })
	testutil.Check(t, err)
	want := "step text-start text text-end call-start args call-end call-start args call-end result step-end"
	if got := eventNames(events); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	for _, e := range events {
		if e.Type == EventToolCallStart && e.ToolCall.Name == "show-card" && !e.Frontend {
			t.Error("show-card must be marked as a frontend call")
		}
		if e.Type == EventToolCallEnd && e.ToolCall.ID == "c1" && e.ToolCall.Arguments != `{"say":"hi"}` {
			t.Errorf("call end must carry the complete arguments: %q", e.ToolCall.Arguments)
		}
		if e.Type == EventToolResult && (e.ToolCall.ID != "c1" || string(e.Result) != `{"said":"hi"}`) {
			t.Errorf("result event: %+v", e)
		}
	}
	if client.calls != 1 {
		t.Errorf("a pending frontend call must end the run after the step; model called %d times", client.calls)
	}
	if len(res.PendingToolCalls) != 1 || res.PendingToolCalls[0].ID != "c2" || res.FinishReason != "tool-calls" {
		t.Errorf("pending: %+v finish %s", res.PendingToolCalls, res.FinishReason)
	}
	if len(res.Messages) != 2 || res.Messages[0].Role != "assistant" || res.Messages[1].Role != "tool" {
		t.Errorf("messages: %+v", res.Messages)
	}
	offered := client.seen[0].Tools
	if len(offered) != 2 || offered[0].Name != "echo" || offered[1].Name != "show-card" {
		t.Errorf("offered: %+v", offered)
	}
	if client.seen[0].Messages[0].Role != "system" {
		t.Error("instructions must be the system message")
	}
}

func TestClientToolsMergeButServerToolsWin(t *testing.T) {
	client := &scriptedClient{steps: []llm.Response{{Text: "ok", FinishReason: "stop"}}}
	a := &Agent{ID: "a", Model: client, Tools: map[string]*tools.Tool{"echo": echoTool(t)}, ToolKeys: []string{"echo"}}
	_, err := a.Run(context.Background(), Input{
		Messages:    []llm.Message{{Role: "user", Content: "x"}},
		ClientTools: []tools.Definition{{Name: "echo", Description: "imposter"}, {Name: "confetti", Description: "party"}},
	}, nil)
	testutil.Check(t, err)
	var names []string
	for _, d := range client.seen[0].Tools {
		names = append(names, d.Name+":"+d.Description)
	}
	if got := strings.Join(names, ","); got != "echo:echoes,confetti:party" {
		t.Errorf("offered %s", got)
	}
}

func TestSinkErrorAbortsTheRun(t *testing.T) {
	client := &scriptedClient{steps: []llm.Response{{Text: "one two three", FinishReason: "stop"}}}
	a := &Agent{ID: "a", Model: client}
	n := 0
	_, err := a.Run(context.Background(), Input{Messages: []llm.Message{{Role: "user", Content: "x"}}}, func(e Event) error {
		n++
		if e.Type == EventTextDelta {
			return fmt.Errorf("client went away")
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "client went away") {
		t.Errorf("err %v", err)
	}
}

func TestUnknownToolIsAnErrorResult(t *testing.T) {
	client := &scriptedClient{steps: []llm.Response{
		{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "made-up", Arguments: `{}`}}, FinishReason: "tool_calls"},
		{Text: "sorry", FinishReason: "stop"},
	}}
	a := &Agent{ID: "a", Model: client}
	res, err := a.Run(context.Background(), Input{Messages: []llm.Message{{Role: "user", Content: "x"}}}, nil)
	testutil.Check(t, err)
	r := res.ToolResults()
	var body map[string]string
	_ = json.Unmarshal(r[0].Result, &body)
	if len(r) != 1 || !r[0].IsError || !strings.Contains(body["error"], "not available") || res.Text != "sorry" {
		t.Errorf("%+v", res)
	}
}
