package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/testutil"
)

func memoryAgent(url string) string {
	return fmt.Sprintf(`
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: rememberer}
spec:
  instructions: You remember.
  model: {name: m, maxRetries: 0}
  tools: [{key: weather, toolRef: {name: weather}}]
  memory: {url: %q, lastMessages: 3}
`, url)
}

func TestGenerateRecallsAndStoresTurns(t *testing.T) {
	dbURL := "file:" + filepath.Join(t.TempDir(), "memory.db")
	e := startEnv(t, scriptedmodel.DevScript(), envOptions{manifests: memoryAgent(dbURL)})

	status, out := e.do("POST", "/api/agents/rememberer/generate", `{"messages":"What is the weather in Oslo?","memory":{"thread":"trip","resource":"alice"}}`)
	if status != 200 || !strings.Contains(out["text"].(string), "Oslo") {
		t.Fatalf("turn 1: %d %v", status, out)
	}
	e.model.Reset()
	status, out = e.do("POST", "/api/agents/rememberer/generate", `{"messages":[{"role":"user","content":"thanks"}],"memory":{"thread":{"id":"trip"},"resource":"alice"}}`)
	if status != 200 {
		t.Fatalf("turn 2: %d %v", status, out)
	}
	// The model saw the instructions, the last 3 stored messages and the new one.
	var roles []string
	for _, m := range e.model.Requests()[0].Messages {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "system,assistant,tool,assistant,user" {
		t.Errorf("turn 2 model input: %s (the recall window of 3 starts at the tool call; the first user message is outside)", got)
	}

	status, threads := e.raw("GET", "/api/memory/threads?agentId=rememberer&resourceId=alice", "")
	var list []map[string]any
	_ = json.Unmarshal(threads, &list)
	if status != 200 || len(list) != 1 || list[0]["id"] != "trip" || list[0]["title"] != "What is the weather in Oslo?" {
		t.Errorf("threads: %d %s", status, threads)
	}
	status, body := e.do("GET", "/api/memory/threads/trip/messages?agentId=rememberer", "")
	msgs := body["messages"].([]any)
	var stored []string
	for _, m := range msgs {
		stored = append(stored, m.(map[string]any)["role"].(string))
	}
	if status != 200 || strings.Join(stored, ",") != "user,assistant,tool,assistant,user,assistant" {
		t.Errorf("stored: %d %v", status, stored)
	}
	if other, _ := e.raw("GET", "/api/memory/threads?agentId=rememberer&resourceId=bob", ""); other != 200 {
		t.Errorf("bob's threads: %d", other)
	}

	for path, want := range map[string]int{
		"/api/memory/threads":                                     400,
		"/api/memory/threads?agentId=nobody":                      404,
		"/api/memory/threads?agentId=weather":                     404,
		"/api/memory/threads/missing/messages?agentId=rememberer": 404,
	} {
		if status, _ := e.raw("GET", path, ""); status != want {
			t.Errorf("%s: %d, want %d", path, status, want)
		}
	}
	status, out = e.do("POST", "/api/agents/weather/generate", `{"messages":"hi","memory":{"thread":"x"}}`)
	if status != 400 || !strings.Contains(out["error"].(string), "has no memory configured") {
		t.Errorf("memory on an agent without it: %d %v", status, out)
	}
	status, out = e.do("POST", "/api/agents/rememberer/generate", `{"messages":"hi","memory":{"resource":"alice"}}`)
	if status != 400 || !strings.Contains(out["error"].(string), "memory.thread is required") {
		t.Errorf("resource without thread: %d %v", status, out)
	}
}

// aguiRun posts a RunAgentInput and returns the decoded events.
func aguiRun(t *testing.T, base, agent, body string) []map[string]any {
	t.Helper()
	resp, err := http.Post(base+"/api/agents/"+agent+"/ag-ui", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var events []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var ev map[string]any
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatal(err)
			}
			events = append(events, ev)
		}
	}
	return events
}

func TestAGUIPersistsByMessageID(t *testing.T) {
	dbURL := "file:" + filepath.Join(t.TempDir(), "memory.db")
	e := startEnv(t, scriptedmodel.DevScript(), envOptions{manifests: memoryAgent(dbURL)})

	history := []map[string]any{{"id": "u1", "role": "user", "content": "What is the weather in Lima?"}}
	body := func() string {
		b, _ := json.Marshal(map[string]any{"threadId": "chat-1", "runId": "r", "messages": history, "forwardedProps": map[string]string{"resourceId": "carol"}})
		return string(b)
	}
	events := aguiRun(t, e.base, "rememberer", body())
	// Rebuild the history the way a client does from the events, then resend it with a new turn.
	var assistant map[string]any
	for _, ev := range events {
		switch ev["type"] {
		case "TOOL_CALL_START":
			assistant = map[string]any{"id": ev["parentMessageId"], "role": "assistant", "toolCalls": []any{map[string]any{"id": ev["toolCallId"], "type": "function", "function": map[string]any{"name": ev["toolCallName"], "arguments": `{"location":"Lima"}`}}}}
			history = append(history, assistant)
		case "TOOL_CALL_RESULT":
			history = append(history, map[string]any{"id": ev["messageId"], "role": "tool", "toolCallId": ev["toolCallId"], "content": ev["content"]})
		case "TEXT_MESSAGE_START":
			history = append(history, map[string]any{"id": ev["messageId"], "role": "assistant", "content": ""})
		case "TEXT_MESSAGE_CONTENT":
			last := history[len(history)-1]
			last["content"] = last["content"].(string) + ev["delta"].(string)
		}
	}
	if events[len(events)-1]["type"] != "RUN_FINISHED" || len(history) != 4 {
		t.Fatalf("run 1: %v", history)
	}
	history = append(history, map[string]any{"id": "u2", "role": "user", "content": "and tomorrow?"})
	aguiRun(t, e.base, "rememberer", body())
	aguiRun(t, e.base, "rememberer", body()) // a client retrying the same request

	_, stored := e.do("GET", "/api/memory/threads/chat-1/messages?agentId=rememberer", "")
	var got []string
	for _, m := range stored["messages"].([]any) {
		got = append(got, m.(map[string]any)["id"].(string))
	}
	for i, h := range history {
		if i >= len(got) || got[i] != h["id"] {
			t.Fatalf("stored ids %v do not start with the client's history %v", got, history)
		}
	}
	// The history once, plus one answer to "and tomorrow?" per run (two runs answered it).
	if len(got) != len(history)+2 {
		t.Errorf("stored %d messages, want %d: %v", len(got), len(history)+2, got)
	}
	_, threads := e.raw("GET", "/api/memory/threads?agentId=rememberer&resourceId=carol", "")
	if !strings.Contains(string(threads), `"id":"chat-1"`) {
		t.Errorf("the thread belongs to carol: %s", threads)
	}
}

func TestStorageOutageDuringARun(t *testing.T) {
	pg := testutil.StartPostgres(t)
	release := make(chan struct{})
	responder := scriptedmodel.ResponderFunc(func(r *scriptedmodel.Request) scriptedmodel.Reply {
		if r.Messages[len(r.Messages)-1].Content == "slow" {
			<-release
		}
		return scriptedmodel.Reply{Text: "answered"}
	})
	e := startEnv(t, responder, envOptions{manifests: memoryAgent(pg.URL)})
	if status, _ := e.raw("GET", "/readyz", ""); status != 200 {
		t.Fatalf("readyz: %d", status)
	}

	// The database goes away while the model is answering: the run ends with the error events.
	done := make(chan []map[string]any)
	go func() {
		done <- aguiRun(t, e.base, "rememberer", `{"threadId":"t","messages":[{"id":"u1","role":"user","content":"slow"}]}`)
	}()
	waitFor(t, func() bool { return e.model.Stats().InFlight == 1 }, "the model request")
	pg.Stop()
	close(release)
	events := <-done
	n := len(events)
	if n < 3 || events[0]["type"] != "RUN_STARTED" || events[n-2]["type"] != "error" || events[n-1]["type"] != "RUN_ERROR" ||
		events[n-1]["code"] != "STORAGE_UNAVAILABLE" || events[n-1]["message"] != "Agent processing failed" {
		t.Fatalf("events: %v", events)
	}
	if status, body := e.raw("GET", "/readyz", ""); status != 503 || !strings.Contains(string(body), "unavailable") {
		t.Errorf("readyz during the outage: %d %s", status, body)
	}
	status, out := e.do("POST", "/api/agents/rememberer/generate", `{"messages":"hi","memory":{"thread":"t"}}`)
	if status != 500 || !strings.Contains(out["error"].(string), "failed to recall conversation memory") {
		t.Errorf("generate during the outage: %d %v", status, out)
	}
	events = aguiRun(t, e.base, "rememberer", `{"threadId":"t","messages":[{"id":"u2","role":"user","content":"hi"}]}`)
	if last := events[len(events)-1]; last["type"] != "RUN_ERROR" || len(events) != 3 {
		t.Errorf("a run that cannot store its input stops before the model: %v", events)
	}

	// The database returns; so does the runtime, without a restart.
	pg.Start()
	waitFor(t, func() bool { s, _ := e.raw("GET", "/readyz", ""); return s == 200 }, "readiness after the outage")
	status, out = e.do("POST", "/api/agents/rememberer/generate", `{"messages":"again","memory":{"thread":"t"}}`)
	if status != 200 || out["text"] != "answered" {
		t.Errorf("after recovery: %d %v", status, out)
	}
	_, stored := e.do("GET", "/api/memory/threads/t/messages?agentId=rememberer", "")
	if msgs := stored["messages"].([]any); len(msgs) != 3 { // u1 (stored before the outage), "again" and its answer
		t.Errorf("stored: %v", msgs)
	}
}
