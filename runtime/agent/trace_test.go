package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// A run is one invoke_agent span holding a chat span per model call and an execute_tool span
// per tool call (the frontend action's handoff included), with the GenAI attributes and
// token counts, and nothing of the conversation's text or the tools' arguments.
func TestRunSpans(t *testing.T) {
	rec := testutil.RecordSpans(t)
	client := &scriptedClient{steps: []llm.Response{
		{Text: "Let me check. ", ToolCalls: []llm.ToolCall{
			{ID: "c1", Name: "echo", Arguments: `{"say":"secret-word"}`},
			{ID: "c2", Name: "broken", Arguments: `{}`},
		}, FinishReason: "tool_calls", Usage: llm.Usage{PromptTokens: 11, CompletionTokens: 7, TotalTokens: 18}},
		{Text: "Done.", ToolCalls: []llm.ToolCall{{ID: "c3", Name: "show-card", Arguments: `{"title":"x"}`}}, FinishReason: "tool_calls",
			Usage: llm.Usage{PromptTokens: 20, CompletionTokens: 3, TotalTokens: 23}},
	}}
	a := &Agent{ID: "chef", Name: "Chef", Provider: "openai", Model: client, Tools: map[string]*tools.Tool{"echo": echoTool(t)}, ToolKeys: []string{"echo"},
		FrontendActions: []FrontendAction{{Name: "show-card", Description: "shows a card"}}}
	if _, err := a.Run(context.Background(), Input{Messages: []llm.Message{{Role: "user", Content: "my private question"}}, Conversation: "thread-1"}, nil); err != nil {
		t.Fatal(err)
	}
	spans := rec.Ended()
	byName := map[string]sdktrace.ReadOnlySpan{}
	var names []string
	for _, s := range spans {
		byName[s.Name()] = s
		names = append(names, s.Name())
	}
	run := byName["invoke_agent chef"]
	if run == nil {
		t.Fatalf("no run span in %q", names)
	}
	if got := len(spans); got != 6 { // run, 2 chats, echo, broken, show-card
		t.Errorf("spans %q", names)
	}
	for _, s := range spans {
		if s != run && s.Parent().SpanID() != run.SpanContext().SpanID() {
			t.Errorf("%s is not a child of the run", s.Name())
		}
		for k, v := range testutil.SpanAttrs(s) {
			for _, secret := range []string{"secret-word", "my private question", "Let me check"} {
				if strings.Contains(v, secret) {
					t.Errorf("%s: attribute %s holds %q", s.Name(), k, secret)
				}
			}
		}
	}
	ra := testutil.SpanAttrs(run)
	for k, want := range map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.id": "chef", "gen_ai.provider.name": "openai",
		"gen_ai.request.model": "test", "gen_ai.conversation.id": "thread-1", "gen_ai.usage.input_tokens": "31", "gen_ai.usage.output_tokens": "10"} {
		if ra[k] != want {
			t.Errorf("run %s = %q, want %q", k, ra[k], want)
		}
	}
	chats := 0
	for _, s := range spans {
		if s.Name() == "chat test" {
			chats++
			if a := testutil.SpanAttrs(s); a["gen_ai.operation.name"] != "chat" || a["gen_ai.response.finish_reasons"] != `["tool_calls"]` {
				t.Errorf("chat span %v", a)
			}
		}
	}
	if chats != 2 {
		t.Errorf("%d chat spans", chats)
	}
	echo, broken, card := byName["execute_tool echo"], byName["execute_tool broken"], byName["execute_tool show-card"]
	if echo == nil || broken == nil || card == nil {
		t.Fatalf("tool spans missing in %q", names)
	}
	if a := testutil.SpanAttrs(echo); a["gen_ai.tool.call.id"] != "c1" || a["agentry.tool.kind"] != "cel" || echo.Status().Code == codes.Error {
		t.Errorf("echo span %v %v", a, echo.Status())
	}
	if broken.Status().Code != codes.Error || testutil.SpanAttrs(broken)["error.type"] != "tool_not_found" {
		t.Errorf("an unknown tool's span must be an error: %v %v", testutil.SpanAttrs(broken), broken.Status())
	}
	if testutil.SpanAttrs(card)["agentry.tool.kind"] != "frontend" {
		t.Errorf("frontend span %v", testutil.SpanAttrs(card))
	}
}

// A failed model call marks the chat and the run as errors.
func TestFailedModelCallSpans(t *testing.T) {
	rec := testutil.RecordSpans(t)
	a := &Agent{ID: "chef", Model: &scriptedClient{}}
	if _, err := a.Run(context.Background(), Input{Messages: []llm.Message{{Role: "user", Content: "hi"}}}, nil); err == nil {
		t.Fatal("the run should fail")
	}
	var got []string
	for _, s := range rec.Ended() {
		got = append(got, fmt.Sprintf("%s:%s:%s", s.Name(), s.Status().Code, testutil.SpanAttrs(s)["error.type"]))
	}
	if strings.Join(got, " ") != "chat test:Error:error invoke_agent chef:Error:error" {
		t.Errorf("spans %q", got)
	}
}

// Prompts and completions go on chat spans only when the operator opts in.
func TestContentIsRecordedOnlyWhenAskedFor(t *testing.T) {
	for _, opt := range []string{"", "true"} {
		t.Run("capture="+opt, func(t *testing.T) {
			t.Setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", opt)
			rec := testutil.RecordSpans(t)
			a := &Agent{ID: "chef", Model: &scriptedClient{steps: []llm.Response{{Text: "Use olive oil.", FinishReason: "stop"}}}}
			if _, err := a.Run(context.Background(), Input{Messages: []llm.Message{{Role: "user", Content: "butter?"}}}, nil); err != nil {
				t.Fatal(err)
			}
			var chat map[string]string
			for _, s := range rec.Ended() {
				if s.Name() == "chat test" {
					chat = testutil.SpanAttrs(s)
				}
			}
			in, out := chat["gen_ai.input.messages"], chat["gen_ai.output.messages"]
			if opt == "" && (in != "" || out != "") {
				t.Errorf("content recorded without the opt-in: %q %q", in, out)
			}
			if opt == "true" && (!strings.Contains(in, "butter?") || !strings.Contains(out, "Use olive oil.")) {
				t.Errorf("content not recorded with the opt-in: %q %q", in, out)
			}
		})
	}
}
