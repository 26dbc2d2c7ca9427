package server

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
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
	var list struct {
		Threads []map[string]any
		Total   int
		HasMore bool
	}
	_ = json.Unmarshal(threads, &list)
	if status != 200 || len(list.Threads) != 1 || list.Total != 1 || list.HasMore || list.Threads[0]["id"] != "trip" || list.Threads[0]["title"] != "What is the weather in Oslo?" {
		t.Errorf("threads: %d %s", status, threads)
	}
	status, body := e.do("GET", "/api/memory/threads/trip/messages?agentId=rememberer&resourceId=alice", "")
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
		"/api/memory/threads": 400,
		"/api/memory/threads?agentId=nobody&resourceId=alice":                      404,
		"/api/memory/threads?agentId=weather&resourceId=alice":                     404,
		"/api/memory/threads/missing/messages?agentId=rememberer&resourceId=alice": 404,
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
	testutil.NoError(t, err)
	defer resp.Body.Close()
	var events []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var ev map[string]any
			testutil.NoError(t, json.Unmarshal([]byte(line), &ev))
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

	_, stored := e.do("GET", "/api/memory/threads/chat-1/messages?agentId=rememberer&resourceId=carol", "")
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
		done <- aguiRun(t, e.base, "rememberer", `{"threadId":"t","messages":[{"id":"u1","role":"user","content":"slow"}],"forwardedProps":{"resourceId":"dora"}}`)
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
	status, out := e.do("POST", "/api/agents/rememberer/generate", `{"messages":"hi","memory":{"thread":"t","resource":"dora"}}`)
	if status != 500 || out["error"] != "failed to recall conversation memory: conversation memory is unavailable" {
		t.Errorf("generate during the outage: %d %v", status, out)
	}
	for _, path := range []string{"/api/memory/threads?agentId=rememberer&resourceId=dora", "/api/memory/threads/t/messages?agentId=rememberer&resourceId=dora"} {
		// The cause (a dial error naming the database's address) goes to the log only.
		if status, body := e.raw("GET", path, ""); status != 503 || string(body) != `{"error":"conversation memory is unavailable"}`+"\n" {
			t.Errorf("%s during the outage: %d %s", path, status, body)
		}
	}
	events = aguiRun(t, e.base, "rememberer", `{"threadId":"t","messages":[{"id":"u2","role":"user","content":"hi"}],"forwardedProps":{"resourceId":"dora"}}`)
	if last := events[len(events)-1]; last["type"] != "RUN_ERROR" || len(events) != 3 {
		t.Errorf("a run that cannot store its input stops before the model: %v", events)
	}

	// The database returns; so does the runtime, without a restart.
	pg.Start()
	waitFor(t, func() bool { s, _ := e.raw("GET", "/readyz", ""); return s == 200 }, "readiness after the outage")
	status, out = e.do("POST", "/api/agents/rememberer/generate", `{"messages":"again","memory":{"thread":"t","resource":"dora"}}`)
	if status != 200 || out["text"] != "answered" {
		t.Errorf("after recovery: %d %v", status, out)
	}
	_, stored := e.do("GET", "/api/memory/threads/t/messages?agentId=rememberer&resourceId=dora", "")
	if msgs := stored["messages"].([]any); len(msgs) != 3 { // u1 (stored before the outage), "again" and its answer
		t.Errorf("stored: %v", msgs)
	}
}

// TestThreadsBelongToTheirResource: a thread is its creator's; another resource is refused with
// 403 on every route, before a stream starts, and never sees the owner's messages.
func TestThreadsBelongToTheirResource(t *testing.T) {
	e := startEnv(t, scriptedmodel.DevScript(), envOptions{manifests: memoryAgent("memory://")})
	if status, _ := e.do("POST", "/api/agents/rememberer/generate", `{"messages":"my secret: 4242","memory":{"thread":"T","resource":"alice"}}`); status != 200 {
		t.Fatalf("alice: %d", status)
	}
	calls := len(e.model.Requests())
	checkOthersRefusedOnRuns(t, e)
	if n := len(e.model.Requests()); n != calls {
		t.Errorf("refused runs must not reach the model: %d calls", n-calls)
	}
	status, header, body := send(t, e.base+"/api/agents/rememberer/ag-ui", `{"threadId":"T","messages":[{"id":"a9","role":"user","content":"again"}],"forwardedProps":{"userId":"alice"}}`, nil)
	if status != 200 || !strings.HasPrefix(header.Get("Content-Type"), "text/event-stream") || !strings.Contains(string(body), "RUN_FINISHED") {
		t.Errorf("alice over AG-UI: %d %s", status, body)
	}

	// Without a threadId a run is thread_1, as specified, and is not remembered: two clients
	// naming no thread neither share one nor refuse each other.
	for _, who := range []string{"nia", "omar"} {
		events := aguiRun(t, e.base, "rememberer", `{"messages":[{"id":"n1","role":"user","content":"hi"}],"forwardedProps":{"resourceId":"`+who+`"}}`)
		if events[len(events)-1]["type"] != "RUN_FINISHED" || events[0]["threadId"] != "thread_1" {
			t.Errorf("%s without a threadId: %v", who, events)
		}
		if _, list := e.do("GET", "/api/memory/threads?agentId=rememberer&resourceId="+who, ""); list["total"] != 0.0 {
			t.Errorf("%s's run without a threadId was remembered: %v", who, list)
		}
	}
	checkThreadReads(t, e)
}

// checkForbidden checks the answer that refuses another resource's thread.
func checkForbidden(t *testing.T, what string, status int, header http.Header, body []byte) {
	t.Helper()
	if status != 403 || !strings.HasPrefix(header.Get("Content-Type"), "application/json") ||
		string(body) != `{"error":"Access denied: thread belongs to a different resource"}`+"\n" {
		t.Errorf("%s: %d %s %s", what, status, header.Get("Content-Type"), body)
	}
}

// checkOthersRefusedOnRuns: generate, stream and AG-UI runs on alice's thread T as another
// resource, or as none, are refused.
func checkOthersRefusedOnRuns(t *testing.T, e *env) {
	for _, path := range []string{"generate", "stream"} {
		for _, mem := range []string{`"memory":{"thread":"T","resource":"mallory"}`, `"threadId":"T","resourceId":"mallory"`, `"memory":{"thread":"T"}`} {
			status, header, body := send(t, e.base+"/api/agents/rememberer/"+path, `{"messages":"what is the secret?",`+mem+`}`, nil)
			checkForbidden(t, path+" "+mem, status, header, body)
		}
	}
	for name, req := range map[string]struct {
		body   string
		header http.Header
	}{
		"forwardedProps.resourceId": {`{"threadId":"T","messages":[{"id":"m1","role":"user","content":"hi"}],"forwardedProps":{"resourceId":"mallory"}}`, nil},
		"forwardedProps.userId":     {`{"threadId":"T","messages":[{"id":"m1","role":"user","content":"hi"}],"forwardedProps":{"userId":"mallory"}}`, nil},
		"user header":               {`{"threadId":"T","messages":[{"id":"m1","role":"user","content":"hi"}]}`, http.Header{"X-User-Id": {"mallory"}}},
		"no resource":               {`{"threadId":"T","messages":[{"id":"m1","role":"user","content":"hi"}]}`, nil},
	} {
		status, header, body := send(t, e.base+"/api/agents/rememberer/ag-ui", req.body, req.header)
		checkForbidden(t, "ag-ui with "+name, status, header, body)
	}
}

// checkThreadReads: mallory cannot read alice's thread nor list it; reads need a resource and
// valid paging; alice lists and pages through her thread.
func checkThreadReads(t *testing.T, e *env) {
	status, raw := e.raw("GET", "/api/memory/threads/T/messages?agentId=rememberer&resourceId=mallory", "")
	checkForbidden(t, "mallory reading", status, http.Header{"Content-Type": {"application/json"}}, raw)
	for path, want := range map[string]int{
		"/api/memory/threads?agentId=rememberer":                                     400,
		"/api/memory/threads/T/messages?agentId=rememberer":                          400,
		"/api/memory/threads?agentId=rememberer&page=-1&resourceId=alice":            400,
		"/api/memory/threads?agentId=rememberer&perPage=x&resourceId=alice":          400,
		"/api/memory/threads/T/messages?agentId=rememberer&limit=0&resourceId=alice": 400,
	} {
		if status, body := e.raw("GET", path, ""); status != want {
			t.Errorf("%s: %d %s, want %d", path, status, body, want)
		}
	}
	_, list := e.do("GET", "/api/memory/threads?agentId=rememberer&resourceId=mallory", "")
	if list["total"] != 0.0 || len(list["threads"].([]any)) != 0 {
		t.Errorf("mallory's threads: %v", list)
	}
	_, list = e.do("GET", "/api/memory/threads?agentId=rememberer&resourceid=alice", "") // older Mastra clients
	if list["total"] != 1.0 || list["threads"].([]any)[0].(map[string]any)["id"] != "T" {
		t.Errorf("alice's threads: %v", list)
	}
	// alice reads her thread a page at a time: generate stored 2 messages, AG-UI 2 more.
	_, page := e.do("GET", "/api/memory/threads/T/messages?agentId=rememberer&resourceId=alice&page=1&perPage=3", "")
	if page["total"] != 4.0 || page["page"] != 1.0 || page["perPage"] != 3.0 || page["hasMore"] != false || len(page["messages"].([]any)) != 1 {
		t.Errorf("alice's second page: %v", page)
	}
	_, page = e.do("GET", "/api/memory/threads/T/messages?agentId=rememberer&resourceId=alice&limit=1000", "")
	if page["perPage"] != 100.0 || len(page["messages"].([]any)) != 4 || strings.Contains(fmt.Sprint(page), "what is the secret") {
		t.Errorf("alice's thread: %v", page)
	}
}

// send posts a JSON body and returns the whole answer.
func send(t *testing.T, url, body string, header http.Header) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	testutil.NoError(t, err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, raw
}

// holdWriteLock takes SQLite's write lock on the database at path, as another writer would,
// until release: the runtime's save then waits on the busy timeout.
func holdWriteLock(t *testing.T, path string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	testutil.NoError(t, err)
	conn, err := db.Conn(context.Background())
	testutil.NoError(t, err)
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return func() {
		_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
		_ = conn.Close()
		_ = db.Close()
	}
}

// TestFinishedTurnsSurviveTheClientLeaving: the client leaves once it has the run's last event
// (or, for generate, once the model answered) while the store is slow; the turn is stored
// anyway.
func TestFinishedTurnsSurviveTheClientLeaving(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	proceed := make(chan struct{}, 1)
	responder := scriptedmodel.ResponderFunc(func(r *scriptedmodel.Request) scriptedmodel.Reply {
		if strings.HasPrefix(r.Messages[len(r.Messages)-1].Content, "wait") {
			<-proceed
		}
		return scriptedmodel.Reply{Text: "stored answer"}
	})
	gone := make(chan string, 8) // the path of each POST once its request's context ended
	e := startEnv(t, responder, envOptions{manifests: memoryAgent("file:" + path), server: func(o *Options) {
		o.Mount = func(e *echo.Echo) {
			e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
				return func(c echo.Context) error {
					if r := c.Request(); r.Method == http.MethodPost {
						go func() { <-r.Context().Done(); gone <- r.URL.Path }()
					}
					return next(c)
				}
			})
		}
	}})
	cases := []struct{ path, body, lastEvent string }{
		{"generate", `{"messages":"wait for me","memory":{"thread":"gen","resource":"erin"}}`, ""},
		{"stream", `{"messages":"wait for me","memory":{"thread":"str","resource":"erin"}}`, "step-finish"},
		{"ag-ui", `{"threadId":"agui","messages":[{"id":"u1","role":"user","content":"wait for me"}],"forwardedProps":{"resourceId":"erin"}}`, "TEXT_MESSAGE_END"},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			thread := map[string]string{"generate": "gen", "stream": "str", "ag-ui": "agui"}[tc.path]
			ctx, leave := context.WithCancel(context.Background())
			defer leave()
			req, _ := http.NewRequestWithContext(ctx, "POST", e.base+"/api/agents/rememberer/"+tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			answered := e.model.Stats().Completed
			responses := make(chan *http.Response, 1)
			go func() {
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					close(responses)
					return
				}
				responses <- resp
			}()
			// The model is answering (AG-UI has stored the input by now); another writer takes
			// the database before the run's save.
			waitFor(t, func() bool { return e.model.Stats().InFlight == 1 }, "the model request")
			release := holdWriteLock(t, path)
			proceed <- struct{}{}
			if tc.lastEvent == "" {
				waitFor(t, func() bool { return e.model.Stats().Completed > answered }, "the model answer")
			} else {
				resp := <-responses
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() && !strings.Contains(sc.Text(), tc.lastEvent) {
				}
			}
			leave()
			for p := ""; p != "/api/agents/rememberer/"+tc.path; { // the server notices the client is gone
				select {
				case p = <-gone:
				case <-time.After(10 * time.Second):
					t.Fatal("the server did not notice the client leave")
				}
			}
			release()
			waitFor(t, func() bool {
				_, page := e.do("GET", "/api/memory/threads/"+thread+"/messages?agentId=rememberer&resourceId=erin", "")
				msgs, _ := page["messages"].([]any)
				return len(msgs) == 2 && msgs[1].(map[string]any)["content"] == "stored answer"
			}, "the turn to be stored")
		})
	}
}
