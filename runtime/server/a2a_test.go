package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// bearer adds a header to every request of the A2A client (the caller's credentials).
type withHeader struct{ name, value string }

func (h withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// TestA2AWithTheGoSDK: the official Go SDK's client finds an agent's card at the well-known
// path under its A2A endpoint (and at Mastra's), sends a message and gets the completed task
// with the answer as its artifact, streams another whose text arrives in pieces and ends
// completed, reads the task again, and cannot cancel a finished one. An agent behind auth
// shows its card (how to authenticate) but refuses a call without its headers and answers one
// with them.
func TestA2AWithTheGoSDK(t *testing.T) {
	e := startEnv(t, scriptedmodel.ResponderFunc(func(*scriptedmodel.Request) scriptedmodel.Reply {
		return scriptedmodel.Reply{Text: "Use olive oil instead of butter."}
	}), envOptions{manifests: `
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: private}
spec:
  model: {name: m}
  endpoint:
    auth: {headersSecretRef: {name: platform-auth}}
`, server: func(o *Options) { o.Secrets = guardSecrets }})
	ctx := context.Background()

	card, err := agentcard.DefaultResolver.Resolve(ctx, e.base+"/a2a/chef")
	testutil.NoError(t, err)
	if card.Name != "Chef" || card.URL != e.base+"/a2a/chef" || !card.Capabilities.Streaming || card.ProtocolVersion == "" || len(card.Skills) != 2 {
		t.Fatalf("chef's card: %+v", card)
	}
	res, err := http.Get(e.base + "/.well-known/chef/agent-card.json")
	testutil.NoError(t, err)
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("the card at Mastra's path: %d", res.StatusCode)
	}
	if res, err := http.Get(e.base + "/.well-known/nobody/agent-card.json"); err != nil || res.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown agent's card: %v %v", res, err)
	}

	client, err := a2aclient.NewFromCard(ctx, card)
	testutil.NoError(t, err)
	sent, err := client.SendMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "What instead of butter?"})})
	testutil.NoError(t, err)
	task, ok := sent.(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateCompleted || artifactText(task) != "Use olive oil instead of butter." {
		t.Fatalf("message/send: %#v", sent)
	}

	var streamed strings.Builder
	var last a2a.Event
	for ev, err := range client.SendStreamingMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "Again?"})}) {
		testutil.NoError(t, err)
		if u, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
			for _, p := range u.Artifact.Parts {
				if tp, ok := p.(a2a.TextPart); ok {
					streamed.WriteString(tp.Text)
				}
			}
		}
		last = ev
	}
	if st, ok := last.(*a2a.TaskStatusUpdateEvent); !ok || st.Status.State != a2a.TaskStateCompleted || !st.Final {
		t.Errorf("the stream's last event: %#v", last)
	}
	if streamed.String() != "Use olive oil instead of butter." {
		t.Errorf("streamed text %q", streamed.String())
	}

	got, err := client.GetTask(ctx, &a2a.TaskQueryParams{ID: task.ID})
	testutil.NoError(t, err)
	if got.Status.State != a2a.TaskStateCompleted {
		t.Errorf("tasks/get: %+v", got.Status)
	}
	if _, err := client.CancelTask(ctx, &a2a.TaskIDParams{ID: task.ID}); err == nil {
		t.Error("a completed task was canceled")
	}

	// Behind auth: the card says how; a call needs the headers.
	private, err := agentcard.DefaultResolver.Resolve(ctx, e.base+"/a2a/private")
	testutil.NoError(t, err)
	if _, ok := private.SecuritySchemes["headers"]; !ok || len(private.Security) != 1 {
		t.Errorf("the private agent's card names no scheme: %+v", private.SecuritySchemes)
	}
	anon, err := a2aclient.NewFromCard(ctx, private)
	testutil.NoError(t, err)
	if _, err := anon.SendMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "hi"})}); err == nil {
		t.Error("the private agent answered a call without its headers")
	}
	authed, err := a2aclient.NewFromCard(ctx, private, a2aclient.WithJSONRPCTransport(&http.Client{Transport: withHeader{"Authorization", "Bearer s3cr3t"}}))
	testutil.NoError(t, err)
	if r, err := authed.SendMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "hi"})}); err != nil {
		t.Errorf("the private agent with its headers: %v", err)
	} else if tk, ok := r.(*a2a.Task); !ok || tk.Status.State != a2a.TaskStateCompleted {
		t.Errorf("the private agent with its headers: %#v", r)
	}
}

func artifactText(t *a2a.Task) string {
	var b strings.Builder
	for _, a := range t.Artifacts {
		for _, p := range a.Parts {
			if tp, ok := p.(a2a.TextPart); ok {
				b.WriteString(tp.Text)
			}
		}
	}
	return b.String()
}
