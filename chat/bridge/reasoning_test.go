package bridge_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
)

const (
	thinkQuestion = "Think it through: how long should I boil an egg?"
	// thinkReasoning starts the dev script's reasoning for thinkQuestion; thinkAnswer its answer.
	thinkReasoning = `The question is "how long should I boil an egg?". I am the scripted dev model`
	thinkAnswer    = `Thought it through. A reasoning model would answer "how long should I boil an egg?" here;`
)

// TestReasoningStoredFoldedWithTheAnswer: a reasoning model's thinking is relayed live as the
// agent's AG-UI reasoning events and stored with the answer (its text and how long it took),
// never as the answer's text, and never sent back to the agent on the next turn.
func TestReasoningStoredFoldedWithTheAnswer(t *testing.T) {
	rt := startRuntime(t, samplesDir(), nil, nil, nil)
	e := startChat(t, bridge.Options{})
	e.putChef(rt, "chef")
	sock := e.connect("alice")

	e.must(e.send("alice", "chef", thinkQuestion), http.StatusCreated)
	m := e.waitMessage("alice", "chef", 20*time.Second, answerStarting("Thought it through."))
	if !strings.HasPrefix(m.Text, thinkAnswer) || strings.Contains(m.Text, "scripted dev model") {
		t.Errorf("stored text %q: the answer only", m.Text)
	}
	d := assistantData(t, m)
	if d.Reasoning == nil || !strings.HasPrefix(d.Reasoning.Text, thinkReasoning) {
		t.Fatalf("stored reasoning %+v", d.Reasoning)
	}
	// The script paces its reasoning at 60 ms a word over 40-odd words: it cannot take less
	// than a second, however fast the machine.
	if d.Reasoning.DurationMs < 1000 {
		t.Errorf("reasoning took %d ms", d.Reasoning.DurationMs)
	}

	sock.waitAgentEvent(t, 10*time.Second, "RUN_FINISHED", func(ev agentEvent) bool { return ev.Type == "RUN_FINISHED" })
	var types []string
	var live string
	for _, ev := range sock.agentEvents() {
		if ev.Type == "REASONING_MESSAGE_CONTENT" {
			live += ev.Delta
		}
		if n := len(types); ev.Type == "STEP_STARTED" || ev.Type == "STEP_FINISHED" || (n > 0 && types[n-1] == ev.Type) {
			continue
		}
		types = append(types, ev.Type)
	}
	want := "RUN_STARTED REASONING_START REASONING_MESSAGE_START REASONING_MESSAGE_CONTENT REASONING_MESSAGE_END REASONING_END TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("live frames\n got %s\nwant %s", got, want)
	}
	if live != d.Reasoning.Text {
		t.Errorf("live reasoning %q, stored %q", live, d.Reasoning.Text)
	}

	// The next turn's history carries the answer, not the reasoning.
	rt.Model.Reset()
	e.must(e.send("alice", "chef", "What can I use instead of butter?"), http.StatusCreated)
	e.waitMessage("alice", "chef", 20*time.Second, answerStarting("Try olive oil"))
	reqs := rt.Model.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model got no request")
	}
	sent := string(reqs[0].Raw)
	if !strings.Contains(sent, "Thought it through.") || strings.Contains(sent, "scripted dev model") {
		t.Errorf("the agent's second request: %s", sent)
	}
}

// TestMastraReasoning: a generate answer's reasoningText is stored folded with the answer too
// (without a duration: generate answers all at once) and relayed as AG-UI reasoning events.
func TestMastraReasoning(t *testing.T) {
	rt := startRuntime(t, samplesDir(), nil, nil, nil)
	e := startChat(t, bridge.Options{})
	e.putAgent(map[string]any{"agentId": "chef", "name": "Chef", "provider": "mastra", "deploymentUrl": rt.URL + "/api/agents/chef/generate"})
	sock := e.connect("alice")
	e.must(e.send("alice", "chef", thinkQuestion), http.StatusCreated)
	m := e.waitMessage("alice", "chef", 20*time.Second, func(m model.Message) bool { return m.Type == model.TypeAssistant })
	d := assistantData(t, m)
	if !strings.HasPrefix(m.Text, thinkAnswer) || d.Reasoning == nil || !strings.HasPrefix(d.Reasoning.Text, thinkReasoning) || d.Reasoning.DurationMs != 0 {
		t.Fatalf("stored %q with reasoning %+v", m.Text, d.Reasoning)
	}
	sock.waitAgentEvent(t, 10*time.Second, "RUN_FINISHED", func(ev agentEvent) bool { return ev.Type == "RUN_FINISHED" })
	var types []string
	for _, ev := range sock.agentEvents() {
		types = append(types, ev.Type)
	}
	if got := strings.Join(types, " "); got != "RUN_STARTED REASONING_START REASONING_MESSAGE_START REASONING_MESSAGE_CONTENT REASONING_MESSAGE_END REASONING_END TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED" {
		t.Errorf("live frames %s", got)
	}
}
