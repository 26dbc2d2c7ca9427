package server

import (
	"bufio"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// thinkingModel reasons before each step: before calling the weather tool (reasoning_content)
// and before answering with its result (reasoning, the other field servers use).
func thinkingModel() scriptedmodel.Responder {
	return scriptedmodel.ResponderFunc(func(req *scriptedmodel.Request) scriptedmodel.Reply {
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return scriptedmodel.Reply{Reasoning: "The tool answered, so I can summarise.", ReasoningField: scriptedmodel.ReasoningField, Text: "It is mild in Oslo."}
		}
		return scriptedmodel.Reply{Reasoning: "The user asks about Oslo; I need the weather tool.",
			ToolCalls: []scriptedmodel.ToolCall{{Name: "weather", Arguments: `{"location":"Oslo"}`}}}
	})
}

const (
	thought1 = "The user asks about Oslo; I need the weather tool."
	thought2 = "The tool answered, so I can summarise."
)

// The reasoning of every step reaches generate's answer as Mastra's reasoning fields, and is
// neither stored as the answer nor sent back to the model on the next turn.
func TestGenerateAnswersWithReasoning(t *testing.T) {
	dbURL := "file:" + filepath.Join(t.TempDir(), "memory.db")
	e := startEnv(t, thinkingModel(), envOptions{manifests: memoryAgent(dbURL)})

	status, out := e.do("POST", "/api/agents/rememberer/generate", `{"messages":"Weather in Oslo?","memory":{"thread":"t","resource":"alice"}}`)
	if status != 200 {
		t.Fatalf("generate: %d %v", status, out)
	}
	if out["text"] != "It is mild in Oslo." || out["reasoningText"] != thought1+thought2 || out["reasoning"] != thought1+thought2 {
		t.Errorf("answer: text %q reasoning %q reasoningText %q", out["text"], out["reasoning"], out["reasoningText"])
	}
	steps := out["steps"].([]any)
	if len(steps) != 2 || steps[0].(map[string]any)["reasoning"] != thought1 || steps[1].(map[string]any)["reasoning"] != thought2 {
		t.Errorf("steps: %v", steps)
	}

	e.model.Reset()
	status, _ = e.do("POST", "/api/agents/rememberer/generate", `{"messages":"And tomorrow?","memory":{"thread":"t","resource":"alice"}}`)
	if status != 200 {
		t.Fatalf("turn 2: %d", status)
	}
	sent, _ := json.Marshal(e.model.Requests()[0].Raw)
	if strings.Contains(string(sent), "I need the weather tool") || strings.Contains(string(sent), "I can summarise") {
		t.Errorf("the model was sent the reasoning back: %s", sent)
	}
	_, stored := e.raw("GET", "/api/memory/threads/t/messages?agentId=rememberer&resourceId=alice", "")
	if strings.Contains(string(stored), "summarise") || !strings.Contains(string(stored), "It is mild in Oslo.") {
		t.Errorf("stored messages: %s", stored)
	}

	// A model without reasoning leaves both fields out, as Mastra does for such models.
	plain := startEnv(t, scriptedmodel.Sequence(scriptedmodel.Reply{Text: "hi"}), envOptions{})
	_, raw := plain.raw("POST", "/api/agents/weather/generate", userMessage("hello"))
	if strings.Contains(string(raw), "reasoning") {
		t.Errorf("reasoning fields without reasoning: %s", raw)
	}
}

// The AG-UI stream carries each step's reasoning as one reasoning span and message, under an
// id of its own, closed before the step's tool call or text begins.
func TestAGUIStreamsReasoningEvents(t *testing.T) {
	e := startEnv(t, thinkingModel(), envOptions{manifests: memoryAgent("memory://")})
	events := aguiRun(t, e.base, "rememberer", `{"threadId":"t","runId":"r","messages":[{"id":"u1","role":"user","content":"Weather in Oslo?"}]}`)
	var seq []string
	reasoning := map[string]string{}
	var textIDs, reasoningIDs []string
	for _, ev := range events {
		typ := ev["type"].(string)
		switch typ {
		case "STEP_STARTED", "STEP_FINISHED", "TOOL_CALL_ARGS", "TEXT_MESSAGE_CONTENT":
			continue // not what this test is about
		case "REASONING_MESSAGE_START":
			if ev["role"] != "reasoning" {
				t.Errorf("role: %v", ev)
			}
			reasoningIDs = append(reasoningIDs, ev["messageId"].(string))
		case "REASONING_MESSAGE_CONTENT":
			reasoning[ev["messageId"].(string)] += ev["delta"].(string)
			if len(seq) > 0 && seq[len(seq)-1] == typ {
				continue
			}
		case "TEXT_MESSAGE_START":
			textIDs = append(textIDs, ev["messageId"].(string))
		case "TOOL_CALL_START":
			textIDs = append(textIDs, ev["parentMessageId"].(string))
		}
		seq = append(seq, typ)
	}
	want := "RUN_STARTED REASONING_START REASONING_MESSAGE_START REASONING_MESSAGE_CONTENT REASONING_MESSAGE_END REASONING_END TOOL_CALL_START TOOL_CALL_END TOOL_CALL_RESULT " +
		"REASONING_START REASONING_MESSAGE_START REASONING_MESSAGE_CONTENT REASONING_MESSAGE_END REASONING_END TEXT_MESSAGE_START TEXT_MESSAGE_END RUN_FINISHED"
	if got := strings.Join(seq, " "); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	if len(reasoningIDs) != 2 || reasoning[reasoningIDs[0]] != thought1 || reasoning[reasoningIDs[1]] != thought2 {
		t.Errorf("reasoning messages %v: %v", reasoningIDs, reasoning)
	}
	for i := range reasoningIDs {
		if reasoningIDs[i] == textIDs[i] || reasoningIDs[i] == "" {
			t.Errorf("step %d: reasoning id %q must differ from the step's message id %q", i+1, reasoningIDs[i], textIDs[i])
		}
	}
}

// The Mastra stream carries reasoning as Mastra's reasoning-start, -delta and -end chunks.
func TestStreamCarriesReasoningChunks(t *testing.T) {
	e := startEnv(t, scriptedmodel.Sequence(scriptedmodel.Reply{Reasoning: "Short and sweet.", Text: "Hello."}), envOptions{})
	resp, err := http.Post(e.base+"/api/agents/weather/stream", "application/json", strings.NewReader(userMessage("hi")))
	testutil.NoError(t, err)
	defer resp.Body.Close()
	var types []string
	var thought string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || line == "[DONE]" {
			continue
		}
		var ch struct {
			Type    string         `json:"type"`
			Payload map[string]any `json:"payload"`
		}
		testutil.NoError(t, json.Unmarshal([]byte(line), &ch))
		if strings.HasPrefix(ch.Type, "reasoning") {
			if ch.Payload["id"] == "" || ch.Payload["id"] == nil {
				t.Errorf("%s without id: %v", ch.Type, ch.Payload)
			}
			if ch.Type == "reasoning-delta" {
				thought += ch.Payload["text"].(string)
				if len(types) > 0 && types[len(types)-1] == ch.Type {
					continue
				}
			}
		}
		if ch.Type == "text-delta" && types[len(types)-1] == ch.Type {
			continue
		}
		types = append(types, ch.Type)
	}
	if got := strings.Join(types, " "); got != "start step-start reasoning-start reasoning-delta reasoning-end text-delta step-finish finish" || thought != "Short and sweet." {
		t.Errorf("chunks %s, reasoning %q", got, thought)
	}
}
