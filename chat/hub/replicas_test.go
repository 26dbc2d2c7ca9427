package hub

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/testutil"
)

// TestReplicasOnPostgres: two hubs, each with its own store connection to one PostgreSQL, as
// two replicas. A message committed through either reaches the sockets held by the other
// (woken by NOTIFY; the poll is set long so the test shows the wake-up works).
func TestReplicasOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
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
	for _, u := range []string{"alice", "bob"} {
		if _, err := sa.CreateUser(ctx, model.User{UID: u, Name: u}); err != nil {
			t.Fatal(err)
		}
	}
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
		if err != nil {
			t.Fatal(err)
		}
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
}
