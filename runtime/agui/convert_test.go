package agui

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

func TestConvertMessagesKeepsEveryConversationRole(t *testing.T) {
	in := `[
	  {"id":"s","role":"system","content":"be brief"},
	  {"id":"d","role":"developer","content":"dev note"},
	  {"id":"u","role":"user","content":[{"type":"text","text":"look "},{"type":"image","mimeType":"image/png","url":"x"}]},
	  {"id":"a","role":"assistant","content":"calling","toolCalls":[{"id":"c1","type":"function","function":{"name":"w","arguments":"{}"}}]},
	  {"id":"t","role":"tool","toolCallId":"c1","content":"{\"ok\":true}"},
	  {"id":"act","role":"activity","activityType":"progress","content":{"p":1}},
	  {"id":"r","role":"reasoning","content":"hmm"},
	  {"id":"e","role":"tool","toolCallId":"c2","content":"","error":"boom"}
	]`
	got, err := ConvertMessages(json.RawMessage(in))
	testutil.NoError(t, err)
	var roles []string
	for _, m := range got {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "system,developer,user,assistant,tool,tool" {
		t.Fatalf("roles %v", roles)
	}
	if got[2].Content != "look [image image/png attachment]" || got[2].ID != "u" {
		t.Errorf("user parts: %+v", got[2])
	}
	if len(got[3].ToolCalls) != 1 || got[3].ToolCalls[0].Name != "w" {
		t.Errorf("assistant tool calls: %+v", got[3])
	}
	if got[5].Content != `{"error":"boom"}` {
		t.Errorf("a tool error becomes an error result: %q", got[5].Content)
	}
}

func TestConvertMessagesAnswersDanglingToolCalls(t *testing.T) {
	in := `[
	  {"id":"u","role":"user","content":"hi"},
	  {"id":"a","role":"assistant","toolCalls":[
	    {"id":"c1","type":"function","function":{"name":"w","arguments":"{}"}},
	    {"id":"c2","type":"function","function":{"name":"card","arguments":"{}"}}]},
	  {"id":"t","role":"tool","toolCallId":"c1","content":"{}"},
	  {"id":"u2","role":"user","content":"never mind"}
	]`
	got, err := ConvertMessages(json.RawMessage(in))
	testutil.NoError(t, err)
	if len(got) != 5 || got[3].Role != "tool" || got[3].ToolCallID != "c2" || !strings.Contains(got[3].Content, "no result") || got[4].Content != "never mind" {
		t.Fatalf("%+v", got)
	}
}

func TestConvertMessagesRejects(t *testing.T) {
	for _, in := range []string{``, `null`, `"text"`, `{}`, `[]`, `[{"id":"x","role":"activity","activityType":"a","content":{}}]`,
		`[{"id":"x","role":"wizard","content":"x"}]`, `[{"id":"x","content":"x"}]`, `[{"id":"x","role":"tool","content":"x"}]`,
		`[{"id":"x","role":"assistant","toolCalls":[{"id":"","type":"function","function":{"name":"w"}}]}]`, `[42]`} {
		_, err := ConvertMessages(json.RawMessage(in))
		var ie *InputError
		if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "Invalid request") {
			t.Errorf("%s: want an InputError, got %v", in, err)
		}
	}
}

func TestConvertTools(t *testing.T) {
	got, err := ConvertTools(json.RawMessage(`[{"name":"confetti","description":"party","parameters":{"type":"object"}},{"name":"bare"}]`))
	if err != nil || len(got) != 2 || got[0].Name != "confetti" || string(got[1].Parameters) != `{"type":"object","properties":{}}` {
		t.Fatalf("%+v %v", got, err)
	}
	if got, err := ConvertTools(json.RawMessage(`"not an array"`)); err != nil || got != nil {
		t.Errorf("tools that are not an array mean none: %v %v", got, err)
	}
	for _, in := range []string{`[{"name":"a b"}]`, `[{"name":""}]`, `[{"name":"ok","parameters":[1]}]`, `[7]`} {
		if _, err := ConvertTools(json.RawMessage(in)); err == nil {
			t.Errorf("%s: want an error", in)
		}
	}
}
