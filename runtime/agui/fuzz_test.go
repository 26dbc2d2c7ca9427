package agui

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	wire "github.com/agentry-dev/agentry/internal/protocol/agui"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// runInputSeeds are RunAgentInput bodies: what platforms send, and the edges of the format.
var runInputSeeds = []string{
	`{"threadId":"t","runId":"r","messages":[{"id":"m1","role":"user","content":"hi"}]}`,
	`{"messages":[{"id":"s","role":"system","content":"be brief"},{"id":"u","role":"user","content":[{"type":"text","text":"look "},{"type":"image","mimeType":"image/png"}]},` +
		`{"id":"a","role":"assistant","content":"calling","toolCalls":[{"id":"c1","type":"function","function":{"name":"w","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"card","arguments":"{\"x\":1}"}}]},` +
		`{"id":"t","role":"tool","toolCallId":"c1","content":"{\"ok\":true}"},{"id":"e","role":"tool","toolCallId":"c3","error":"boom"},{"id":"r","role":"reasoning","content":"hmm"}],` +
		`"tools":[{"name":"show-card","description":"card","parameters":{"type":"object","properties":{"title":{"type":"string"}}}},{"name":"x"}]}`,
	`{"messages":[{"id":"t","role":"tool","toolCallId":"c0","content":"orphan"},{"role":"assistant","content":null,"toolCalls":[{"id":"c1","function":{"name":"a"}},{"id":"c1","function":{"name":"a"}}]}]}`,
	`{"messages":[],"tools":"not an array"}`,
	`{"messages":null}`,
	`{"messages":[{"role":"wizard","content":"x"}]}`,
	`{"messages":[{"role":"user","content":{"nested":true}}],"tools":[{"name":"bad name!"}]}`,
	`{"messages":[{"role":"assistant","content":""},{"role":"activity","content":{}}],"tools":[{"name":"ok","parameters":[1]}]}`,
	"{\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe invalid utf-8\"}],\"tools\":null}",
}

// FuzzConvertRunAgentInput checks the AG-UI input conversions: errors are InputErrors with a
// detail (answered 400), and what is accepted satisfies what the agent loop and the model rely
// on and converts to itself again.
func FuzzConvertRunAgentInput(f *testing.F) {
	for _, s := range runInputSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var in wire.RunAgentInput
		if json.Unmarshal(body, &in) != nil {
			return
		}
		msgs, err := ConvertMessages(in.Messages)
		if err != nil {
			checkInputError(t, err)
		} else {
			checkConversation(t, msgs)
			again, err := ConvertMessages(wireMessages(t, msgs))
			if err != nil {
				t.Fatalf("converted messages do not convert again: %v", err)
			}
			if !reflect.DeepEqual(again, msgs) {
				t.Fatalf("conversion is not stable:\nfirst  %+v\nsecond %+v", msgs, again)
			}
		}

		defs, err := ConvertTools(in.Tools)
		if err != nil {
			checkInputError(t, err)
			return
		}
		for _, d := range defs {
			if !toolName.MatchString(d.Name) {
				t.Fatalf("accepted tool name %q", d.Name)
			}
			var obj map[string]any
			if json.Unmarshal(d.Parameters, &obj) != nil {
				t.Fatalf("tool %q parameters are not an object: %s", d.Name, d.Parameters)
			}
		}
		again, err := ConvertTools(wireTools(t, defs))
		if err != nil || len(again) != len(defs) {
			t.Fatalf("converted tools do not convert again: %v", err)
		}
		for i := range defs {
			if again[i].Name != defs[i].Name || again[i].Description != defs[i].Description || !jsonEqual(again[i].Parameters, defs[i].Parameters) {
				t.Fatalf("tool %d changed: %+v then %+v", i, defs[i], again[i])
			}
		}
	})
}

func checkInputError(t *testing.T, err error) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) || strings.TrimSpace(ie.Detail) == "" || !strings.HasPrefix(err.Error(), ErrInvalidRequest.Error()+": ") {
		t.Fatalf("want an InputError with a detail, got %T %v", err, err)
	}
}

// checkConversation states what the model needs: a non-empty conversation that does not start
// with a tool result, known roles, and every tool call answered before the next turn.
func checkConversation(t *testing.T, msgs []llm.Message) {
	t.Helper()
	if len(msgs) == 0 {
		t.Fatal("accepted an empty conversation")
	}
	if msgs[0].Role == "tool" {
		t.Fatal("the conversation starts with a tool result")
	}
	for i, m := range msgs {
		switch m.Role {
		case "user", "system", "developer":
		case "tool":
			if m.ToolCallID == "" {
				t.Fatalf("message %d: tool result without a call id", i)
			}
		case "assistant":
			if m.Content == "" && len(m.ToolCalls) == 0 {
				t.Fatalf("message %d: empty assistant message", i)
			}
			answered := map[string]bool{}
			for j := i + 1; j < len(msgs) && msgs[j].Role == "tool"; j++ {
				answered[msgs[j].ToolCallID] = true
			}
			for _, tc := range m.ToolCalls {
				if tc.ID == "" || tc.Name == "" {
					t.Fatalf("message %d: tool call without id or name", i)
				}
				if !answered[tc.ID] {
					t.Fatalf("message %d: tool call %q has no result", i, tc.ID)
				}
			}
		default:
			t.Fatalf("message %d: role %q", i, m.Role)
		}
	}
}

// wireMessages writes model messages back as AG-UI messages.
func wireMessages(t *testing.T, msgs []llm.Message) json.RawMessage {
	t.Helper()
	out := make([]wire.Message, 0, len(msgs))
	for _, m := range msgs {
		w := wire.Message{ID: m.ID, Role: m.Role, Content: wire.Raw(m.Content), ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			w.ToolCalls = append(w.ToolCalls, wire.ToolCall{ID: tc.ID, Type: "function", Function: wire.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}})
		}
		out = append(out, w)
	}
	b, err := json.Marshal(out)
	testutil.NoError(t, err)
	return b
}

func wireTools(t *testing.T, defs []tools.Definition) json.RawMessage {
	t.Helper()
	out := make([]wire.Tool, 0, len(defs))
	for _, d := range defs {
		out = append(out, wire.Tool{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
	}
	b, err := json.Marshal(out)
	testutil.NoError(t, err)
	return b
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}
