// Package memory stores conversation memory: messages per agent and thread (and resource),
// behind one interface with three backends chosen by URL — memory:// (in-process),
// file:PATH (SQLite, the embedded default) and postgres://… (shared by replicas).
package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentry-dev/agentry/runtime/model"
)

// Message is a stored conversation message. ID is unique within the agent's thread: saving a
// message whose ID is already stored changes nothing, so clients that resend the whole
// history create no duplicates.
type Message struct {
	ID         string           `json:"id"`
	ThreadID   string           `json:"threadId"`
	ResourceID string           `json:"resourceId,omitempty"`
	Role       string           `json:"role"`
	Content    string           `json:"content"`
	ToolCalls  []model.ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string           `json:"toolCallId,omitempty"`
	CreatedAt  time.Time        `json:"createdAt"`
}

// Thread is a conversation.
type Thread struct {
	ID         string    `json:"id"`
	ResourceID string    `json:"resourceId,omitempty"`
	AgentID    string    `json:"agentId"`
	Title      string    `json:"title"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
}

// Store is a memory backend. All methods are safe for concurrent use.
type Store interface {
	// Save stores msgs in order, in one transaction, skipping messages whose ID the thread
	// already has. It creates the thread when needed.
	Save(ctx context.Context, agentID, threadID, resourceID string, msgs []Message) error
	// Recall returns the last n messages of the thread, oldest first.
	Recall(ctx context.Context, agentID, threadID string, n int) ([]Message, error)
	// Messages returns every message of the thread, oldest first.
	Messages(ctx context.Context, agentID, threadID string) ([]Message, error)
	// Threads lists the agent's threads, newest first; resourceID filters when not empty.
	Threads(ctx context.Context, agentID, resourceID string) ([]Thread, error)
	// Ping checks the backend is reachable.
	Ping(ctx context.Context) error
	// Kind names the backend: memory, sqlite or postgres.
	Kind() string
	Close() error
}

// ErrUnavailable wraps failures of the backend itself (unreachable, down), as opposed to bad
// input.
var ErrUnavailable = errors.New("conversation memory is unavailable")

// Open connects to the store a URL names and runs its migrations.
func Open(ctx context.Context, url string) (Store, error) {
	switch {
	case url == "memory://" || strings.HasPrefix(url, "memory://"):
		return NewInMemory(), nil
	case strings.HasPrefix(url, "file:"):
		return openSQLite(ctx, strings.TrimPrefix(url, "file:"))
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		return openPostgres(ctx, url)
	default:
		return nil, fmt.Errorf("unsupported memory URL %q: use memory://, file:PATH or postgres://", Redact(url))
	}
}

// Redact hides the password of a URL, for logs and errors.
func Redact(url string) string {
	scheme, rest, ok := strings.Cut(url, "://")
	if !ok {
		return url
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return url
	}
	userinfo := rest[:at]
	if user, _, hasPass := strings.Cut(userinfo, ":"); hasPass {
		return scheme + "://" + user + ":***@" + rest[at+1:]
	}
	return url
}

// titleOf makes a thread title from its first user message.
func titleOf(msgs []Message) string {
	for _, m := range msgs {
		if m.Role == "user" && strings.TrimSpace(m.Content) != "" {
			t := strings.Join(strings.Fields(m.Content), " ")
			if len(t) > 80 {
				t = t[:77] + "..."
			}
			return t
		}
	}
	return "New thread"
}

// FromModel turns a conversation message into a stored one.
func FromModel(m model.Message) Message {
	return Message{ID: m.ID, Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID}
}

// ToModel turns stored messages into conversation messages.
func ToModel(msgs []Message) []model.Message {
	out := make([]model.Message, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, model.Message{ID: m.ID, Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID})
	}
	return out
}
