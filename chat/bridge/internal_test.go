package bridge

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/protocol/agui"
)

func TestMention(t *testing.T) {
	for text, want := range map[string][]string{
		"@chef What can I use instead of butter?":   {"chef"},
		"What can I use instead of butter, @chef?":  {"chef"},
		"<@uid:chef> What can I use instead of it?": {"chef"},
		"(@chef) and <@uid:sous-chef_2> both":       {"chef", "sous-chef_2"},
		"line one\n@chef on line two":               {"chef"},
		"mail@chef.com knows":                       nil,
		"write to a_b@chef or x-y@chef":             nil,
		"<@chef> is not the SDK's form":             nil,
		"@ chef":                                    nil,
		"no mention at all":                         nil,
	} {
		var got []string
		for _, m := range mention.FindAllStringSubmatch(text, 5) {
			got = append(got, m[1]+m[2])
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("mentions in %q = %q, want %q", text, got, want)
		}
	}
}

func applyAll(evs ...agui.Event) *output {
	o := newOutput()
	for _, ev := range evs {
		o.apply(&ev)
	}
	return o
}

// describe renders an output as "id: text [call(args)…] | result(call)=…" per entry.
func describe(o *output) string {
	var parts []string
	for _, e := range o.entries {
		if e.result != nil {
			parts = append(parts, "result("+e.result.ToolCallID+","+e.result.Name+")="+e.result.Result)
			continue
		}
		s := e.messageID + ": " + e.text.String()
		for _, c := range e.calls {
			s += " [" + c.ID + " " + c.Name + "(" + c.args.String() + ")]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " | ")
}

func TestOutputApply(t *testing.T) {
	t.Run("chunks", func(t *testing.T) {
		o := applyAll(
			agui.Event{Type: "TEXT_MESSAGE_CHUNK", MessageID: "m1", Delta: "Let me "},
			agui.Event{Type: "TEXT_MESSAGE_CHUNK", Delta: "look."}, // continues m1
			agui.Event{Type: "TOOL_CALL_CHUNK", ToolCallID: "c1", ToolCallName: "show-card", ParentMessageID: "m1", Delta: `{"title":`},
			agui.Event{Type: "TOOL_CALL_CHUNK", Delta: `"Omelette"`}, // continues c1
			agui.Event{Type: "TOOL_CALL_CHUNK", ToolCallID: "c1", Delta: `}`},
			agui.Event{Type: "TOOL_CALL_CHUNK", ToolCallID: "c2", ToolCallName: "timer", ParentMessageID: "m1", Delta: `{"min":5}`},
			agui.Event{Type: "TOOL_CALL_CHUNK", ToolCallID: "c3", ToolCallName: "lonely", Delta: `{}`}, // no parent: its own message
			agui.Event{Type: "RUN_FINISHED"},
		)
		want := `m1: Let me look. [c1 show-card({"title":"Omelette"})] [c2 timer({"min":5})] | tool-c3:  [c3 lonely({})]`
		if got := describe(o); got != want {
			t.Errorf("output\n got %s\nwant %s", got, want)
		}
		if !o.finished {
			t.Error("RUN_FINISHED did not finish the output")
		}
	})
	t.Run("events", func(t *testing.T) {
		content, _ := json.Marshal(`{"substitute":"oil"}`)
		o := applyAll(
			agui.Event{Type: "TEXT_MESSAGE_START", MessageID: "a"},
			agui.Event{Type: "TOOL_CALL_START", ToolCallID: "c1", ToolCallName: "suggest", ParentMessageID: "a"},
			agui.Event{Type: "TOOL_CALL_ARGS", ToolCallID: "c1", Delta: `{"ingredient":`},
			agui.Event{Type: "TOOL_CALL_ARGS", ToolCallID: "c1", Delta: `"butter"}`},
			agui.Event{Type: "TOOL_CALL_ARGS", ToolCallID: "unknown", Delta: `ignored`},
			agui.Event{Type: "TOOL_CALL_END", ToolCallID: "c1"},
			agui.Event{Type: "TOOL_CALL_RESULT", ToolCallID: "c1", Content: content},
			agui.Event{Type: "TEXT_MESSAGE_START", MessageID: "b"},
			agui.Event{Type: "TEXT_MESSAGE_CONTENT", MessageID: "b", Delta: "Try "},
			agui.Event{Type: "TEXT_MESSAGE_CONTENT", MessageID: "b", Delta: "oil."},
			agui.Event{Type: "TOOL_CALL_START", ToolCallID: "c2", ToolCallName: "show-card"}, // a frontend call, no result
			agui.Event{Type: "RUN_FINISHED", Outcome: &agui.Outcome{PendingToolCallIDs: []string{"c2"}}},
		)
		want := `a:  [c1 suggest({"ingredient":"butter"})] | result(c1,suggest)={"substitute":"oil"} | b: Try oil. | tool-c2:  [c2 show-card()]`
		if got := describe(o); got != want {
			t.Errorf("output\n got %s\nwant %s", got, want)
		}
		if !o.results["c1"] || o.results["c2"] {
			t.Errorf("results %v, want c1 only", o.results)
		}
		if !reflect.DeepEqual(o.pending, []string{"c2"}) {
			t.Errorf("pending %v", o.pending)
		}
	})
	t.Run("size", func(t *testing.T) {
		o := applyAll(agui.Event{Type: "TEXT_MESSAGE_CONTENT", MessageID: "m", Delta: strings.Repeat("x", 10)},
			agui.Event{Type: "TOOL_CALL_RESULT", ToolCallID: "c", Content: json.RawMessage(`"12345"`)})
		if o.size != 10+7 {
			t.Errorf("size %d, want 17", o.size)
		}
	})
}

func TestToAGUI(t *testing.T) {
	now := time.Now()
	msg := func(id int64, sender, category, typ, text string, data any) model.Message {
		m := model.Message{ID: id, Sender: sender, Category: category, Type: typ, Text: text}
		if data != nil {
			m.Data = model.MustJSON(data)
		}
		return m
	}
	deleted := msg(3, "alice", model.CategoryMessage, model.TypeText, "", nil)
	deleted.DeletedAt = &now
	image := msg(4, "bob", model.CategoryMessage, model.TypeImage, "", nil)
	image.Attachment = &model.Attachment{Name: "cake.png"}
	msgs := []model.Message{
		msg(1, "alice", model.CategoryMessage, model.TypeText, "I have eggs.", nil),
		msg(2, "alice", model.CategoryAction, "groupMember", "bob joined", nil),
		deleted,
		image,
		msg(5, "chef", model.CategoryAgentic, model.TypeAssistant, "Let me look.", model.AssistantData{AgentID: "chef",
			ToolCalls: []model.ToolCall{{ID: "c1", Name: "recipe", Arguments: `{"ingredients":["eggs"]}`}}}),
		msg(6, "chef", model.CategoryAgentic, model.TypeToolResult, "", model.ToolResultData{AgentID: "chef", ToolCallID: "c1", Result: `{"title":"Omelette"}`}),
		msg(7, "alice", model.CategoryAgentic, model.TypeToolResult, "", model.ToolResultData{AgentID: "chef", ToolCallID: "c2", Error: "not run in time"}),
		msg(8, "sous", model.CategoryAgentic, model.TypeToolResult, "", model.ToolResultData{AgentID: "sous", ToolCallID: "s1", Result: "{}"}),
		msg(9, "chef", model.CategoryAgentic, model.TypeAgentError, "Chef could not answer.", model.AgentErrorData{AgentID: "chef", Code: model.RunErrHTTP}),
		msg(10, "sous", model.CategoryAgentic, model.TypeAssistant, "Use oil.", model.AssistantData{AgentID: "sous"}),
		msg(11, "chef", model.CategoryAgentic, model.TypeAssistant, "", model.AssistantData{AgentID: "chef"}),
		msg(12, "chef", model.CategoryMessage, model.TypeText, "Welcome!", nil),
		msg(13, "alice", model.CategoryCustom, "location", "", map[string]int{"lat": 1}),
		// A call waiting for approval has no result: neither it nor the approval notes are sent.
		msg(14, "chef", model.CategoryAgentic, model.TypeAssistant, "", model.AssistantData{AgentID: "chef",
			ToolCalls: []model.ToolCall{{ID: "c9", Name: "refund", Arguments: `{}`}}}),
		msg(15, "chef", model.CategoryAgentic, model.TypeApprovalRequest, "Chef asks to run refund.", model.ApprovalData{}),
		msg(16, "chef", model.CategoryAgentic, model.TypeApprovalDecision, "bob declined refund.", model.ApprovalData{}),
	}
	call := agui.ToolCall{ID: "c1", Type: "function", Function: agui.FunctionCall{Name: "recipe", Arguments: `{"ingredients":["eggs"]}`}}
	tail := []agui.Message{
		{ID: "chat-5", Role: "assistant", Content: agui.Text("Let me look."), ToolCalls: []agui.ToolCall{call}},
		{ID: "chat-6", Role: "tool", ToolCallID: "c1", Content: agui.Text(`{"title":"Omelette"}`)},
		{ID: "chat-7", Role: "tool", ToolCallID: "c2", Content: agui.Text(`{"error":"not run in time"}`), Error: "not run in time"},
		{ID: "chat-10", Role: "user", Name: "sous", Content: agui.Text("sous: Use oil.")},
		{ID: "chat-12", Role: "assistant", Content: agui.Text("Welcome!")},
	}
	oneToOne := append([]agui.Message{
		{ID: "chat-1", Role: "user", Content: agui.Text("I have eggs.")},
		{ID: "chat-4", Role: "user", Content: agui.Text("[image: cake.png]")},
	}, tail...)
	if got := toAGUI("chef", false, msgs); !reflect.DeepEqual(got, oneToOne) {
		t.Errorf("one-to-one:\n got %s\nwant %s", model.MustJSON(got), model.MustJSON(oneToOne))
	}
	group := append([]agui.Message{
		{ID: "chat-1", Role: "user", Name: "alice", Content: agui.Text("alice: I have eggs.")},
		{ID: "chat-4", Role: "user", Name: "bob", Content: agui.Text("bob: [image: cake.png]")},
	}, tail...)
	if got := toAGUI("chef", true, msgs); !reflect.DeepEqual(got, group) {
		t.Errorf("group:\n got %s\nwant %s", model.MustJSON(got), model.MustJSON(group))
	}
	if got := toAGUI("chef", false, nil); got == nil || len(got) != 0 {
		t.Errorf("no messages: %#v, want an empty list", got)
	}
}

func TestParseList(t *testing.T) {
	long := strings.Repeat("é", 250)
	for _, c := range []struct {
		name, text string
		n          int
		want       []string
	}{
		{"json", `["Sounds good", "Not now", "Tell me more", "Maybe"]`, 3, []string{"Sounds good", "Not now", "Tell me more"}},
		{"fenced json", "Here you go:\n```json\n[\"Yes\", \"No\"]\n```\nEnjoy!", 3, []string{"Yes", "No"}},
		{"bullets", "- Sure\n* Maybe later\n• \"Never\"\n\n", 3, []string{"Sure", "Maybe later", "Never"}},
		{"numbered", "1. First\n2) Second\n10. Tenth", 5, []string{"First", "Second", "Tenth"}},
		{"dedupe", "- Yes\n- Yes\n-  Yes \n- No", 3, []string{"Yes", "No"}},
		{"dedupe json", `["a", "a", " ", "b"]`, 3, []string{"a", "b"}},
		{"limit", "one\ntwo\nthree\nfour", 2, []string{"one", "two"}},
		{"brackets in prose", "Use [this]\nor [that]", 3, []string{"Use [this]", "or [that]"}},
		{"fence without json", "```\nHi there\n```", 3, []string{"Hi there"}},
		{"clipped", "- " + long, 3, []string{strings.Repeat("é", 200) + "…"}},
		{"empty", "  \n\n", 3, []string{}},
	} {
		if got := ParseList(c.text, c.n); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: ParseList(%q, %d) = %q, want %q", c.name, c.text, c.n, got, c.want)
		}
	}
}

// TestChallengeDescription: the reason of a Bearer challenge reaches the person only when it is
// plain words; anything else (markup, control characters, no challenge) leaves it out.
func TestChallengeDescription(t *testing.T) {
	for h, want := range map[string]string{
		`Bearer realm="agentry", error="invalid_token", error_description="the token has expired"`: "the token has expired",
		`bearer error_description="wrong audience"`:                                                "wrong audience",
		`Bearer realm="agentry"`:                                      "",
		`Basic realm="x", error_description="the token has expired"`:  "",
		`Bearer error_description="<script>alert(1)</script>"`:        "",
		"Bearer error_description=\"line\nbreak\"":                    "",
		`Bearer error_description="` + strings.Repeat("a", 150) + `"`: strings.Repeat("a", 120) + "…",
	} {
		if got := challengeDescription(h); got != want {
			t.Errorf("%q: %q, want %q", h, got, want)
		}
	}
}
