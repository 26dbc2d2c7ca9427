package bridge_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// Modes of fakeAgent: how it answers the next requests.
const (
	modeGood        = "good"         // a well-behaved AG-UI stream with the reply text
	modeStatus401   = "401"          // HTTP 401
	modeStatus403   = "403"          // HTTP 403
	modeStatus500   = "500"          // HTTP 500
	modeHTML        = "html"         // 200 text/html
	modeRunError    = "run-error"    // RUN_STARTED, RUN_ERROR
	modeInterrupted = "interrupted"  // RUN_STARTED, RUN_ERROR RUN_INTERRUPTED (Agentry's runtime: its replica went away)
	modeErrorEvent  = "error-event"  // the specification's {type: error, message}
	modeIdle        = "idle"         // RUN_STARTED, then nothing until the client goes away
	modeKeepAlive   = "keepalive"    // RUN_STARTED, then keep-alive comments forever
	modeNoFinish    = "no-finish"    // a text message, then the stream ends without RUN_FINISHED
	modeBadJSON     = "bad-json"     // an event that is not JSON
	modeSilent      = "silent"       // no answer at all (not even headers) until the client goes away
	modeRedirect    = "redirect"     // 307 to another path of the same server
	modeHold        = "hold"         // requests whose last message contains holdMarker wait for release, then good
	modeMastraGood  = "mastra-good"  // 200 {"text": reply}
	modeMastra500   = "mastra-500"   // 500 {"error": …}
	modeMastraText  = "mastra-text"  // 200 text/plain
	modeMastraNoise = "mastra-noise" // 200 application/json that is not JSON
)

const holdMarker = "[hold]"

// fakeAgent is an agent endpoint (AG-UI or generate) whose behaviour a test switches.
type fakeAgent struct {
	URL string

	mu      sync.Mutex
	mode    string
	reply   string
	bodies  []string
	paths   []string
	headers []http.Header

	held    chan struct{} // a held request arrived
	release chan struct{} // closed: held requests go on
	relOnce sync.Once
	stop    chan struct{} // closed when the test ends: every handler returns
}

func startFakeAgent(t *testing.T) *fakeAgent {
	t.Helper()
	f := &fakeAgent{mode: modeGood, reply: "All good.", held: make(chan struct{}, 16), release: make(chan struct{}), stop: make(chan struct{})}
	srv := httptest.NewServer(f)
	f.URL = srv.URL
	t.Cleanup(func() {
		close(f.stop)
		f.releaseHeld()
		srv.Close()
	})
	return f
}

// set switches the behaviour for the next requests.
func (f *fakeAgent) set(mode, reply string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mode, f.reply = mode, reply
}

func (f *fakeAgent) releaseHeld() { f.relOnce.Do(func() { close(f.release) }) }

// requests returns the bodies received so far.
func (f *fakeAgent) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.bodies...)
}

// requested reports whether a request for path arrived.
func (f *fakeAgent) requested(path string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Contains(f.paths, path)
}

func (f *fakeAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		// An AG-UI server that is not Agentry's runtime: no runs to re-attach to.
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	in, mode, reply := f.record(r)
	if !f.answerPlain(w, r, mode, reply) {
		f.stream(sseWriter{w}, r, in, mode, reply)
	}
}

// runInput is what the fake agent reads of a request.
type runInput struct {
	ThreadID string `json:"threadId"`
	RunID    string `json:"runId"`
	Messages []struct {
		Content string `json:"content"`
	} `json:"messages"`
}

// record keeps the request (body, path, headers) and returns its input and the current mode.
func (f *fakeAgent) record(r *http.Request) (in runInput, mode, reply string) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	mode, reply = f.mode, f.reply
	f.bodies = append(f.bodies, string(body))
	f.paths = append(f.paths, r.URL.Path)
	f.headers = append(f.headers, r.Header.Clone())
	f.mu.Unlock()
	_ = json.Unmarshal(body, &in)
	return in, mode, reply
}

// answerPlain answers the modes that are no event stream; false for the streaming ones.
func (f *fakeAgent) answerPlain(w http.ResponseWriter, r *http.Request, mode, reply string) bool {
	switch mode {
	case modeSilent:
		f.untilGone(r)
	case modeRedirect:
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	case modeStatus401:
		http.Error(w, "missing credentials", http.StatusUnauthorized)
	case modeStatus403:
		http.Error(w, "forbidden", http.StatusForbidden)
	case modeStatus500:
		http.Error(w, "internal error", http.StatusInternalServerError)
	case modeHTML:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, "<html><body>Not an agent</body></html>")
	case modeMastraGood:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"text": reply})
	case modeMastra500:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"error":"the model provider is down"}`)
	case modeMastraText:
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "hello")
	case modeMastraNoise:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "{this is not json")
	default:
		return false
	}
	return true
}

// untilGone waits until the client goes away or the test ends.
func (f *fakeAgent) untilGone(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-f.stop:
	}
}

// released waits until the test releases held requests; false when the client went away or
// the test ended first.
func (f *fakeAgent) released(r *http.Request) bool {
	select {
	case <-r.Context().Done():
		return false
	case <-f.stop:
		return false
	case <-f.release:
		return true
	}
}

// sseWriter writes an event stream, flushing every event.
type sseWriter struct{ w http.ResponseWriter }

func (s sseWriter) write(text string) {
	_, _ = io.WriteString(s.w, text)
	if fl, ok := s.w.(http.Flusher); ok {
		fl.Flush()
	}
}

func (s sseWriter) send(ev map[string]any) {
	ev["timestamp"] = time.Now().UnixMilli()
	b, _ := json.Marshal(ev)
	s.write("data: " + string(b) + "\n\n")
}

// stream answers the streaming modes with AG-UI events.
func (f *fakeAgent) stream(s sseWriter, r *http.Request, in runInput, mode, reply string) {
	s.w.Header().Set("Content-Type", "text/event-stream")
	s.w.Header().Set("Cache-Control", "no-cache")
	s.w.WriteHeader(http.StatusOK)
	started := map[string]any{"type": "RUN_STARTED", "threadId": in.ThreadID, "runId": in.RunID}
	switch mode {
	case modeRunError:
		s.send(started)
		s.send(map[string]any{"type": "RUN_ERROR", "message": "the model provider is down", "code": "PROVIDER_DOWN"})
	case modeInterrupted:
		s.send(started)
		s.send(map[string]any{"type": "RUN_ERROR", "code": "RUN_INTERRUPTED", "message": "The run was interrupted: the replica running it went away. Send the message again."})
	case modeErrorEvent:
		s.send(map[string]any{"type": "error", "message": "Agent processing failed"})
	case modeIdle:
		s.send(started)
		f.untilGone(r)
	case modeKeepAlive:
		s.send(started)
		tick := time.NewTicker(40 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-f.stop:
				return
			case <-tick.C:
				s.write(": keep-alive\n\n")
			}
		}
	case modeNoFinish:
		s.send(started)
		s.send(map[string]any{"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"})
		s.send(map[string]any{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "I was about to say"})
		s.send(map[string]any{"type": "TEXT_MESSAGE_END", "messageId": "m1"})
	case modeBadJSON:
		s.send(started)
		s.write("data: {\"type\": \"TEXT_MESSAGE_START\", oops\n\n")
	case modeHold:
		s.send(started)
		if n := len(in.Messages); n > 0 && strings.Contains(in.Messages[n-1].Content, holdMarker) {
			f.held <- struct{}{}
			if !f.released(r) {
				return
			}
		}
		f.good(s.send, in.ThreadID, in.RunID, reply)
	default:
		s.send(started)
		f.good(s.send, in.ThreadID, in.RunID, reply)
	}
}

func (f *fakeAgent) good(send func(map[string]any), thread, run, reply string) {
	id := fmt.Sprintf("msg-%d", time.Now().UnixNano())
	send(map[string]any{"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"})
	half := len(reply) / 2
	send(map[string]any{"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": reply[:half]})
	send(map[string]any{"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": reply[half:]})
	send(map[string]any{"type": "TEXT_MESSAGE_END", "messageId": id})
	send(map[string]any{"type": "RUN_FINISHED", "threadId": thread, "runId": run})
}

// closedURL is an http URL nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testutil.NoError(t, err)
	addr := ln.Addr().String()
	_ = ln.Close()
	return "http://" + addr + "/agent"
}

// untrustedTLSURL is an https agent whose certificate the bridge's client does not trust.
func untrustedTLSURL(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL + "/agent"
}

func agentErrorOf(t *testing.T, m model.Message) model.AgentErrorData {
	t.Helper()
	var d model.AgentErrorData
	if err := json.Unmarshal(m.Data, &d); err != nil {
		t.Fatalf("agent_error data %s: %v", m.Data, err)
	}
	return d
}

// waitAgentError waits for the agent_error message of run runID in uid's conversation with
// `with` (a user or "group:guid") and checks its shape and code.
func (e *chatEnv) waitAgentError(uid, with, runID, code string, within time.Duration) model.Message {
	e.t.Helper()
	m := e.waitMessage(uid, with, within, func(m model.Message) bool {
		return m.Type == model.TypeAgentError && strings.Contains(string(m.Data), runID)
	})
	d := agentErrorOf(e.t, m)
	if m.Category != model.CategoryAgentic || d.Code != code || d.RunID != runID {
		e.t.Errorf("agent_error message: category %q, data %+v; want agentic, code %s, run %s", m.Category, d, code, runID)
	}
	return m
}

// waitRunError waits for the RUN_ERROR frame of the run and checks its code.
func (s *socket) waitRunError(t *testing.T, within time.Duration, code string) agentEvent {
	t.Helper()
	ev := s.waitAgentEvent(t, within, "RUN_ERROR", func(ev agentEvent) bool { return ev.Type == "RUN_ERROR" })
	if ev.Code != code {
		t.Errorf("RUN_ERROR code %q, want %q (message %q)", ev.Code, code, ev.Message)
	}
	return ev
}
