package hub

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestReplicasOnPostgres: two hubs, each with its own store connection to one PostgreSQL, as
// two replicas. A message committed through either reaches the sockets held by the other
// (woken by NOTIFY; the poll is set long so the test shows the wake-up works).
func TestReplicasOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	sa, sb := postgresReplicas(t, "alice", "bob", "carol")
	a := newEnv(t, Options{PollInterval: time.Hour}, sa, false)
	b := newEnv(t, Options{PollInterval: time.Hour}, sb, false)
	onA, onB := a.connect("alice", nil), b.connect("bob", nil)

	for i := range 5 {
		from, to, via, at := "alice", "bob", a, onB
		if i%2 == 1 {
			from, to, via, at = "bob", "alice", b, onA
		}
		m, err := via.hub.o.Events.(store.Store).SendMessage(ctx, model.Message{Sender: from, ReceiverID: to,
			ReceiverType: model.ReceiverUser, Category: model.CategoryMessage, Type: model.TypeText, Text: fmt.Sprint(i)})
		testutil.Check(t, err)
		via.hub.Notify()
		eventually(t, 10*time.Second, fmt.Sprintf("message %d on the other replica", i), func() bool {
			evs, _ := at.snapshot()
			for _, ev := range evs {
				if ev.Type == model.EventMessageCreated && ev.ConversationID == m.ConversationID && ev.Seq > 0 && ev.At.Equal(m.SentAt) {
					return true
				}
			}
			return false
		})
	}

	// Ephemeral frames cross replicas too, in order: agent run events published on A reach
	// bob's socket on B, and bob's typing on B reaches alice on A.
	conv := model.ConversationID(model.ReceiverUser, "alice", "bob")
	const n = 200 // under the 256-frame send queue: A delivers them to alice at once too
	for i := range n {
		a.hub.Publish(conv, []byte(fmt.Sprintf(`{"type":"agent","conversationId":%q,"event":{"type":"TEXT_MESSAGE_CONTENT","delta":"%d"}}`, conv, i)))
	}
	eventually(t, 10*time.Second, "agent frames on the other replica", func() bool {
		onB.mu.Lock()
		defer onB.mu.Unlock()
		return len(onB.other) >= n
	})
	onB.mu.Lock()
	for i, f := range onB.other[:n] {
		if want := fmt.Sprintf(`"delta":"%d"`, i); !strings.Contains(string(f), want) {
			t.Fatalf("frame %d on B = %s, want %s (order kept)", i, f, want)
		}
	}
	onB.mu.Unlock()
	b.hub.Typing("bob", conv, true)
	eventually(t, 10*time.Second, "typing on the other replica", func() bool {
		onA.mu.Lock()
		defer onA.mu.Unlock()
		return len(onA.typing) == 1 && onA.typing[0].Type == model.EventTypingStarted
	})

	// A frame for every socket (agents.changed) crosses replicas too: carol, in no
	// conversation, gets it on B.
	onC := b.connect("carol", nil)
	a.hub.PublishAll([]byte(`{"type":"agents.changed","agentId":"chef"}`))
	for _, c := range []*client{onA, onB, onC} {
		eventually(t, 10*time.Second, c.uid+" to get agents.changed", func() bool {
			c.mu.Lock()
			defer c.mu.Unlock()
			for _, f := range c.other {
				if string(f) == `{"type":"agents.changed","agentId":"chef"}` {
					return true
				}
			}
			return false
		})
	}
	replayAcrossReplicas(t, a, b, onA, conv)
	if s := a.hub.Stats(); s.BroadcastDropped != 0 {
		t.Errorf("broadcast dropped %d frames", s.BroadcastDropped)
	}
}

// replayAcrossReplicas: replica A bridges the conversation's agent run (its replayer answers);
// bob's second socket, on B, asks for it and gets A's frames in order, alone: bob's other
// socket and alice's get none. Asking for a conversation bob is not in reaches no replayer.
func replayAcrossReplicas(t *testing.T, a, b *env, onA *client, conv string) {
	t.Helper()
	asked := make(chan string, 10)
	a.hub.OnReplay(func(conversation string, send func([]byte)) {
		asked <- conversation
		if conversation == conv {
			for i := range 3 {
				send([]byte(fmt.Sprintf(`{"type":"agent.replay","part":%d}`, i+1)))
			}
		}
	})
	b.hub.OnReplay(func(conversation string, send func([]byte)) { asked <- "on B: " + conversation })
	count := func(c *client) int {
		c.mu.Lock()
		defer c.mu.Unlock()
		n := 0
		for _, f := range c.other {
			if strings.Contains(string(f), "agent.replay") {
				n++
			}
		}
		return n
	}
	bob1 := b.connect("bob", nil)
	bob2 := b.connect("bob", nil)
	sendJSON(t, bob2.conn, map[string]string{"type": FrameReplay, "conversationId": "user_alice_user_carol"})
	sendJSON(t, bob2.conn, map[string]string{"type": FrameReplay, "conversationId": conv})
	eventually(t, 10*time.Second, "the replay on the socket that asked", func() bool { return count(bob2) == 3 })
	bob2.mu.Lock()
	var parts []string
	for _, f := range bob2.other {
		if strings.Contains(string(f), "agent.replay") {
			parts = append(parts, string(f))
		}
	}
	bob2.mu.Unlock()
	for i, f := range parts {
		if !strings.Contains(f, fmt.Sprintf(`"part":%d`, i+1)) {
			t.Errorf("replay part %d = %s (order kept)", i+1, f)
		}
	}
	var got []string
	for len(got) < 2 {
		select {
		case c := <-asked:
			got = append(got, c)
		case <-time.After(10 * time.Second):
			t.Fatalf("replayers asked: %q", got)
		}
	}
	slices.Sort(got)
	if want := []string{"on B: " + conv, conv}; !slices.Equal(got, want) {
		t.Errorf("replayers asked %q, want %q (never for a conversation bob is not in)", got, want)
	}
	if n, m := count(bob1), count(onA); n != 0 || m != 0 {
		t.Errorf("replay frames on bob's other socket: %d, on alice's: %d; want none", n, m)
	}
}

// TestReplicasRevokeOneToken: a token revoked through replica B closes the socket it opened on
// replica A and nothing else; revoking every token through A closes the user's sockets on both.
func TestReplicasRevokeOneToken(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	sa, sb := postgresReplicas(t, "alice", "bob")
	ids := mintTokens(t, sa, "alice", "on-a", "on-b")
	a := newEnv(t, Options{PollInterval: time.Hour, Authenticate: storeAuth(sa)}, sa, false)
	b := newEnv(t, Options{PollInterval: time.Hour, Authenticate: storeAuth(sb)}, sb, false)
	onA, onB := a.connectToken("alice", "on-a", nil), b.connectToken("alice", "on-b", nil)

	testutil.Check(t, sb.RevokeToken(ctx, "alice", ids[0]))
	b.hub.Notify()
	if code := onA.waitClosed(t, 10*time.Second); code != CloseUnauthorized {
		t.Fatalf("the revoked token's socket on A closed with %v, want 4001", code)
	}
	sendText(t, sa, "bob", "alice", "after logout")
	a.hub.Notify()
	eventually(t, 10*time.Second, "a message on the other token's socket on B", func() bool { return hasMessage(onB, "after logout") })
	if isDone(onB) {
		t.Fatal("the other token's socket on B must stay open")
	}

	onA2 := a.connectToken("alice", "on-b", nil)
	testutil.Check(t, sa.RevokeUserTokens(ctx, "alice"))
	a.hub.Notify()
	for _, c := range []*client{onA2, onB} {
		if code := c.waitClosed(t, 10*time.Second); code != CloseUnauthorized {
			t.Fatalf("after revoking every token a socket closed with %v, want 4001", code)
		}
	}
}

// postgresReplicas starts PostgreSQL and opens two stores on it, as two replicas would, with
// these users; both close when the test ends.
func postgresReplicas(t *testing.T, uids ...string) (store.Store, store.Store) {
	t.Helper()
	ctx := context.Background()
	pg := testutil.StartPostgres(t)
	open := func() store.Store {
		s, err := store.Open(ctx, pg.URL)
		if err != nil {
			t.Fatalf("open store: %v", err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	sa, sb := open(), open()
	for _, u := range uids {
		if _, err := sa.CreateUser(ctx, model.User{UID: u, Name: u}); err != nil {
			t.Fatal(err)
		}
	}
	return sa, sb
}
