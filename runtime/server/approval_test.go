package server

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// cautiousAgent offers suggest-substitute only with a person's approval; memory is optional.
func cautiousAgent(timeout, memoryURL string) string {
	m := fmt.Sprintf(`
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: cautious}
spec:
  instructions: You ask before you act.
  model: {name: m, maxRetries: 0}
  tools:
    - key: suggest-substitute
      toolRef: {name: suggest-substitute}
      requireApproval: true
      approvalTimeout: %s
    - key: weather
      toolRef: {name: weather}
`, timeout)
	if memoryURL != "" {
		m += fmt.Sprintf("  memory: {url: %q}\n", memoryURL)
	}
	return m
}

// substituteModel asks for substitutes of every word after "instead of", and once it has the
// tool results answers with them (the results are what the test checks the model saw).
func substituteModel() scriptedmodel.Responder {
	return scriptedmodel.ResponderFunc(func(r *scriptedmodel.Request) scriptedmodel.Reply {
		last := r.Messages[len(r.Messages)-1]
		if last.Role == "tool" {
			var results []string
			for _, m := range r.Messages {
				if m.Role == "tool" {
					results = append(results, m.Content)
				}
			}
			return scriptedmodel.Reply{Text: "Results: " + strings.Join(results, " | ")}
		}
		_, what, _ := strings.Cut(last.Content, "instead of ")
		var calls []scriptedmodel.ToolCall
		for i, w := range strings.Fields(what) {
			calls = append(calls, scriptedmodel.ToolCall{ID: fmt.Sprintf("call_%d", i+1), Name: "suggest-substitute", Arguments: fmt.Sprintf(`{"ingredient":%q}`, strings.Trim(w, "?.,!"))})
		}
		return scriptedmodel.Reply{ToolCalls: calls}
	})
}

func pendingApprovals(t *testing.T, out map[string]any) []map[string]any {
	t.Helper()
	list, _ := out["pendingApprovals"].([]any)
	var res []map[string]any
	for _, p := range list {
		res = append(res, p.(map[string]any))
	}
	return res
}

func TestGenerateStopsForApprovalAndContinuesOnceApproved(t *testing.T) {
	e := startEnv(t, substituteModel(), envOptions{manifests: cautiousAgent("10m", "")})
	status, out := e.do("POST", "/api/agents/cautious/generate", `{"messages":"What can I use instead of butter?"}`)
	held := pendingApprovals(t, out)
	if status != 200 || out["finishReason"] != "suspended" || len(held) != 1 || held[0]["toolName"] != "suggest-substitute" || held[0]["toolCallId"] != "call_1" {
		t.Fatalf("generate: %d %v", status, out)
	}
	if n := len(e.model.Requests()); n != 1 {
		t.Fatalf("the model was asked %d times before the approval, want 1", n)
	}
	if !strings.Contains(fmt.Sprint(held[0]["args"]), "butter") || held[0]["expiresAt"] == nil {
		t.Errorf("held call: %v", held[0])
	}
	runID := out["runId"].(string)

	// An edited input must match the tool's schema: refused, and nothing is decided.
	status, out = e.do("POST", "/api/agents/cautious/approve-tool-call", fmt.Sprintf(`{"runId":%q,"toolCallId":"call_1","input":{"ingredient":""}}`, runID))
	if status != 400 || !strings.Contains(fmt.Sprint(out["error"]), "input schema") {
		t.Fatalf("invalid edited input: %d %v", status, out)
	}
	// Approved with an edited input: the tool runs on it and the run goes on.
	status, out = e.do("POST", "/api/agents/cautious/approve-tool-call", fmt.Sprintf(`{"runId":%q,"toolCallId":"call_1","input":{"ingredient":"egg"}}`, runID))
	if status != 200 || out["finishReason"] != "stop" || !strings.Contains(out["text"].(string), "flaxseed") {
		t.Fatalf("approve: %d %v", status, out)
	}
	if len(pendingApprovals(t, out)) != 0 {
		t.Errorf("approvals left: %v", out["pendingApprovals"])
	}
	// A replay finds nothing to approve.
	status, out = e.do("POST", "/api/agents/cautious/approve-tool-call", fmt.Sprintf(`{"runId":%q,"toolCallId":"call_1"}`, runID))
	if status != 404 || out["error"] != msgNotPending {
		t.Errorf("replay: %d %v", status, out)
	}
	if n := len(e.model.Requests()); n != 2 {
		t.Errorf("model requests: %d, want 2", n)
	}
}

// A tool that needs approval is listed as such and cannot be executed directly.
func TestApprovalToolsAreListedAndNotExecutableDirectly(t *testing.T) {
	e := startEnv(t, substituteModel(), envOptions{manifests: cautiousAgent("15m", "")})
	_, info := e.do("GET", "/api/agents/cautious", "")
	tools, _ := info["tools"].(map[string]any)
	held, _ := tools["suggest-substitute"].(map[string]any)
	free, _ := tools["weather"].(map[string]any)
	if held["requireApproval"] != true || held["approvalTimeout"] != "15m0s" || free["requireApproval"] != nil {
		t.Fatalf("tools: %v", tools)
	}
	status, out := e.do("POST", "/api/agents/cautious/tools/suggest-substitute/execute", `{"data":{"ingredient":"butter"}}`)
	if status != 403 || out["error"] != msgNeedsApproval {
		t.Errorf("direct execution: %d %v", status, out)
	}
	if status, _ := e.do("POST", "/api/agents/cautious/tools/weather/execute", `{"data":{"location":"Oslo"}}`); status != 200 {
		t.Errorf("a tool without approval: %d", status)
	}
}

func TestDeclinedAndExpiredCallsDoNotExecute(t *testing.T) {
	// Long enough for the first decision to come in time on a loaded machine.
	e := startEnv(t, substituteModel(), envOptions{manifests: cautiousAgent("2s", "")})
	_, out := e.do("POST", "/api/agents/cautious/generate", `{"messages":"What can I use instead of butter milk?"}`)
	if held := pendingApprovals(t, out); len(held) != 2 {
		t.Fatalf("generate: %v", out)
	}
	runID := out["runId"].(string)
	// One of two decided: the run still waits for the other, and the first cannot be decided again.
	status, out := e.do("POST", "/api/agents/cautious/decline-tool-call", fmt.Sprintf(`{"runId":%q,"toolCallId":"call_1","reason":"we have no flax"}`, runID))
	if held := pendingApprovals(t, out); status != 200 || out["finishReason"] != "suspended" || len(held) != 1 || held[0]["toolCallId"] != "call_2" {
		t.Fatalf("first decision: %d %v", status, out)
	}
	expires, err := time.Parse(time.RFC3339Nano, fmt.Sprint(pendingApprovals(t, out)[0]["expiresAt"]))
	testutil.NoError(t, err)
	status, out = e.do("POST", "/api/agents/cautious/approve-tool-call", fmt.Sprintf(`{"runId":%q,"toolCallId":"call_1"}`, runID))
	if status != 409 || out["error"] != msgAlreadyDecided {
		t.Fatalf("second decision of call_1: %d %v", status, out)
	}
	// The second is approved after it expired: a decline, whatever it says.
	time.Sleep(time.Until(expires.Add(100 * time.Millisecond)))
	status, out = e.do("POST", "/api/agents/cautious/approve-tool-call", fmt.Sprintf(`{"runId":%q,"toolCallId":"call_2"}`, runID))
	if status != 200 || out["finishReason"] != "stop" {
		t.Fatalf("late approval: %d %v", status, out)
	}
	text := out["text"].(string)
	if !strings.Contains(text, "declined") || !strings.Contains(text, "we have no flax") || !strings.Contains(text, "in time") || strings.Contains(text, "oat milk") {
		t.Errorf("the model saw: %s", text)
	}
}

func TestApprovalOverAGUI(t *testing.T) {
	e := startEnv(t, substituteModel(), envOptions{manifests: cautiousAgent("10m", "")})
	events := aguiRun(t, e.base, "cautious", `{"threadId":"t1","runId":"r1","messages":[{"id":"u1","role":"user","content":"What can I use instead of butter?"}],"forwardedProps":{"resourceId":"ann"}}`)
	last := events[len(events)-1]
	outcome, _ := last["outcome"].(map[string]any)
	interrupts, _ := outcome["interrupts"].([]any)
	if last["type"] != "RUN_FINISHED" || outcome["type"] != "interrupt" || len(interrupts) != 1 {
		t.Fatalf("events: %v", events)
	}
	in := interrupts[0].(map[string]any)
	schema, _ := in["responseSchema"].(map[string]any)
	if in["reason"] != "tool_approval" || in["toolCallId"] != "call_1" || in["expiresAt"] == nil || schema["type"] != "object" {
		t.Fatalf("interrupt: %v", in)
	}
	for _, ev := range events {
		if ev["type"] == "TOOL_CALL_RESULT" {
			t.Fatalf("a held call has a result: %v", ev)
		}
	}
	id := in["id"].(string)
	// Another resource cannot answer it; a malformed payload is a 400.
	body := func(resource, payload string) string {
		return fmt.Sprintf(`{"threadId":"t1","runId":"r2","messages":[],"forwardedProps":{"resourceId":%q},"resume":[{"interruptId":%q,"status":"resolved","payload":%s}]}`, resource, id, payload)
	}
	if status, _ := e.raw("POST", "/api/agents/cautious/ag-ui", body("bob", `{"approved":true}`)); status != 404 {
		t.Errorf("another resource's resume: %d", status)
	}
	if status, raw := e.raw("POST", "/api/agents/cautious/ag-ui", body("ann", `{"reason":"x"}`)); status != 400 || strings.TrimSpace(string(raw)) != `{"error":"Invalid request"}` {
		t.Errorf("payload without approved: %d %s", status, raw)
	}
	events = aguiRun(t, e.base, "cautious", body("ann", `{"approved":true}`))
	var types []string
	for _, ev := range events {
		types = append(types, ev["type"].(string))
	}
	got := strings.Join(types, ",")
	if !strings.HasPrefix(got, "RUN_STARTED,TOOL_CALL_RESULT,STEP_STARTED") || !strings.HasSuffix(got, "RUN_FINISHED") {
		t.Fatalf("resumed run: %s", got)
	}
	if o := events[len(events)-1]["outcome"].(map[string]any); o["type"] != "success" {
		t.Errorf("outcome: %v", o)
	}
	if !strings.Contains(fmt.Sprint(events[1]["content"]), "olive oil") {
		t.Errorf("tool result: %v", events[1])
	}
	if status, _ := e.raw("POST", "/api/agents/cautious/ag-ui", body("ann", `{"approved":true}`)); status != 404 {
		t.Errorf("replayed resume: %d", status)
	}
}

// An agent with memory, a run that names no thread: it stops for approval and resumes as
// thread_1 on the wire, and neither part is remembered.
func TestApprovalWithoutThreadIsNotRemembered(t *testing.T) {
	db := "file:" + filepath.Join(t.TempDir(), "memory.db")
	e := startEnv(t, substituteModel(), envOptions{manifests: cautiousAgent("10m", db)})
	events := aguiRun(t, e.base, "cautious", `{"messages":[{"id":"u1","role":"user","content":"What can I use instead of butter?"}],"forwardedProps":{"resourceId":"ann"}}`)
	last := events[len(events)-1]
	outcome, _ := last["outcome"].(map[string]any)
	interrupts, _ := outcome["interrupts"].([]any)
	if events[0]["threadId"] != "thread_1" || outcome["type"] != "interrupt" || len(interrupts) != 1 {
		t.Fatalf("events: %v", events)
	}
	id := interrupts[0].(map[string]any)["id"].(string)
	events = aguiRun(t, e.base, "cautious", fmt.Sprintf(`{"messages":[],"forwardedProps":{"resourceId":"ann"},"resume":[{"interruptId":%q,"status":"resolved","payload":{"approved":true}}]}`, id))
	if last := events[len(events)-1]; events[0]["threadId"] != "thread_1" || last["type"] != "RUN_FINISHED" || last["outcome"].(map[string]any)["type"] != "success" {
		t.Fatalf("resumed: %v", events)
	}
	if _, list := e.do("GET", "/api/memory/threads?agentId=cautious&resourceId=ann", ""); list["total"] != 0.0 {
		t.Errorf("remembered: %v", list)
	}
}

// The run stops on one replica and is approved on another: both share PostgreSQL memory.
func TestApprovalResumesOnAnotherReplica(t *testing.T) {
	pg := testutil.StartPostgres(t)
	a := startEnv(t, substituteModel(), envOptions{manifests: cautiousAgent("10m", pg.URL)})
	b := startEnv(t, substituteModel(), envOptions{manifests: cautiousAgent("10m", pg.URL)})
	status, out := a.do("POST", "/api/agents/cautious/generate", `{"messages":"What can I use instead of sugar?","memory":{"thread":"baking","resource":"ann"}}`)
	if status != 200 || out["finishReason"] != "suspended" {
		t.Fatalf("generate on a: %d %v", status, out)
	}
	runID := out["runId"].(string)
	status, out = b.do("POST", "/api/agents/cautious/approve-tool-call", fmt.Sprintf(`{"runId":%q,"toolCallId":"call_1","resourceId":"ann"}`, runID))
	if status != 200 || !strings.Contains(fmt.Sprint(out["text"]), "honey") {
		t.Fatalf("approve on b: %d %v", status, out)
	}
	// The whole turn is in the thread, the call with its result.
	status, msgs := b.raw("GET", "/api/memory/threads/baking/messages?agentId=cautious&resourceId=ann", "")
	if status != 200 || !strings.Contains(string(msgs), "honey") || !strings.Contains(string(msgs), "instead of sugar") {
		t.Errorf("thread: %d %s", status, msgs)
	}
	if status, _ := a.do("POST", "/api/agents/cautious/approve-tool-call", fmt.Sprintf(`{"runId":%q,"toolCallId":"call_1","resourceId":"ann"}`, runID)); status != 404 {
		t.Errorf("replay on a: %d", status)
	}
}

// Two deciders at once on a shared store: exactly one wins.
func TestConcurrentDecisionsOneWins(t *testing.T) {
	db := "file:" + filepath.Join(t.TempDir(), "memory.db")
	e := startEnv(t, substituteModel(), envOptions{manifests: cautiousAgent("10m", db)})
	_, out := e.do("POST", "/api/agents/cautious/generate", `{"messages":"What can I use instead of milk?"}`)
	runID, _ := out["runId"].(string)
	codes := make(chan int, 4)
	for i := 0; i < 4; i++ {
		go func() {
			path := "/api/agents/cautious/approve-tool-call"
			if i%2 == 1 {
				path = "/api/agents/cautious/decline-tool-call"
			}
			status, _ := e.raw("POST", path, fmt.Sprintf(`{"runId":%q,"toolCallId":"call_1"}`, runID))
			codes <- status
		}()
	}
	won := 0
	for i := 0; i < 4; i++ {
		switch c := <-codes; c {
		case 200:
			won++
		case 404, 409:
		default:
			t.Errorf("status %d", c)
		}
	}
	if won != 1 {
		t.Errorf("%d decisions won, want 1", won)
	}
	if n := len(e.model.Requests()); n != 2 {
		t.Errorf("model requests: %d, want 2 (one continued run)", n)
	}
}

// The stream route says which calls wait (tool-call-approval chunks) and ends with the runId
// that approve-tool-call takes.
func TestStreamStopsForApproval(t *testing.T) {
	e := startEnv(t, substituteModel(), envOptions{manifests: cautiousAgent("10m", "")})
	status, raw := e.raw("POST", "/api/agents/cautious/stream", `{"messages":"What can I use instead of butter?"}`)
	if status != 200 || !strings.HasSuffix(string(raw), "data: [DONE]\n\n") {
		t.Fatalf("stream: %d %s", status, raw)
	}
	var approval, finish map[string]any
	for _, line := range strings.Split(string(raw), "\n") {
		payload, ok := strings.CutPrefix(line, "data: ")
		if !ok || payload == "[DONE]" {
			continue
		}
		var chunk map[string]any
		testutil.NoError(t, json.Unmarshal([]byte(payload), &chunk))
		switch chunk["type"] {
		case "tool-call-approval":
			approval = chunk["payload"].(map[string]any)
		case "finish":
			finish = chunk["payload"].(map[string]any)
		case "tool-result":
			t.Fatalf("a held call has a result: %v", chunk)
		}
	}
	if approval["toolCallId"] != "call_1" || approval["toolName"] != "suggest-substitute" || finish["finishReason"] != "suspended" || finish["runId"] == nil {
		t.Fatalf("approval %v, finish %v", approval, finish)
	}
	status, out := e.do("POST", "/api/agents/cautious/approve-tool-call", fmt.Sprintf(`{"runId":%q,"toolCallId":"call_1"}`, finish["runId"]))
	if status != 200 || !strings.Contains(fmt.Sprint(out["text"]), "olive oil") {
		t.Errorf("approve: %d %v", status, out)
	}
}
