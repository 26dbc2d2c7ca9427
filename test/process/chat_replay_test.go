package process

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestSocketMovedToAnotherReplica: two `agentry chat` replicas on PostgreSQL. Alice's question
// goes through replica A, which bridges the agent's answer; a few words in, her socket on A
// closes and she connects to replica B instead (a rolling upgrade moved her). B asks the
// replicas for the run in flight; A sends the call so far across (agent.replay parts, through
// NOTIFY), and the live words follow: the text she builds on B, as the UI kit builds it, is the
// whole answer, nothing twice, nothing missing, before the stored message arrives.
func TestSocketMovedToAnotherReplica(t *testing.T) {
	a, b, alice, _ := countingAgentOnReplicas(t)
	onA := dialChat(t, a.base, alice)
	mustCall(t, 201, "POST", a.base+"/messages", alice, map[string]any{"receiver": "counter", "receiverType": "user", "text": "Count for me"}, nil)
	words := 0
	onA.readUntil(t, 30*time.Second, "three words on A", func(f chatFrame) bool {
		if f.Type == "agent" && f.Event.Type == "TEXT_MESSAGE_CONTENT" {
			words++
		}
		return words == 3
	})
	_ = onA.conn.Close(websocket.StatusGoingAway, "moved")

	onB := dialChat(t, b.base, alice)
	testutil.Check(t, onB.conn.Write(context.Background(), websocket.MessageText, []byte(`{"type":"replay","conversationId":"user_alice_user_counter"}`)))
	text := map[string]string{}
	parts := 0
	apply := func(ev chatEvent) {
		switch ev.Type {
		case "TEXT_MESSAGE_START":
			text[ev.MessageID] = ""
		case "TEXT_MESSAGE_CONTENT":
			text[ev.MessageID] += ev.Delta
		}
	}
	onB.readUntil(t, 60*time.Second, "the stored answer on B", func(f chatFrame) bool {
		switch f.Type {
		case "agent.replay":
			parts++
			for _, ev := range f.Events {
				apply(ev)
			}
		case "agent":
			apply(f.Event)
		case "event":
			return f.Stored.Type == "message.created" && f.Stored.Data.Sender == "counter"
		}
		return false
	})
	if parts == 0 {
		t.Error("no replay part reached the socket on B")
	}
	if len(text) != 1 {
		t.Fatalf("messages built on B: %q", text)
	}
	for _, got := range text {
		if got != countedAnswer {
			t.Errorf("the answer built on B: %q, want %q", got, countedAnswer)
		}
	}
}

// chatSocket is a logged-in WebSocket of the chat service.
type chatSocket struct{ conn *websocket.Conn }

type chatEvent struct {
	Type      string `json:"type"`
	MessageID string `json:"messageId"`
	Delta     string `json:"delta"`
}

type chatFrame struct {
	Type   string      `json:"type"`
	Event  chatEvent   `json:"-"`
	Events []chatEvent `json:"events"`
	Stored struct {
		Type string `json:"type"`
		Data struct {
			Sender string `json:"sender"`
		} `json:"data"`
	} `json:"-"`
}

func dialChat(t *testing.T, base, token string) *chatSocket {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws", nil)
	testutil.Check(t, err)
	conn.SetReadLimit(1 << 20)
	t.Cleanup(func() { _ = conn.CloseNow() })
	auth, _ := json.Marshal(map[string]string{"type": "auth", "token": token})
	testutil.Check(t, conn.Write(ctx, websocket.MessageText, auth))
	s := &chatSocket{conn: conn}
	s.readUntil(t, 10*time.Second, "ready", func(f chatFrame) bool { return f.Type == "ready" })
	return s
}

// readUntil reads frames until done says so; it fails the test after within.
func (s *chatSocket) readUntil(t *testing.T, within time.Duration, what string, done func(chatFrame) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	for {
		_, data, err := s.conn.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		var f chatFrame
		testutil.Check(t, json.Unmarshal(data, &f))
		var raw struct {
			Event json.RawMessage `json:"event"`
		}
		testutil.Check(t, json.Unmarshal(data, &raw))
		if f.Type == "event" {
			testutil.Check(t, json.Unmarshal(raw.Event, &f.Stored))
		} else if len(raw.Event) > 0 {
			testutil.Check(t, json.Unmarshal(raw.Event, &f.Event))
		}
		if done(f) {
			return
		}
	}
}
