package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/protocol/a2awire"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

// DefaultA2ATimeout bounds one call of another agent: it runs a model of its own.
const DefaultA2ATimeout = 60 * time.Second

// MaxA2ADepth is how long a chain of agents asking agents may grow (A → B → C → D): a loop
// (A → B → A …) ends there with an error the asking model sees, not an endless run.
const MaxA2ADepth = 4

// A2ADepthKey is the message metadata key carrying how deep in a chain of agents a message is.
const A2ADepthKey = "agentry.dev/a2a-depth"

type depthKey struct{}

// WithA2ADepth is ctx of a run whose request came depth calls deep in a chain of agents.
func WithA2ADepth(ctx context.Context, depth int) context.Context {
	return context.WithValue(ctx, depthKey{}, depth)
}

// A2ADepth is how deep ctx's run is in a chain of agents (0: asked by a person or platform).
func A2ADepth(ctx context.Context) int {
	d, _ := ctx.Value(depthKey{}).(int)
	return d
}

// DepthOf reads the depth a message's metadata carries (0 when none or not a number).
func DepthOf(meta map[string]any) int {
	switch v := meta[A2ADepthKey].(type) {
	case float64:
		return int(v)
	case int:
		return v
	}
	return 0
}

type a2aExecutor struct {
	url           string
	headersSecret string
	identity      *v1alpha1.CallerIdentity
	secrets       secrets.Source
	client        *http.Client
	// self is the runtime's own base URL, for a url starting with SelfURL.
	self func() string
}

func (e *a2aExecutor) execute(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	depth := A2ADepth(ctx) + 1
	if depth > MaxA2ADepth {
		return nil, callError(fmt.Sprintf("the chain of agents asking agents is %d deep; it stops at %d (a loop?)", depth, MaxA2ADepth),
			fmt.Errorf("a2a depth %d over %d calling %q", depth, MaxA2ADepth, e.url))
	}
	target := e.url
	if rest, ok := strings.CutPrefix(target, SelfURL); ok {
		base := ""
		if e.self != nil {
			base = e.self()
		}
		if base == "" {
			return nil, callError(msgMisconfigured, errors.New("the runtime does not know its own address to ask its agent"))
		}
		target = strings.TrimSuffix(base, "/") + rest
	}
	u, err := url.Parse(target)
	if err != nil {
		return nil, callError(msgMisconfigured, fmt.Errorf("failed to parse url: %w", err))
	}
	headers := http.Header{}
	if e.headersSecret != "" {
		if e.secrets == nil {
			return nil, callError(msgCredentials, fmt.Errorf("headers Secret %q is not available to this runtime", e.headersSecret))
		}
		h, err := e.secrets.Secret(e.headersSecret)
		if err != nil {
			return nil, callError(msgCredentials, fmt.Errorf("failed to read headers Secret %q: %w", e.headersSecret, err))
		}
		for k, v := range h {
			headers.Set(k, v)
		}
	}
	setCallerIdentity(ctx, headers, e.identity)
	// The other agent's run joins this one's trace (its span is a child of this tool call's).
	hc := a2awire.Client(e.client, headers)
	c, err := a2aclient.NewFromEndpoints(ctx, []a2a.AgentInterface{{URL: target, Transport: a2a.TransportProtocolJSONRPC}}, a2aclient.WithJSONRPCTransport(hc))
	if err != nil {
		return nil, callError(msgMisconfigured, fmt.Errorf("failed to make an A2A client for %q: %w", redactURL(u), err))
	}
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: messageOf(input)})
	msg.Metadata = map[string]any{A2ADepthKey: depth}
	res, err := c.SendMessage(ctx, &a2a.MessageSendParams{Message: msg})
	if err != nil {
		if ctx.Err() != nil {
			msg := msgCanceled // the asking run was stopped
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				msg = msgTimeout
			}
			return nil, callError(msg, fmt.Errorf("agent %q: %w", redactURL(u), ctx.Err()))
		}
		return nil, callError("the other agent could not be asked", fmt.Errorf("agent %q: %w", redactURL(u), err))
	}
	var answer string
	switch r := res.(type) {
	case *a2a.Message:
		answer = a2awire.Text(r.Parts)
	case *a2a.Task:
		for _, a := range r.Artifacts {
			answer += a2awire.Text(a.Parts)
		}
		if answer == "" && r.Status.Message != nil {
			// An agent may answer in its final status message instead of an artifact.
			answer = a2awire.Text(r.Status.Message.Parts)
		}
		if r.Status.State != a2a.TaskStateCompleted {
			said := ""
			if r.Status.Message != nil {
				said = ": " + a2awire.Text(r.Status.Message.Parts)
			}
			return nil, callError(fmt.Sprintf("the other agent's task ended %s%s", r.Status.State, said), fmt.Errorf("agent %q task %s", redactURL(u), r.Status.State))
		}
	}
	out, _ := json.Marshal(map[string]string{"answer": answer})
	return out, nil
}

// messageOf is what the other agent is asked: the input's message field, else the input.
func messageOf(input json.RawMessage) string {
	var in struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(input, &in) == nil && strings.TrimSpace(in.Message) != "" {
		return in.Message
	}
	return string(input)
}
