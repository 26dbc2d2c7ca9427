package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/protocol/sse"
)

// sseLines posts an AG-UI run and returns a channel of the stream's raw lines.
func sseLines(t *testing.T, base, agent, text string) <-chan string {
	t.Helper()
	body := fmt.Sprintf(`{"threadId":"t","runId":"r","messages":[{"id":"m1","role":"user","content":%q}],"tools":[],"context":[],"state":{},"forwardedProps":{}}`, text)
	resp, err := http.Post(base+"/api/agents/"+agent+"/ag-ui", "application/json", strings.NewReader(body))
	testutil.NoError(t, err)
	if resp.StatusCode != 200 {
		t.Fatalf("ag-ui status %d", resp.StatusCode)
	}
	lines := make(chan string, 256)
	go func() {
		defer close(lines)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	t.Cleanup(func() { resp.Body.Close() })
	return lines
}

// nextEvent returns the type (and code) of the next data line, failing after the timeout.
func nextEvent(t *testing.T, lines <-chan string, timeout time.Duration) (typ, code string) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return "", ""
			}
			if !strings.HasPrefix(l, "data: ") {
				continue
			}
			var ev struct{ Type, Code string }
			if err := json.Unmarshal([]byte(strings.TrimPrefix(l, "data: ")), &ev); err != nil {
				t.Fatalf("bad event %q", l)
			}
			return ev.Type, ev.Code
		case <-deadline:
			t.Fatal("no event in time")
		}
	}
}

func TestSSEKeepAliveWhileTheModelIsSilent(t *testing.T) {
	e := startEnv(t, scriptedmodel.ResponderFunc(func(*scriptedmodel.Request) scriptedmodel.Reply {
		return scriptedmodel.Reply{Hang: true}
	}), envOptions{server: func(o *Options) { o.KeepAlive = 100 * time.Millisecond }})
	lines := sseLines(t, e.base, "chef", "think long")
	deadline := time.After(5 * time.Second)
	comments := 0
	for comments < 2 {
		select {
		case l := <-lines:
			if l == strings.TrimSuffix(sse.KeepAliveFrame, "\n\n") {
				comments++
			}
		case <-deadline:
			t.Fatalf("saw %d keep-alive comments in 5 s at a 100 ms interval", comments)
		}
	}
}

// serveOwn runs a second server on the env's registry with its own lifetime.
func serveOwn(t *testing.T, e *env, drain time.Duration) (base string, stop func() error) {
	t.Helper()
	srv := New(Options{Registry: e.reg, Logger: testr.New(t), DrainTimeout: drain})
	ln := listen(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	return "http://" + ln.Addr().String(), func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			t.Fatal("Serve did not return after shutdown")
			return nil
		}
	}
}

// At shutdown a stream that does not end within the drain period is ended with RUN_ERROR, and
// Serve returns nil (the process exits 0 on a rollout).
func TestShutdownEndsStreamsAfterTheDrainPeriod(t *testing.T) {
	e := startEnv(t, scriptedmodel.ResponderFunc(func(*scriptedmodel.Request) scriptedmodel.Reply {
		return scriptedmodel.Reply{Hang: true}
	}), envOptions{})
	base, stop := serveOwn(t, e, 300*time.Millisecond)
	lines := sseLines(t, base, "chef", "hang")
	if typ, _ := nextEvent(t, lines, 5*time.Second); typ != "RUN_STARTED" {
		t.Fatalf("first event %s", typ)
	}
	waitFor(t, func() bool { return e.model.Stats().InFlight == 1 }, "the model request")
	errc := make(chan error, 1)
	go func() { errc <- stop() }()
	var got []string
	for {
		typ, code := nextEvent(t, lines, 10*time.Second)
		if typ == "" {
			break
		}
		got = append(got, typ+":"+code)
	}
	if err := <-errc; err != nil {
		t.Fatalf("Serve after a drained shutdown: %v, want nil", err)
	}
	if end := strings.Join(got, " "); !strings.HasSuffix(end, "error: RUN_ERROR:"+codeShuttingDown) || strings.Contains(end, "RUN_FINISHED") {
		t.Fatalf("events after shutdown: %v", got)
	}
}

// A stream that finishes within the drain period finishes normally.
func TestShutdownLetsStreamsFinish(t *testing.T) {
	e := startEnv(t, scriptedmodel.ResponderFunc(func(*scriptedmodel.Request) scriptedmodel.Reply {
		return scriptedmodel.Reply{Text: strings.Repeat("word ", 10), ChunkDelayMs: 60}
	}), envOptions{})
	base, stop := serveOwn(t, e, 10*time.Second)
	lines := sseLines(t, base, "chef", "slow")
	if typ, _ := nextEvent(t, lines, 5*time.Second); typ != "RUN_STARTED" {
		t.Fatalf("first event %s", typ)
	}
	errc := make(chan error, 1)
	go func() { errc <- stop() }()
	last := ""
	for {
		typ, _ := nextEvent(t, lines, 10*time.Second)
		if typ == "" {
			break
		}
		last = typ
	}
	if last != "RUN_FINISHED" {
		t.Fatalf("last event %q, want RUN_FINISHED", last)
	}
	if err := <-errc; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// Transport failures name hosts and addresses: those go to the log, not to the caller.
func TestInternalCausesStayInTheLog(t *testing.T) {
	e := startEnv(t, scriptedmodel.Sequence(), envOptions{manifests: `
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: once}
spec:
  model: {name: m, maxRetries: 0}
`})
	modelAddr := strings.TrimPrefix(e.model.URL(), "http://")
	_ = e.model.Close()
	status, raw := e.raw(http.MethodPost, "/api/agents/once/generate", userMessage("hi"))
	if status != 500 || strings.Contains(string(raw), modelAddr) || strings.Contains(string(raw), "127.0.0.1") || !strings.Contains(string(raw), "could not be reached") {
		t.Fatalf("unreachable model: %d %s", status, raw)
	}
	_, raw = e.raw(http.MethodPost, "/api/agents/once/stream", userMessage("hi"))
	if strings.Contains(string(raw), "127.0.0.1") || !strings.Contains(string(raw), "could not be reached") {
		t.Fatalf("stream error chunk: %s", raw)
	}
}

func TestReadyzNamesTheDependencyNotItsError(t *testing.T) {
	dir := t.TempDir()
	e := startEnv(t, scriptedmodel.Sequence(), envOptions{manifests: fmt.Sprintf(`
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: remembers}
spec:
  model: {name: m}
  memory: {url: "file:%s"}
`, filepath.Join(dir, "m.db"))})
	if status, _ := e.do(http.MethodGet, "/readyz", ""); status != 200 {
		t.Fatalf("ready: %d", status)
	}
	for _, st := range e.reg.Stores() {
		_ = st.Close()
	}
	status, raw := e.raw(http.MethodGet, "/readyz", "")
	body := string(raw)
	if status != 503 || !strings.Contains(body, `"dependency":"memory"`) || !strings.Contains(body, `"remembers"`) || strings.Contains(body, "closed") || strings.Contains(body, dir) {
		t.Fatalf("readyz with the store down: %d %s", status, body)
	}
}
