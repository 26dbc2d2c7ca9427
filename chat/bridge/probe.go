package bridge

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/protocol/agui"
	"github.com/agentry-dev/agentry/internal/protocol/sse"
)

// ConnectionTest is the report of an agent's connection test (POST /agents/{agentId}/test):
// the specification's checks when nothing works (reachable, 2xx, text/event-stream, events
// arrive).
type ConnectionTest struct {
	OK          bool     `json:"ok"`
	Status      int      `json:"status"`
	ContentType string   `json:"contentType"`
	FirstEvents []string `json:"firstEvents"`
	Error       string   `json:"error,omitempty"`
}

// probeEvents is how many events a connection test reads before it calls the agent reachable.
const probeEvents = 5

// Probe posts a one-line conversation to the agent the way a run does (the same request and
// event reader) and reports what came back. The report never carries the headers, an address
// or a port.
func Probe(ctx context.Context, client *http.Client, cfg model.AgentConfig, headers map[string]string) ConnectionTest {
	out := ConnectionTest{FirstEvents: []string{}}
	const text = "Hello! This is a connection test from the Agentry chat service."
	if cfg.Provider == model.ProviderA2A {
		return probeA2A(ctx, client, cfg.DeploymentURL, headers, text)
	}
	var body any
	accept := "text/event-stream"
	if cfg.Provider == model.ProviderMastra {
		body, accept = map[string]any{"messages": []mastraMessage{{Role: "user", Content: text}}}, "application/json"
	} else {
		now := time.Now().UnixMilli()
		body = runInput(fmt.Sprintf("connection-test-%d", now), fmt.Sprintf("run_%d", now),
			[]agui.Message{{ID: fmt.Sprintf("msg_%d", now), Role: "user", Content: agui.Text(text)}}, []agui.Tool{})
	}
	b, _ := json.Marshal(body)
	req, err := newRequest(ctx, cfg.DeploymentURL, headers, b, accept)
	if err != nil {
		out.Error = "invalid deployment URL"
		return out
	}
	res, err := client.Do(req)
	if err != nil {
		out.Error = "request failed: " + probeFailure(ctx, err)
		return out
	}
	defer res.Body.Close()
	out.Status, out.ContentType = res.StatusCode, res.Header.Get("Content-Type")
	if res.StatusCode < 200 || res.StatusCode > 299 {
		out.Error = fmt.Sprintf("the agent answered %s", res.Status)
		if res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden {
			out.Error += ": check the agent's headers"
		}
		return out
	}
	if !hasMediaType(res, accept) {
		out.Error = fmt.Sprintf("the agent answered content type %q, want %s", out.ContentType, accept)
		return out
	}
	if cfg.Provider == model.ProviderMastra {
		var v any
		if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&v); err != nil {
			out.Error = "the agent's answer is not JSON"
			return out
		}
		out.OK = true
		return out
	}
	probeStream(ctx, res.Body, &out)
	return out
}

// probeStream reads the first events of an AG-UI answer into out.
func probeStream(ctx context.Context, r io.Reader, out *ConnectionTest) {
	events := sse.NewReader(r, maxLine)
	for len(out.FirstEvents) < probeEvents {
		raw, err := events.Next()
		if err != nil {
			if !sse.IsEOF(err) {
				out.Error = "the stream broke: " + probeFailure(ctx, err)
				return
			}
			break
		}
		var ev agui.Event
		if err := json.Unmarshal(raw, &ev); err != nil || ev.Type == "" {
			out.Error = "an event is not JSON with a type"
			return
		}
		out.FirstEvents = append(out.FirstEvents, ev.Type)
		if ev.Type == agui.RunError || ev.Type == agui.ErrorType {
			out.Error = "the agent reported an error event"
			return
		}
	}
	if len(out.FirstEvents) == 0 {
		out.Error = "the stream ended without events"
		return
	}
	out.OK = true
}

// probeFailure names a failure's category only: the test's answer must not turn the server
// into a port scanner (no address, port or dial error text).
func probeFailure(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return "timed out"
	}
	var tlsErr *tls.CertificateVerificationError
	if errors.As(err, &tlsErr) || strings.Contains(err.Error(), "tls:") || errors.Is(err, http.ErrSchemeMismatch) {
		return "the TLS handshake failed"
	}
	return DescribeDialError(err)
}

// probeA2A reads the agent card (for a card URL) and sends one message (message/send): the
// events are the answer's kind and the task's final state.
func probeA2A(ctx context.Context, client *http.Client, url string, headers map[string]string, text string) ConnectionTest {
	out := ConnectionTest{FirstEvents: []string{}, ContentType: "application/json"}
	c, err := a2aClient(ctx, client, url, headers)
	if err != nil {
		out.Error = "request failed: " + probeFailure(ctx, err)
		return out
	}
	res, err := c.SendMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: text})})
	if err != nil {
		out.Error = "the agent refused the message: " + clip(err.Error(), 200)
		return out
	}
	out.Status, out.OK = http.StatusOK, true
	switch r := res.(type) {
	case *a2a.Task:
		out.FirstEvents = append(out.FirstEvents, "task", string(r.Status.State))
		if r.Status.State == a2a.TaskStateFailed || r.Status.State == a2a.TaskStateRejected {
			out.OK, out.Error = false, "the task ended "+string(r.Status.State)
		}
	case *a2a.Message:
		out.FirstEvents = append(out.FirstEvents, "message")
	}
	return out
}
