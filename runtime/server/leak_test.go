package server

import (
	"bufio"
	"context"
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
// while a tool runs, then shuts everything down and checks that no goroutine is left behind.
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
				return scriptedmodel.Reply{Text: strings.Repeat("word ", 200), ChunkDelayMs: 20}
			case "tool":
				return scriptedmodel.Reply{ToolCalls: []scriptedmodel.ToolCall{{Name: "sleepy", Arguments: `{}`}}}
			}
			return scriptedmodel.Reply{Text: "ok"}
		})
		e := startEnv(t, responder, envOptions{manifests: strings.Replace(leakAgents, "URL", svc, 1)})
		client := &http.Client{Transport: &http.Transport{}}
		defer client.CloseIdleConnections()

		for i := 0; i < 10; i++ {
			for _, scenario := range []string{"hang", "slow", "tool"} {
				abortAfterFirstEvent(t, client, e.base+"/api/agents/leaky/ag-ui", scenario, toolCalled)
			}
		}
		waitFor(t, func() bool { return e.model.Stats().InFlight == 0 }, "model requests to be canceled")
		// Only the ten tool runs' first steps may complete; every hanging or slow answer must
		// have been canceled (or never sent, when the client left before the model was called).
		if st := e.model.Stats(); st.Completed != 10 {
			t.Errorf("aborted runs must cancel their model requests: %+v", st)
		}
		status, _ := e.raw("POST", "/api/agents/leaky/generate", userMessage("after the aborts"))
		if status != 200 {
			t.Errorf("a normal request after aborts: %d", status)
		}
	})
}

func abortAfterFirstEvent(t *testing.T, client *http.Client, url, scenario string, toolCalled chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body := `{"messages":[{"id":"u","role":"user","content":"` + scenario + `"}]}`
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
		case <-time.After(5 * time.Second):
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
