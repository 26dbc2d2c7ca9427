package bridge_test

import (
	"cmp"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/platform/egress"
)

const (
	failIdle = 800 * time.Millisecond
	failRun  = 2 * time.Second
)

// failureCase is one way an agent fails.
type failureCase struct {
	name     string
	provider string // "" = ag-ui
	url      string // "" = the fake agent
	mode     string
	code     string
	text     string // in the error frame and message
}

// TestFailures: every way an agent can fail, against one misbehaving server. Each failure
// ends the run with a RUN_ERROR frame and an agent_error message with its code, promptly;
// then the server behaves and the next message in the same conversation is answered, so the
// failed run released the conversation and the error did not reach the agent's history.
func TestFailures(t *testing.T) {
	f := startFakeAgent(t)
	env := startChat(t, bridge.Options{IdleTimeout: failIdle, RunTimeout: failRun})
	for _, c := range []failureCase{
		{name: "unreachable", url: closedURL(t), code: model.RunErrUnreachable, text: "could not be reached"},
		{name: "tls", url: untrustedTLSURL(t, f), mode: modeGood, code: model.RunErrTLS, text: "TLS certificate could not be verified"},
		{name: "https-to-http", url: strings.Replace(f.URL, "http:", "https:", 1) + "/agent", code: model.RunErrTLS, text: "TLS"},
		{name: "status-401", mode: modeStatus401, code: model.RunErrUnauthorized, text: "HTTP 401); an admin should check the agent's headers"},
		{name: "status-403", mode: modeStatus403, code: model.RunErrUnauthorized, text: "HTTP 403"},
		{name: "status-500", mode: modeStatus500, code: model.RunErrHTTP, text: "it answered HTTP 500"},
		{name: "html", mode: modeHTML, code: model.RunErrContentType, text: "content type text/html"},
		{name: "run-error", mode: modeRunError, code: model.RunErrAgent, text: "it reported an error: the model provider is down"},
		{name: "interrupted", mode: modeInterrupted, code: model.RunErrInterrupted, text: "its answer was interrupted: the agent stopped before it finished"},
		{name: "error-event", mode: modeErrorEvent, code: model.RunErrAgent, text: "it reported an error: Agent processing failed"},
		{name: "redirect", mode: modeRedirect, code: model.RunErrHTTP, text: "it answered HTTP 307"},
		{name: "no-response", mode: modeSilent, code: model.RunErrIdleTimeout, text: "it stopped sending for " + failIdle.String()},
		{name: "idle", mode: modeIdle, code: model.RunErrIdleTimeout, text: "it stopped sending for " + failIdle.String()},
		{name: "keepalive", mode: modeKeepAlive, code: model.RunErrRunTimeout, text: "it did not finish within " + failRun.String()},
		{name: "no-finish", mode: modeNoFinish, code: model.RunErrProtocol, text: "no RUN_FINISHED"},
		{name: "bad-json", mode: modeBadJSON, code: model.RunErrProtocol, text: "not AG-UI"},
		{name: "mastra-500", provider: "mastra", mode: modeMastra500, code: model.RunErrHTTP, text: "it answered HTTP 500"},
		{name: "mastra-text", provider: "mastra", mode: modeMastraText, code: model.RunErrContentType, text: "content type text/plain instead of JSON"},
		{name: "mastra-noise", provider: "mastra", mode: modeMastraNoise, code: model.RunErrProtocol, text: "its answer is not JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := env.forTest(t)
			uid, agent := "u-"+c.name, "a-"+c.name
			provider, goodMode := "ag-ui", modeGood
			if c.provider == "mastra" {
				provider, goodMode = "mastra", modeMastraGood
			}
			url := c.url
			url = cmp.Or(url, f.URL+"/agent")
			f.set(c.mode, "This is not the answer.")
			e.putAgent(map[string]any{"agentId": agent, "provider": provider, "deploymentUrl": url})
			c.fails(t, e, uid, agent)

			// The agent recovers: the next message in the same conversation is answered.
			if c.url != "" {
				e.putAgent(map[string]any{"agentId": agent, "provider": provider, "deploymentUrl": f.URL + "/agent"})
			}
			c.recovers(t, e, f, uid, agent, goodMode)
		})
	}
}

// fails sends the message the agent fails on and checks the error frame and message.
func (c failureCase) fails(t *testing.T, e *chatEnv, uid, agent string) {
	sock := e.connect(uid)
	sent := time.Now()
	r := e.must(e.send(uid, agent, "Hello, are you there?"), http.StatusCreated)
	if d := time.Since(sent); d > time.Second {
		t.Errorf("sending the message took %s: the request waited for the run", d)
	}
	runID := r.Header.Get("X-Agent-Run")
	if runID == "" {
		t.Fatal("no X-Agent-Run header: the message started no run")
	}
	// The limit of the case plus slack: whatever fails must fail by then.
	within := 3 * time.Second
	if c.code == model.RunErrRunTimeout {
		within += failRun
	}
	ev := sock.waitRunError(t, within, c.code)
	if !strings.Contains(ev.Message, c.text) {
		t.Errorf("RUN_ERROR message %q does not say %q", ev.Message, c.text)
	}
	m := e.waitAgentError(uid, agent, runID, c.code, within)
	if !strings.Contains(m.Text, c.text) || !strings.HasPrefix(m.Text, agent+" could not answer: ") {
		t.Errorf("agent_error text %q, want %q", m.Text, c.text)
	}
	if strings.Contains(m.Text, "127.0.0.1") || strings.Contains(ev.Message, "127.0.0.1") {
		t.Errorf("the error names the agent's address: %q", m.Text)
	}
	if m.Sender != agent || m.ReceiverID != uid {
		t.Errorf("agent_error from %q to %q", m.Sender, m.ReceiverID)
	}
	if c.code == model.RunErrRunTimeout && time.Since(sent) < failRun {
		t.Errorf("the run ended after %s, before its time limit: keep-alives tripped the idle limit", time.Since(sent))
	}
}

// recovers has the fake agent behave and checks the next message is answered from a history
// without the failed run's error.
func (c failureCase) recovers(t *testing.T, e *chatEnv, f *fakeAgent, uid, agent, goodMode string) {
	good := "Back to normal after " + c.name + "."
	f.set(goodMode, good)
	e.must(e.send(uid, agent, "Try again, please."), http.StatusCreated)
	e.waitMessage(uid, agent, 5*time.Second, func(m model.Message) bool {
		return m.Type == model.TypeAssistant && m.Text == good
	})
	bodies := f.requests()
	last := bodies[len(bodies)-1]
	if !strings.Contains(last, "Try again, please.") || strings.Contains(last, "could not answer") {
		t.Errorf("the retry's request does not hold the new message or holds the failed run's error:\n%s", last)
	}
	if f.requested("/elsewhere") {
		t.Error("the bridge followed a redirect (with the agent's headers)")
	}
	if c.mode == modeNoFinish && !strings.Contains(last, "I was about to say") {
		t.Errorf("the text that arrived before the stream broke was not kept:\n%s", last)
	}
}

// TestDeploymentURLsCannotReachInternalAddresses: with no allowed networks (agentry chat's
// default), an agent whose Deployment URL points at a loopback service or a metadata address
// fails with AGENT_UNREACHABLE ("its address is not allowed") before any connection: the
// loopback service's answer never becomes the agent's reply, and no message names the address.
func TestDeploymentURLsCannotReachInternalAddresses(t *testing.T) {
	f := startFakeAgent(t)
	f.set(modeGood, "INTERNAL SECRET")
	e := startChat(t, bridge.Options{Egress: egress.Policy{Allow: []netip.Prefix{}}})
	port := f.URL[strings.LastIndex(f.URL, ":")+1:]
	for i, url := range []string{f.URL + "/agent", "http://localhost:" + port + "/agent", "http://169.254.169.254/latest/meta-data/", "http://metadata.google.internal/"} {
		agent := "internal" + string(rune('a'+i))
		e.putAgent(map[string]any{"agentId": agent, "deploymentUrl": url})
		sock := e.connect("mallory")
		r := e.must(e.send("mallory", agent, "What do you have?"), http.StatusCreated)
		ev := sock.waitRunError(t, 5*time.Second, model.RunErrUnreachable)
		m := e.waitAgentError("mallory", agent, r.Header.Get("X-Agent-Run"), model.RunErrUnreachable, 5*time.Second)
		for _, text := range []string{ev.Message, m.Text} {
			if !strings.Contains(text, "its address is not allowed") || strings.Contains(text, port) || strings.Contains(text, "169.254") || strings.Contains(text, "127.0.0.1") {
				t.Errorf("%s: error %q", url, text)
			}
		}
		for _, got := range e.messages("mallory", agent) {
			if strings.Contains(got.Text, "INTERNAL SECRET") {
				t.Fatalf("%s: the internal service's answer reached the chat", url)
			}
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("the loopback agent received %d requests", n)
	}
}
