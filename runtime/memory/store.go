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
	"unicode/utf8"

	"github.com/agentry-dev/agentry/internal/platform/defaults"
	"github.com/agentry-dev/agentry/internal/platform/sqldb"
	"github.com/agentry-dev/agentry/runtime/llm"
)

// Message is a stored conversation message. ID is unique within the agent's thread: saving a
// message whose ID is already stored changes nothing, so clients that resend the whole
// history create no duplicates.
type Message struct {
	ID         string         `json:"id"`
	ThreadID   string         `json:"threadId"`
	ResourceID string         `json:"resourceId,omitempty"`
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []llm.ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string         `json:"toolCallId,omitempty"`
	CreatedAt  time.Time      `json:"createdAt"`
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
//
// A thread belongs to the resource (the user) that created it, for good: every method takes
// the caller's resource and refuses a thread of another one with ErrThreadOwnedByOther. The
// empty resource is a resource like any other: a thread created without one is only
// reachable without one, and a caller with a resource can neither claim nor read it.
type Store interface {
	// Save stores msgs in order, in one transaction, skipping messages whose ID the thread
	// already has. It creates the thread for resourceID when needed, and fails with
	// ErrThreadOwnedByOther (storing nothing) when the thread belongs to another resource.
	Save(ctx context.Context, agentID, threadID, resourceID string, msgs []Message) error
	// Recall returns the last n messages of the thread, oldest first; none for a thread that
	// does not exist yet.
	Recall(ctx context.Context, agentID, threadID, resourceID string, n int) ([]Message, error)
	// Messages returns a page of the thread's messages, oldest first (page 0 holds the oldest);
	// ErrThreadNotFound when the thread does not exist.
	Messages(ctx context.Context, agentID, threadID, resourceID string, p Page) (MessagePage, error)
	// Threads returns a page of the resource's threads of the agent, newest first.
	Threads(ctx context.Context, agentID, resourceID string, p Page) (ThreadPage, error)
	// Pending holds runs stopped for approval.
	Pending
	// Tasks holds the agent's A2A tasks.
	Tasks
	// Runs holds the events of runs that outlive their requests.
	Runs
	// Ping checks the backend is reachable.
	Ping(ctx context.Context) error
	// Kind names the backend: memory, sqlite or postgres.
	Kind() string
	Close() error
}

// Page selects a page of a list: Number counts from 0, Size is the page length.
type Page struct {
	Number int
	Size   int
}

// Page sizes: the read routes default to DefaultPageSize and never return more than
// MaxPageSize items at once, so one request cannot make the store read a whole history.
const (
	DefaultPageSize = 50
	MaxPageSize     = 100
)

// normalized bounds a page the caller may have left empty or made too large.
func (p Page) normalized() Page {
	defaults.Positive(&p.Size, DefaultPageSize)
	p.Size = min(p.Size, MaxPageSize)
	p.Number = max(p.Number, 0)
	return p
}

func (p Page) offset() int { return p.Number * p.Size }

// ThreadPage is a page of threads; Total counts every thread of the resource.
type ThreadPage struct {
	Threads []Thread
	Total   int
	HasMore bool
}

// MessagePage is a page of a thread's messages; Total counts every message of the thread.
type MessagePage struct {
	Messages []Message
	Total    int
	HasMore  bool
}

// ErrUnavailable wraps failures of the backend itself (unreachable, down), as opposed to bad
// input.
var ErrUnavailable = errors.New("conversation memory is unavailable")

// ErrThreadOwnedByOther means the thread exists and belongs to another resource. Callers must
// not say which one.
var ErrThreadOwnedByOther = errors.New("thread belongs to another resource")

// ErrThreadNotFound means the agent has no thread of that id.
var ErrThreadNotFound = errors.New("thread not found")

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
func Redact(url string) string { return sqldb.Redact(url) }

// titleOf makes a thread title from its first user message.
func titleOf(msgs []Message) string {
	for _, m := range msgs {
		if m.Role == "user" && strings.TrimSpace(m.Content) != "" {
			return shorten(strings.Join(strings.Fields(m.Content), " "), 80)
		}
	}
	return "New thread"
}

// shorten cuts s to at most n runes, ending in "..." when cut. It counts runes, not bytes:
// a cut inside a multi-byte character is invalid UTF-8, which PostgreSQL rejects.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return string(runes[:n-3]) + "..."
}

// FromModel turns a conversation message into a stored one.
func FromModel(m llm.Message) Message {
	return Message{ID: m.ID, Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID}
}

// ToModel turns stored messages into conversation messages.
func ToModel(msgs []Message) []llm.Message {
	out := make([]llm.Message, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, llm.Message{ID: m.ID, Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID})
	}
	return out
}
