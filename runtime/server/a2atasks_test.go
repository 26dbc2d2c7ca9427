package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/runtime/a2aagent"
)

// a2aClientAs is the Go SDK's client of the agent at base, for the user its header names.
func a2aClientAs(t *testing.T, base, agentID, user string) *a2aclient.Client {
	t.Helper()
	ctx := context.Background()
	card, err := agentcard.DefaultResolver.Resolve(ctx, base+"/a2a/"+agentID)
	testutil.NoError(t, err)
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithJSONRPCTransport(&http.Client{Transport: withHeader{DefaultUserHeader, user}}))
	testutil.NoError(t, err)
	return c
}

func sendText(t *testing.T, c *a2aclient.Client, taskID a2a.TaskID, parts ...a2a.Part) *a2a.Task {
	t.Helper()
	msg := a2a.NewMessage(a2a.MessageRoleUser, parts...)
	msg.TaskID = taskID
	res, err := c.SendMessage(context.Background(), &a2a.MessageSendParams{Message: msg})
	testutil.NoError(t, err)
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("message/send answered %#v, want a task", res)
	}
	return task
}

// statusText is the text of the task's status message.
func statusText(task *a2a.Task) string {
	if task.Status.Message == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range task.Status.Message.Parts {
		if tp, ok := p.(a2a.TextPart); ok {
			b.WriteString(tp.Text)
		}
	}
	return b.String()
}

// approvalOf is the approval request in the task's status message.
func approvalOf(t *testing.T, task *a2a.Task) a2aagent.ApprovalRequest {
	t.Helper()
	var req struct {
		Approval a2aagent.ApprovalRequest `json:"approval"`
	}
	if task.Status.Message != nil {
		for _, p := range task.Status.Message.Parts {
			if dp, ok := p.(a2a.DataPart); ok {
				raw, _ := json.Marshal(dp.Data)
				_ = json.Unmarshal(raw, &req)
			}
		}
	}
	return req.Approval
}

// TestA2ATasksAndApprovalsAcrossReplicas: two runtimes share the agent's PostgreSQL memory, as
// replicas do. A task started on one stops input-required for a tool call that needs a person
// (the calls named in words and as data); the other replica reads it (its caller only), keeps
// waiting on an answer it cannot read, and goes on once approved; the first reads the completed
// task. A data part declines another, whose reason the model sees.
func TestA2ATasksAndApprovalsAcrossReplicas(t *testing.T) {
	pg := testutil.StartPostgres(t)
	a := startEnv(t, substituteModel(), envOptions{manifests: cautiousAgent("10m", pg.URL)})
	b := startEnv(t, substituteModel(), envOptions{manifests: cautiousAgent("10m", pg.URL)})
	annA, annB := a2aClientAs(t, a.base, "cautious", "ann"), a2aClientAs(t, b.base, "cautious", "ann")
	bobB := a2aClientAs(t, b.base, "cautious", "bob")
	ctx := context.Background()

	task := sendText(t, annA, "", a2a.TextPart{Text: "What can I use instead of butter?"})
	req := approvalOf(t, task)
	if task.Status.State != a2a.TaskStateInputRequired || len(req.ToolCalls) != 1 || req.ToolCalls[0].ToolName != "suggest-substitute" ||
		!strings.Contains(string(req.ToolCalls[0].Args), "butter") || !strings.Contains(statusText(task), "approve or decline") {
		t.Fatalf("the task waiting for approval: %s %q %+v", task.Status.State, statusText(task), req)
	}

	got, err := annB.GetTask(ctx, &a2a.TaskQueryParams{ID: task.ID})
	testutil.NoError(t, err)
	if got.Status.State != a2a.TaskStateInputRequired {
		t.Errorf("tasks/get on the other replica: %s", got.Status.State)
	}
	if _, err := bobB.GetTask(ctx, &a2a.TaskQueryParams{ID: task.ID}); err == nil {
		t.Error("bob reads ann's task")
	}
	if res, err := bobB.SendMessage(ctx, &a2a.MessageSendParams{Message: withTask(a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "approve"}), task.ID)}); err == nil {
		t.Errorf("bob answers ann's approval: %#v", res)
	}

	again := sendText(t, annB, task.ID, a2a.TextPart{Text: "maybe later"})
	if again.Status.State != a2a.TaskStateInputRequired || !strings.Contains(statusText(again), "approve or decline") {
		t.Fatalf("an answer that is neither: %s %q", again.Status.State, statusText(again))
	}
	if n := len(a.model.Requests()) + len(b.model.Requests()); n != 1 {
		t.Errorf("the model was asked %d times before the approval, want 1", n)
	}

	done := sendText(t, annB, task.ID, a2a.TextPart{Text: "Approve."})
	if done.Status.State != a2a.TaskStateCompleted || !strings.Contains(artifactText(done), "Results:") || !strings.Contains(artifactText(done), "olive oil") {
		t.Fatalf("after the approval: %s %q %q", done.Status.State, artifactText(done), statusText(done))
	}
	got, err = annA.GetTask(ctx, &a2a.TaskQueryParams{ID: task.ID})
	testutil.NoError(t, err)
	if got.Status.State != a2a.TaskStateCompleted || artifactText(got) != artifactText(done) {
		t.Errorf("tasks/get on the first replica after: %s %q", got.Status.State, artifactText(got))
	}
	if res, err := annA.SendMessage(ctx, &a2a.MessageSendParams{Message: withTask(a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "approve"}), task.ID)}); err == nil {
		t.Errorf("a completed task took another answer: %#v", res)
	}

	declined := sendText(t, annA, "", a2a.TextPart{Text: "What can I use instead of eggs?"})
	if declined.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("the second task: %s", declined.Status.State)
	}
	declined = sendText(t, annB, declined.ID, a2a.DataPart{Data: map[string]any{"approved": false, "reason": "no shopping today"}})
	if declined.Status.State != a2a.TaskStateCompleted || !strings.Contains(artifactText(declined), "no shopping today") {
		t.Errorf("after the decline: %s %q", declined.Status.State, artifactText(declined))
	}
}

func withTask(m *a2a.Message, id a2a.TaskID) *a2a.Message {
	m.TaskID = id
	return m
}
