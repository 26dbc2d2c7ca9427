package bridge_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
)

// TestRunUsageRecorded: a run of the sample chef on a real runtime (the scripted model reports
// its tokens) calls the agent twice (the show-recipe-card frontend action in between); the
// tokens both calls' RUN_FINISHED reported land in the chat's records as one run of chef, and
// the admins' usage answer says the same, with a cost from the agent's prices.
func TestRunUsageRecorded(t *testing.T) {
	rt := startRuntime(t, samplesDir(), nil, nil, nil)
	e := startChat(t, bridge.Options{})
	e.putChef(rt, "chef")
	e.putAgent(map[string]any{"agentId": "chef", "name": "Chef", "deploymentUrl": rt.URL + "/api/agents/chef/ag-ui",
		"prices": map[string]float64{"inputPerMillion": 2, "outputPerMillion": 10}})
	sock := e.connect("alice")
	since := time.Now().Add(-time.Minute)

	r := e.must(e.send("alice", "chef", "I have eggs, spinach and feta. What can I cook?"), http.StatusCreated)
	runID := r.Header.Get("X-Agent-Run")
	waiting := e.waitMessage("alice", "chef", 10*time.Second, func(m model.Message) bool {
		return m.Type == model.TypeAssistant && len(assistantData(t, m).AwaitingActions) == 1
	})
	e.must(e.do(http.MethodPost, "/agent-runs/"+runID+"/actions/"+assistantData(t, waiting).AwaitingActions[0], "alice",
		map[string]any{"result": map[string]bool{"shown": true}}), http.StatusCreated)
	e.waitMessage("alice", "chef", 10*time.Second, answerWith("recipe card is on your screen"))

	// What the runtime said each call used, as relayed to the person's socket.
	var in, out int64
	finished := 0
	sock.waitAgentEvent(t, 10*time.Second, "the second RUN_FINISHED", func(ev agentEvent) bool {
		if ev.Type == "RUN_FINISHED" && ev.runID == runID {
			finished++
			for _, u := range ev.Usage {
				in, out = in+u.InputTokens, out+u.OutputTokens
			}
		}
		return finished == 2
	})
	if in == 0 || out == 0 {
		t.Fatalf("the runtime reported no usage: %d input, %d output tokens", in, out)
	}

	got, err := e.Store.AgentUsageSince(context.Background(), since)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].AgentID != "chef" || got[0].Runs != 1 || got[0].InputTokens != in || got[0].OutputTokens != out {
		t.Fatalf("recorded usage %+v, want chef: 1 run, %d input and %d output tokens", got, in, out)
	}

	var usage struct {
		Items []struct {
			AgentID   string            `json:"agentId"`
			Today     model.UsageTotals `json:"today"`
			Last7Days model.UsageTotals `json:"last7Days"`
		} `json:"items"`
	}
	e.must(e.do(http.MethodGet, "/agent-usage", "", nil), http.StatusOK).decode(t, &usage)
	if len(usage.Items) != 1 || usage.Items[0].AgentID != "chef" {
		t.Fatalf("usage answer: %+v", usage)
	}
	wantCost := (float64(in)*2 + float64(out)*10) / 1e6
	for _, u := range []model.UsageTotals{usage.Items[0].Today, usage.Items[0].Last7Days} {
		if u.Runs != 1 || u.InputTokens != in || u.OutputTokens != out || u.Cost == nil || *u.Cost != wantCost {
			t.Errorf("usage answer's totals %+v (cost %v), want 1 run, %d/%d tokens, cost %v", u, u.Cost, in, out, wantCost)
		}
	}
}
