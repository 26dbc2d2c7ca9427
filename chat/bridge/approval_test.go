package bridge_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
)

// cautiousAgents are the sample chef's substitute tool behind a person's approval: cautious
// waits 10 minutes, hasty one second.
const cautiousAgents = `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: cautious}
spec:
  instructions: You ask before you act.
  model: {name: gpt-4o-mini}
  tools:
    - {key: suggest-substitute, toolRef: {name: suggest-substitute}, requireApproval: true, approvalTimeout: 10m}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: hasty}
spec:
  model: {name: gpt-4o-mini}
  tools:
    - {key: suggest-substitute, toolRef: {name: suggest-substitute}, requireApproval: true, approvalTimeout: 1s}
`

func approvalOf(t *testing.T, m model.Message) model.ApprovalData {
	t.Helper()
	var d model.ApprovalData
	if err := json.Unmarshal(m.Data, &d); err != nil {
		t.Fatalf("approval data %s: %v", m.Data, err)
	}
	return d
}

func isRequest(m model.Message) bool { return m.Type == model.TypeApprovalRequest }

// kitchen is a group of alice and carol with the agent; bob, the approver, is not in it.
func kitchen(e *chatEnv, rt *runtimeEnv, agent string, approvers []string) {
	e.t.Helper()
	e.putAgent(map[string]any{"agentId": agent, "name": strings.ToUpper(agent[:1]) + agent[1:], "deploymentUrl": rt.URL + "/api/agents/" + agent + "/ag-ui", "approvers": approvers})
	e.token("bob")
	e.token("carol")
	e.must(e.do(http.MethodPost, "/groups", "alice", map[string]any{"guid": "kitchen", "name": "Kitchen", "type": "public",
		"members": []map[string]string{{"uid": "carol"}, {"uid": agent}}}), http.StatusCreated)
}

// TestApprovalRoutedToAnApproverOutsideTheGroup: a run in a group stops at a tool that needs
// approval; the request is in the group and in the approver's one-to-one with the agent; only
// the approver decides, once; the run resumes in the group with the tool's result.
func TestApprovalRoutedToAnApproverOutsideTheGroup(t *testing.T) {
	rt := startRuntime(t, samplesDir(), map[string]string{"cautious.yaml": cautiousAgents}, nil, nil)
	e := startChat(t, bridge.Options{})
	kitchen(e, rt, "cautious", []string{"bob"})
	bobSock := e.connect("bob")

	e.must(e.send("alice", "group:kitchen", "@cautious What can I use instead of butter?"), http.StatusCreated)
	req := waitRequestForBob(t, e, bobSock)
	decided := decideOnceAsBob(t, e, req)
	checkResumedInTheGroup(t, e, req, decided)
}

// waitRequestForBob waits for the approval request in the group and in bob's one-to-one with
// the agent (stored and live), before the held call ran.
func waitRequestForBob(t *testing.T, e *chatEnv, bobSock *socket) model.ApprovalData {
	inGroup := e.waitMessage("alice", "group:kitchen", 10*time.Second, isRequest)
	req := approvalOf(t, inGroup)
	if req.Status != model.ApprovalPending || req.ToolName != "suggest-substitute" || req.RequestedBy != "alice" ||
		strings.Join(req.Approvers, ",") != "bob" || !strings.Contains(req.Arguments, "butter") || len(req.MessageIDs) != 2 {
		t.Fatalf("request in the group: %+v", req)
	}
	if !strings.Contains(inGroup.Text, "Waiting for bob to approve") {
		t.Errorf("request text: %q", inGroup.Text)
	}
	// Bob, not a member of the group, has it in his one-to-one with the agent, live.
	copyForBob := e.waitMessage("bob", "cautious", 5*time.Second, isRequest)
	if approvalOf(t, copyForBob).ID != req.ID {
		t.Fatalf("bob's copy: %s", copyForBob.Data)
	}
	if !waitUntil(5*time.Second, func() bool { return strings.Contains(bobSock.all(), req.ID) }) {
		t.Fatalf("bob's socket never got the request: %s", bobSock.all())
	}
	// The held call has not run, and the agent's answer is not there yet.
	for _, m := range e.messages("alice", "group:kitchen") {
		if m.Type == model.TypeToolResult {
			t.Fatalf("a tool result before the approval: %s", m.Data)
		}
	}
	return req
}

// decideOnceAsBob checks that only bob decides, and only once.
func decideOnceAsBob(t *testing.T, e *chatEnv, req model.ApprovalData) model.Approval {
	path := "/approvals/" + req.ID + "/decision"
	if r := e.do(http.MethodPost, path, "alice", map[string]any{"approved": true}); r.Status != http.StatusForbidden {
		t.Errorf("the requester deciding: %d %s", r.Status, r.Body)
	}
	e.token("dave")
	if r := e.do(http.MethodPost, path, "dave", map[string]any{"approved": true}); r.Status != http.StatusNotFound {
		t.Errorf("a stranger deciding: %d %s", r.Status, r.Body)
	}
	if r := e.do(http.MethodPost, path, "bob", map[string]any{"reason": "x"}); r.Status != http.StatusBadRequest {
		t.Errorf("no approved field: %d %s", r.Status, r.Body)
	}

	// Bob decides twice at once (two tabs): one wins.
	var wg sync.WaitGroup
	statuses := make(chan int, 2)
	for _, approved := range []bool{true, false} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- e.do(http.MethodPost, path, "bob", map[string]any{"approved": approved}).Status
		}()
	}
	wg.Wait()
	close(statuses)
	got := []int{}
	for s := range statuses {
		got = append(got, s)
	}
	if !(got[0] == 200 && got[1] == 409 || got[0] == 409 && got[1] == 200) {
		t.Fatalf("two decisions: %v, want one 200 and one 409", got)
	}
	final := e.must(e.do(http.MethodGet, "/approvals/"+req.ID, "alice", nil), http.StatusOK)
	var decided model.Approval
	final.decode(t, &decided)
	if decided.DecidedBy != "bob" || decided.DecidedAt == nil {
		t.Fatalf("decided: %+v", decided)
	}
	return decided
}

// checkResumedInTheGroup: the decision is stored in the group, every copy of the request says
// so, and the run resumes there: the tool ran (approved) or not (declined), and the agent
// answered.
func checkResumedInTheGroup(t *testing.T, e *chatEnv, req model.ApprovalData, decided model.Approval) {
	note := e.waitMessage("alice", "group:kitchen", 10*time.Second, func(m model.Message) bool { return m.Type == model.TypeApprovalDecision })
	if !strings.HasPrefix(note.Text, "bob "+string(decided.Status)) {
		t.Errorf("decision note: %q", note.Text)
	}
	for _, c := range []struct{ uid, with string }{{"alice", "group:kitchen"}, {"bob", "cautious"}} {
		m := e.waitMessage(c.uid, c.with, 5*time.Second, isRequest)
		if d := approvalOf(t, m); d.Status != decided.Status || d.DecidedBy != "bob" {
			t.Errorf("%s's copy after the decision: %+v", c.uid, d)
		}
	}
	answer := e.waitMessage("alice", "group:kitchen", 10*time.Second, func(m model.Message) bool {
		return m.Type == model.TypeAssistant && m.Text != "" && m.ID > note.ID
	})
	result := e.waitMessage("alice", "group:kitchen", 5*time.Second, func(m model.Message) bool { return m.Type == model.TypeToolResult })
	var res model.ToolResultData
	if err := json.Unmarshal(result.Data, &res); err != nil || res.Name != "suggest-substitute" || res.ToolCallID != req.ToolCallID {
		t.Errorf("the resumed call's result names its call: %s", result.Data)
	}
	if decided.Status == model.ApprovalApproved {
		if !strings.Contains(answer.Text, "olive oil") || !strings.Contains(string(result.Data), "olive oil") {
			t.Errorf("approved: answer %q, result %s", answer.Text, result.Data)
		}
	} else if !strings.Contains(answer.Text, "declined") || strings.Contains(string(result.Data), "olive oil") {
		t.Errorf("declined: answer %q, result %s", answer.Text, result.Data)
	}
}

// TestApprovalDeclineExpiryAndRestart: the default approver is the requester; a decline with a
// reason reaches the agent; a request nobody decides expires into a decline; a decision after
// the chat service restarted still resumes the run.
func TestApprovalDeclineExpiryAndRestart(t *testing.T) {
	rt := startRuntime(t, samplesDir(), map[string]string{"cautious.yaml": cautiousAgents}, nil, nil)
	db := filepath.Join(t.TempDir(), "chat.db")
	e := startChatAt(t, bridge.Options{ApprovalSweep: 200 * time.Millisecond}, db, nil)
	e.putAgent(map[string]any{"agentId": "cautious", "deploymentUrl": rt.URL + "/api/agents/cautious/ag-ui"})
	e.putAgent(map[string]any{"agentId": "hasty", "deploymentUrl": rt.URL + "/api/agents/hasty/ag-ui"})
	e.token("alice")

	// Declined by the requester (no approvers configured), with a reason the agent hears.
	e.must(e.send("alice", "cautious", "What can I use instead of butter?"), http.StatusCreated)
	req := approvalOf(t, e.waitMessage("alice", "cautious", 10*time.Second, isRequest))
	if strings.Join(req.Approvers, ",") != "alice" {
		t.Fatalf("default approvers: %v", req.Approvers)
	}
	e.must(e.do(http.MethodPost, "/approvals/"+req.ID+"/decision", "alice", map[string]any{"approved": false, "reason": "no olive oil at home"}), http.StatusOK)
	answer := e.waitMessage("alice", "cautious", 10*time.Second, answerWith("declined"))
	if !strings.Contains(answer.Text, "no olive oil at home") {
		t.Errorf("the agent was not told the reason: %q", answer.Text)
	}

	// Nobody decides within hasty's second: the request expires and the agent hears so.
	e.must(e.send("alice", "hasty", "What can I use instead of milk?"), http.StatusCreated)
	expired := e.waitMessage("alice", "hasty", 10*time.Second, func(m model.Message) bool {
		return isRequest(m) && approvalOf(t, m).Status == model.ApprovalExpired
	})
	if d := approvalOf(t, expired); d.DecidedAt == nil || d.DecidedAt.Before(d.ExpiresAt) || d.DecidedBy != "" {
		t.Errorf("expired before its time, or by someone: %+v", d)
	}
	e.waitMessage("alice", "hasty", 10*time.Second, answerWith("in time"))
	if r := e.do(http.MethodPost, "/approvals/"+approvalOf(t, expired).ID+"/decision", "alice", map[string]any{"approved": true}); r.Status != http.StatusConflict || r.code() != model.ErrApprovalDecided {
		t.Errorf("approving an expired request: %d %s", r.Status, r.Body)
	}

	// A request, then the chat service restarts, then the decision: the run resumes.
	e.must(e.send("alice", "cautious", "What can I use instead of sugar?"), http.StatusCreated)
	waiting := e.waitMessage("alice", "cautious", 10*time.Second, func(m model.Message) bool {
		return isRequest(m) && approvalOf(t, m).Status == model.ApprovalPending
	})
	tokens := e.tokens
	e.shutdown()
	e = startChatAt(t, bridge.Options{}, db, nil)
	e.tokens = tokens
	e.must(e.do(http.MethodPost, "/approvals/"+approvalOf(t, waiting).ID+"/decision", "alice", map[string]any{"approved": true}), http.StatusOK)
	e.waitMessage("alice", "cautious", 10*time.Second, answerWith("honey"))
	// The conversation goes on as usual afterwards: the agent is not stuck on the held call.
	e.must(e.send("alice", "cautious", "Thanks!"), http.StatusCreated)
	e.waitMessage("alice", "cautious", 10*time.Second, answerWith("Thanks"))
}

// TestApprovalThroughMastra: a Mastra-provider agent's suspended generate answer becomes an
// approval request, and the decision goes to its approve-tool-call route.
func TestApprovalThroughMastra(t *testing.T) {
	rt := startRuntime(t, samplesDir(), map[string]string{"cautious.yaml": cautiousAgents}, nil, nil)
	e := startChat(t, bridge.Options{})
	e.putAgent(map[string]any{"agentId": "cautious", "provider": "mastra", "deploymentUrl": rt.URL + "/api/agents/cautious/generate"})
	e.token("alice")
	e.must(e.send("alice", "cautious", "What can I use instead of butter?"), http.StatusCreated)
	req := approvalOf(t, e.waitMessage("alice", "cautious", 10*time.Second, isRequest))
	if req.ToolName != "suggest-substitute" || !strings.Contains(req.Arguments, "butter") || !strings.Contains(req.InterruptID, "#") {
		t.Fatalf("request: %+v", req)
	}
	e.must(e.do(http.MethodPost, "/approvals/"+req.ID+"/decision", "alice", map[string]any{"approved": true}), http.StatusOK)
	e.waitMessage("alice", "cautious", 10*time.Second, answerWith("olive oil"))
}

// TestApproversFromAGroup: group:<guid>:admins names the group's admins when the request is
// made; its other members are not approvers.
func TestApproversFromAGroup(t *testing.T) {
	rt := startRuntime(t, samplesDir(), map[string]string{"cautious.yaml": cautiousAgents}, nil, nil)
	e := startChat(t, bridge.Options{})
	e.putAgent(map[string]any{"agentId": "cautious", "deploymentUrl": rt.URL + "/api/agents/cautious/ag-ui", "approvers": []string{"group:ops:admins"}})
	e.token("alice")
	e.token("erin")
	// dave owns ops (an admin); erin is a participant.
	e.token("dave")
	e.must(e.do(http.MethodPost, "/groups", "dave", map[string]any{"guid": "ops", "name": "Ops", "type": "private", "members": []map[string]string{{"uid": "erin"}}}), http.StatusCreated)

	e.must(e.send("alice", "cautious", "What can I use instead of butter?"), http.StatusCreated)
	req := approvalOf(t, e.waitMessage("alice", "cautious", 10*time.Second, isRequest))
	if strings.Join(req.Approvers, ",") != "dave" {
		t.Fatalf("approvers: %v, want the group's admin", req.Approvers)
	}
	e.waitMessage("dave", "cautious", 5*time.Second, isRequest)
	if r := e.do(http.MethodPost, "/approvals/"+req.ID+"/decision", "erin", map[string]any{"approved": true}); r.Status != http.StatusNotFound {
		t.Errorf("a participant of the group deciding: %d %s", r.Status, r.Body)
	}
	e.must(e.do(http.MethodPost, "/approvals/"+req.ID+"/decision", "dave", map[string]any{"approved": true}), http.StatusOK)
	e.waitMessage("alice", "cautious", 10*time.Second, answerWith("olive oil"))
}
