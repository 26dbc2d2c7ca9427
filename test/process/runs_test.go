package process

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/protocol/sse"
)

// runEvents reads an AG-UI stream's event types, stopping after stopAfter (0: to its end).
func runEvents(t *testing.T, req *http.Request, stopAfter int) []map[string]any {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	testutil.Check(t, err)
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d", req.Method, req.URL.Path, res.StatusCode)
	}
	var out []map[string]any
	r := sse.NewReader(res.Body, 1<<20)
	for {
		data, err := r.Next()
		if err != nil {
			return out
		}
		var ev map[string]any
		testutil.Check(t, json.Unmarshal(data, &ev))
		out = append(out, ev)
		if stopAfter > 0 && len(out) == stopAfter {
			return out
		}
	}
}

// TestKilledRuntimesRunIsReportedInterrupted: two runtime processes share an agent's
// PostgreSQL memory. A run streams from one, which is killed (SIGKILL, as a node is lost)
// mid-answer; the client re-attaches through the other, which follows the run from the store:
// its stream ends with RUN_ERROR code RUN_INTERRUPTED, never left hanging.
func TestKilledRuntimesRunIsReportedInterrupted(t *testing.T) {
	pg := testutil.StartPostgres(t)
	script := filepath.Join(t.TempDir(), "script.yaml")
	testutil.Check(t, os.WriteFile(script, []byte("fallback:\n  text: \"one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty\"\n  chunkDelayMs: 500\n"), 0o600))
	_, modelURL := start(t, nil, `listening on (http://\S+)`, "scripted-model", "--addr", "127.0.0.1:0", "--script", script)
	config := memoryConfig(t, pg.URL)
	a, addrA := serveMemory(t, modelURL, config)
	_, addrB := serveMemory(t, modelURL, config)

	body := `{"threadId":"t1","runId":"doomed","messages":[{"id":"u1","role":"user","content":"Count slowly"}]}`
	req, _ := http.NewRequest("POST", "http://"+addrA+"/api/agents/diary/ag-ui", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-User-Id", "ann")
	first := runEvents(t, req, 4) // RUN_STARTED, STEP_STARTED, TEXT_MESSAGE_START, a delta
	if len(first) != 4 || first[3]["type"] != "TEXT_MESSAGE_CONTENT" {
		t.Fatalf("the first stream: %v", first)
	}

	testutil.Check(t, a.Cmd.Process.Kill())
	<-a.Exited()
	killed := time.Now()

	// The client comes back through the other runtime, which follows the run from the store.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	follow, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addrB+"/api/agents/diary/ag-ui/runs/doomed", nil)
	follow.Header.Set("X-User-Id", "ann")
	follow.Header.Set("Last-Event-ID", "4")
	evs := runEvents(t, follow, 0)
	if n := len(evs); n == 0 || evs[n-1]["type"] != "RUN_ERROR" || evs[n-1]["code"] != "RUN_INTERRUPTED" {
		t.Fatalf("the follower's stream after the kill: %v", evs)
	}
	for _, ev := range evs {
		if ev["type"] == "RUN_FINISHED" || ev["type"] == "RUN_STARTED" {
			t.Errorf("the follower got %v", ev["type"])
		}
	}
	t.Logf("RUN_INTERRUPTED %s after the kill, %d events in between", time.Since(killed).Round(time.Second), len(evs)-1)
}
