package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

const leakAgents = `
apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: sleepy}
spec:
  id: sleepy
  description: Calls a service that never answers.
  inputSchema: {type: object}
  execute:
    http: {url: "URL"}
    timeout: 1m
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: leaky}
spec:
  model: {name: m, maxRetries: 0}
  tools: [{key: sleepy, toolRef: {name: sleepy}}]
`

// TestAbortedStreamsLeakNothing aborts streams while the model is answering, while it hangs and
// while a tool runs. The runs go on without their clients: the slow answers to their end, the
// hanging ones until they are canceled on purpose (the cancel route), which cancels their model
// requests and tool calls. Then everything shuts down and no goroutine is left behind.
func TestAbortedStreamsLeakNothing(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	t.Run("abort", func(t *testing.T) {
		toolCalled := make(chan struct{}, 64)
		svc := newHangingService(t, toolCalled)
		responder := scriptedmodel.ResponderFunc(func(r *scriptedmodel.Request) scriptedmodel.Reply {
			switch r.Messages[len(r.Messages)-1].Content {
			case "hang":
				return scriptedmodel.Reply{Hang: true}
			case "slow":
				return scriptedmodel.Reply{Text: strings.Repeat("word ", 200), ChunkDelayMs: 5}
			case "tool":
				return scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{{Name: "sleepy", Arguments: `{}`}}}
			}
			return scriptedmodel.Reply{Text: "ok"}
		})
		e := startEnv(t, responder, envOptions{manifests: strings.Replace(leakAgents, "URL", svc, 1)})
		client := &http.Client{Transport: &http.Transport{}}
		defer client.CloseIdleConnections()

		const rounds = 10
		for i := 0; i < rounds; i++ {
			for _, scenario := range []string{"hang", "slow", "tool"} {
				runID := fmt.Sprintf("%s-%d", scenario, i)
				abortAfterFirstEvent(t, client, e.base+"/api/agents/leaky/ag-ui", runID, scenario, toolCalled)
				if scenario != "slow" {
					if status, out := e.do("POST", "/api/agents/leaky/ag-ui/runs/"+runID+"/cancel", ""); status != http.StatusAccepted {
						t.Fatalf("cancel %s: %d %v", runID, status, out)
					}
				}
			}
		}
		waitFor(t, func() bool { return e.model.Stats().InFlight == 0 }, "model requests to end")
		// The slow answers and the tool runs' first steps complete; no hanging answer does.
		if st := e.model.Stats(); st.Completed != 2*rounds {
			t.Errorf("model requests: %+v, want %d completed", st, 2*rounds)
		}
		// A slow run whose client left finished: re-attaching replays it to RUN_FINISHED.
		status, raw := e.raw("GET", "/api/agents/leaky/ag-ui/runs/slow-0", "")
		if status != 200 || !strings.Contains(string(raw), "RUN_FINISHED") || strings.Count(string(raw), "word") != 200 {
			t.Errorf("re-attach to slow-0: %d %.300s", status, raw)
		}
		status, _ = e.raw("POST", "/api/agents/leaky/generate", userMessage("after the aborts"))
		if status != 200 {
			t.Errorf("a normal request after aborts: %d", status)
		}
	})
}

func abortAfterFirstEvent(t *testing.T, client *http.Client, url, runID, scenario string, toolCalled chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body := `{"runId":"` + runID + `","messages":[{"id":"u","role":"user","content":"` + scenario + `"}]}`
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	testutil.NoError(t, err)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	want := "RUN_STARTED"
	if scenario == "slow" {
		want = "TEXT_MESSAGE_CONTENT"
	}
	for sc.Scan() {
		if strings.Contains(sc.Text(), want) {
			break
		}
	}
	if scenario == "tool" {
		select {
		case <-toolCalled:
		case <-time.After(10 * time.Second):
			t.Fatal("the tool was never called")
		}
	}
	cancel()
}

func newHangingService(t *testing.T, called chan<- struct{}) string {
	t.Helper()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read the body, as a real service does: only then can net/http notice the caller leave.
		_, _ = io.ReadAll(r.Body)
		called <- struct{}{}
		<-r.Context().Done()
	})}
	ln := listen(t)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
