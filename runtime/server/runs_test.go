package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/protocol/sse"
	"github.com/agentry-dev/agentry/runtime/memory"
	"github.com/agentry-dev/agentry/runtime/runlog"
)

// streamed is what a client read of a run's stream: each event's type and its whole JSON.
type streamed struct {
	types []string
	raw   []map[string]any
}

func (s *streamed) text() string {
	var b strings.Builder
	for _, ev := range s.raw {
		switch ev["type"] {
		case "TEXT_MESSAGE_CONTENT":
			b.WriteString(fmt.Sprint(ev["delta"]))
		case "text-delta": // Mastra's stream
			b.WriteString(fmt.Sprint(ev["payload"].(map[string]any)["text"]))
		}
	}
	return b.String()
}

// readRun sends req and reads its AG-UI events; with stopAfter > 0 it drops the connection
// after that many events.
func readRun(t *testing.T, req *http.Request, stopAfter int) (*streamed, int) {
	t.Helper()
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	res, err := http.DefaultClient.Do(req.WithContext(ctx))
	testutil.NoError(t, err)
	defer res.Body.Close()
	out := &streamed{}
	if res.StatusCode != http.StatusOK {
		return out, res.StatusCode
	}
	r := sse.NewReader(res.Body, 1<<20)
	for {
		data, err := r.Next()
		if err != nil {
			return out, res.StatusCode
		}
		var ev map[string]any
		if string(data) == "[DONE]" { // Mastra's stream ends so
			ev = map[string]any{"type": "[DONE]"}
		} else {
			testutil.NoError(t, json.Unmarshal(data, &ev))
		}
		out.types = append(out.types, fmt.Sprint(ev["type"]))
		out.raw = append(out.raw, ev)
		if stopAfter > 0 && len(out.types) == stopAfter {
			return out, res.StatusCode
		}
	}
}

func (e *env) runRequest(method, path, body string, header map[string]string) *http.Request {
	req, err := http.NewRequest(method, e.base+path, strings.NewReader(body))
	testutil.NoError(e.t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return req
}

const slowAnswer = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"

// slowModel answers slowly, word by word, or hangs on "hang".
func slowModel() scriptedmodel.Responder {
	return scriptedmodel.ResponderFunc(func(r *scriptedmodel.Request) scriptedmodel.Reply {
		if r.Messages[len(r.Messages)-1].Content == "hang" {
			return scriptedmodel.Reply{Hang: true}
		}
		return scriptedmodel.Reply{Text: slowAnswer, ChunkDelayMs: 30}
	})
}

func aguiRunBody(runID, thread, text string) string {
	return fmt.Sprintf(`{"threadId":%q,"runId":%q,"messages":[{"id":"u-%s","role":"user","content":%q}]}`, thread, runID, runID, text)
}

// TestRunOutlivesItsRequest: a client that drops its AG-UI stream mid-answer re-attaches with
// Last-Event-ID (the number of events it got) and reads the rest: together exactly the answer,
// nothing twice, ending RUN_FINISHED; the remembered thread holds the whole turn although no
// client was there at its end. Another user cannot re-attach; the same runId cannot start
// twice while it goes on; an unknown run is 404.
func TestRunOutlivesItsRequest(t *testing.T) {
	e := startEnv(t, slowModel(), envOptions{manifests: memoryAgent("memory://")})
	ann := map[string]string{DefaultUserHeader: "ann"}
	first, status := readRun(t, e.runRequest("POST", "/api/agents/rememberer/ag-ui", aguiRunBody("r1", "t1", "Count for me"), ann), 4)
	if status != 200 || len(first.types) != 4 || first.types[0] != "RUN_STARTED" {
		t.Fatalf("the first stream: %d %v", status, first.types)
	}
	if status, _ := e.rawWith("POST", "/api/agents/rememberer/ag-ui", aguiRunBody("r1", "t1", "Count for me"), ann); status != http.StatusConflict {
		t.Errorf("the same runId while it goes on: %d", status)
	}
	if _, status := readRun(t, e.runRequest("GET", "/api/agents/rememberer/ag-ui/runs/r1", "", map[string]string{DefaultUserHeader: "bob", "Last-Event-ID": "4"}), 0); status != http.StatusNotFound {
		t.Errorf("bob re-attaching to ann's run: %d", status)
	}
	if _, status := readRun(t, e.runRequest("GET", "/api/agents/rememberer/ag-ui/runs/nope", "", ann), 0); status != http.StatusNotFound {
		t.Errorf("an unknown run: %d", status)
	}
	hdr := map[string]string{DefaultUserHeader: "ann", "Last-Event-ID": strconv.Itoa(len(first.types))}
	rest, status := readRun(t, e.runRequest("GET", "/api/agents/rememberer/ag-ui/runs/r1", "", hdr), 0)
	if status != 200 || rest.types[len(rest.types)-1] != "RUN_FINISHED" || rest.types[0] == "RUN_STARTED" {
		t.Fatalf("the re-attached stream: %d %v", status, rest.types)
	}
	if got := first.text() + rest.text(); got != slowAnswer {
		t.Errorf("the answer read in two parts: %q", got)
	}
	// The turn is in the thread once the run ended.
	waitFor(t, func() bool {
		_, raw := e.raw("GET", "/api/memory/threads/t1/messages?agentId=rememberer&resourceId=ann", "")
		return strings.Contains(string(raw), "fifteen")
	}, "the whole answer in the thread")
	// From the start, with ?after=0, the whole stream again.
	all, _ := readRun(t, e.runRequest("GET", "/api/agents/rememberer/ag-ui/runs/r1?after=0", "", ann), 0)
	if all.text() != slowAnswer || len(all.types) != len(first.types)+len(rest.types) {
		t.Errorf("the whole stream again: %v", all.types)
	}
	if status, _ := e.rawWith("GET", "/api/agents/rememberer/ag-ui/runs/r1", "", map[string]string{DefaultUserHeader: "ann", "Last-Event-ID": "x"}); status != http.StatusBadRequest {
		t.Errorf("a Last-Event-ID that is no number: %d", status)
	}
}

// TestRunCancelTimeoutAndBounds: the cancel route ends a run (RUN_ERROR RUN_CANCELED, then 404
// for a second cancel); a run past the run timeout ends with RUN_TIMEOUT; a re-attach before
// the events a bounded log dropped gets RUN_ERROR EVENTS_GONE.
func TestRunCancelTimeoutAndBounds(t *testing.T) {
	e := startEnv(t, slowModel(), envOptions{server: func(o *Options) {
		o.RunTimeout = 2 * time.Second
		o.Runs = runlog.Limits{MaxEvents: 5}
	}})
	started, _ := readRun(t, e.runRequest("POST", "/api/agents/chef/ag-ui", aguiRunBody("hang-1", "t", "hang"), nil), 1)
	if len(started.types) != 1 {
		t.Fatalf("no RUN_STARTED: %v", started.types)
	}
	if status, out := e.do("POST", "/api/agents/chef/ag-ui/runs/hang-1/cancel", ""); status != http.StatusAccepted || out["status"] != "canceling" {
		t.Fatalf("cancel: %d %v", status, out)
	}
	ended, _ := readRun(t, e.runRequest("GET", "/api/agents/chef/ag-ui/runs/hang-1?after=1", "", nil), 0)
	if n := len(ended.raw); n == 0 || ended.raw[n-1]["type"] != "RUN_ERROR" || ended.raw[n-1]["code"] != codeRunCanceled {
		t.Errorf("after cancel: %v", ended.raw)
	}
	if status, _ := e.do("POST", "/api/agents/chef/ag-ui/runs/hang-1/cancel", ""); status != http.StatusNotFound {
		t.Errorf("a second cancel: %d", status)
	}

	timedOut, _ := readRun(t, e.runRequest("POST", "/api/agents/chef/ag-ui", aguiRunBody("hang-2", "t", "hang"), nil), 0)
	if n := len(timedOut.raw); n == 0 || timedOut.raw[n-1]["code"] != codeRunTimeout {
		t.Errorf("past the run timeout: %v", timedOut.raw)
	}

	full, _ := readRun(t, e.runRequest("POST", "/api/agents/chef/ag-ui", aguiRunBody("long", "t", "Count"), nil), 0)
	if full.types[len(full.types)-1] != "RUN_FINISHED" || len(full.types) <= 5 {
		t.Fatalf("the long run: %v", full.types)
	}
	gone, _ := readRun(t, e.runRequest("GET", "/api/agents/chef/ag-ui/runs/long?after=0", "", nil), 0)
	if len(gone.raw) != 1 || gone.raw[0]["code"] != codeEventsGone {
		t.Errorf("a re-attach before the kept events: %v", gone.raw)
	}
	tail, _ := readRun(t, e.runRequest("GET", "/api/agents/chef/ag-ui/runs/long?after="+strconv.Itoa(len(full.types)-2), "", nil), 0)
	if len(tail.types) != 2 || tail.types[1] != "RUN_FINISHED" {
		t.Errorf("the kept tail: %v", tail.types)
	}
}

// TestRunsAcrossReplicas: two runtimes share the agent's PostgreSQL memory, as replicas do. A
// client that dropped its stream on one re-attaches through the other and reads exactly the
// rest; a cancel through the other ends a run the first runs; a run whose replica stopped
// writing (a killed pod) ends its followers' streams with RUN_INTERRUPTED.
func TestRunsAcrossReplicas(t *testing.T) {
	pg := testutil.StartPostgres(t)
	a := startEnv(t, slowModel(), envOptions{manifests: memoryAgent(pg.URL)})
	b := startEnv(t, slowModel(), envOptions{manifests: memoryAgent(pg.URL)})
	ann := map[string]string{DefaultUserHeader: "ann"}

	first, _ := readRun(t, a.runRequest("POST", "/api/agents/rememberer/ag-ui", aguiRunBody("x1", "t1", "Count for me"), ann), 5)
	rest, status := readRun(t, b.runRequest("GET", "/api/agents/rememberer/ag-ui/runs/x1", "", map[string]string{DefaultUserHeader: "ann", "Last-Event-ID": "5"}), 0)
	if status != 200 || len(rest.types) == 0 || rest.types[len(rest.types)-1] != "RUN_FINISHED" {
		t.Fatalf("the rest through the other replica: %d %v", status, rest.types)
	}
	if got := first.text() + rest.text(); got != slowAnswer {
		t.Errorf("the answer across replicas: %q", got)
	}
	if _, status := readRun(t, b.runRequest("GET", "/api/agents/rememberer/ag-ui/runs/x1", "", map[string]string{DefaultUserHeader: "bob"}), 0); status != http.StatusNotFound {
		t.Errorf("bob through the other replica: %d", status)
	}

	started, _ := readRun(t, a.runRequest("POST", "/api/agents/rememberer/ag-ui", aguiRunBody("x2", "t2", "hang"), ann), 1)
	if len(started.types) != 1 {
		t.Fatalf("no RUN_STARTED: %v", started.types)
	}
	waitFor(t, func() bool {
		status, _ := b.rawWith("POST", "/api/agents/rememberer/ag-ui/runs/x2/cancel", "", ann)
		return status == http.StatusAccepted
	}, "the other replica to know the run")
	ended, _ := readRun(t, b.runRequest("GET", "/api/agents/rememberer/ag-ui/runs/x2?after=1", "", ann), 0)
	if n := len(ended.raw); n == 0 || ended.raw[n-1]["code"] != codeRunCanceled {
		t.Errorf("canceled through the other replica: %v", ended.raw)
	}

	// A replica that stopped writing mid-run: its row and events, no end, no heartbeat.
	store, err := memory.Open(context.Background(), pg.URL)
	testutil.NoError(t, err)
	defer store.Close()
	_, err = store.SaveRunEvents(context.Background(), "rememberer", "ghost", "ann", []memory.RunEvent{{Seq: 1, Data: []byte(`{"type":"RUN_STARTED"}`)}}, false, 100)
	testutil.NoError(t, err)
	defer func(d time.Duration) { interruptedAfter = d }(interruptedAfter)
	interruptedAfter = 500 * time.Millisecond
	ghost, _ := readRun(t, b.runRequest("GET", "/api/agents/rememberer/ag-ui/runs/ghost", "", ann), 0)
	if len(ghost.types) != 2 || ghost.types[0] != "RUN_STARTED" || ghost.raw[1]["code"] != codeRunInterrupted {
		t.Errorf("a run whose replica went away: %v", ghost.raw)
	}
}

// TestStreamRunOutlivesItsRequest: Mastra's stream route likewise: a client that drops the
// stream re-attaches at .../stream/runs/{runId} and reads exactly the rest, to [DONE].
func TestStreamRunOutlivesItsRequest(t *testing.T) {
	e := startEnv(t, slowModel(), envOptions{})
	first, status := readRun(t, e.runRequest("POST", "/api/agents/chef/stream", `{"runId":"s1","messages":"Count for me"}`, nil), 3)
	if status != 200 || first.types[0] != "start" {
		t.Fatalf("the first stream: %d %v", status, first.types)
	}
	rest, status := readRun(t, e.runRequest("GET", "/api/agents/chef/stream/runs/s1", "", map[string]string{"Last-Event-ID": "3"}), 0)
	if status != 200 || rest.types[len(rest.types)-1] != "[DONE]" || rest.types[len(rest.types)-2] != "finish" {
		t.Fatalf("the re-attached stream: %d %v", status, rest.types)
	}
	if got := first.text() + rest.text(); got != slowAnswer {
		t.Errorf("the answer read in two parts: %q", got)
	}
	if _, status := readRun(t, e.runRequest("GET", "/api/agents/chef/ag-ui/runs/s1", "", nil), 0); status != http.StatusNotFound {
		t.Errorf("a stream run through the AG-UI route: %d", status)
	}
}

// TestRunsWithoutRunIDAreDistinct: clients that send no runId get the specification's default
// (run_<epoch_ms>); sent together, within the same milliseconds, each is a run of its own and is
// answered, none refused as a re-start of another.
func TestRunsWithoutRunIDAreDistinct(t *testing.T) {
	e := startEnv(t, slowModel(), envOptions{})
	const n = 16
	type answer struct {
		status int
		runID  string
	}
	answers := make(chan answer, n)
	for i := range n {
		go func() {
			body := fmt.Sprintf(`{"messages":[{"id":"u%d","role":"user","content":"Count"}]}`, i)
			got, status := readRun(t, e.runRequest("POST", "/api/agents/weather/ag-ui", body, nil), 0)
			a := answer{status: status}
			if len(got.raw) > 0 && got.types[len(got.types)-1] == "RUN_FINISHED" {
				a.runID = fmt.Sprint(got.raw[0]["runId"])
			}
			answers <- a
		}()
	}
	seen := map[string]bool{}
	for range n {
		a := <-answers
		if a.status != 200 || !regexp.MustCompile(`^run_\d+$`).MatchString(a.runID) || seen[a.runID] {
			t.Errorf("a run without a runId: %d, id %q (seen before: %v)", a.status, a.runID, seen[a.runID])
		}
		seen[a.runID] = true
	}
}
