package bridge_test

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/platform/egress"
)

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
