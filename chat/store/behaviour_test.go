package store

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// behaviour is one case of the suite every backend runs.
type behaviour struct {
	name string
	run  func(t *testing.T, s Store)
}

// suite collects the cases of every area (users_test.go, groups_test.go, …).
var suite []behaviour

func cases(bs ...behaviour) bool { suite = append(suite, bs...); return true }

// TestBehaviour runs the behaviour suite on SQLite and on a real PostgreSQL.
func TestBehaviour(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			for _, b := range suite {
				t.Run(b.name, func(t *testing.T) { b.run(t, open(t, kind)) })
			}
		})
	}
}

var _ = cases(
	behaviour{"open refuses unknown URLs and reports its kind", func(t *testing.T, s Store) {
		if _, err := Open(ctx, "mysql://x"); err == nil {
			t.Error("mysql accepted")
		}
		if s.Kind() != "sqlite" && s.Kind() != "postgres" {
			t.Errorf("kind %q", s.Kind())
		}
		wantCode(t, s.Ping(ctx), "")
	}},
	behaviour{"users: create, get, update, list, errors", func(t *testing.T, s Store) {
		u := must[model.User](t)(s.CreateUser(ctx, model.User{UID: "alice", Name: "Alice", Metadata: json.RawMessage(`{"a":1}`)}))
		if u.Kind != model.UserKindUser || u.CreatedAt.IsZero() {
			t.Errorf("created %+v", u)
		}
		_, err := s.CreateUser(ctx, model.User{UID: "alice", Name: "Again"})
		wantCode(t, err, model.ErrUIDExists)
		for _, bad := range []model.User{{UID: "", Name: "x"}, {UID: "a b", Name: "x"}, {UID: "ok", Name: " "}, {UID: "ok", Name: "x", Kind: "robot"}, {UID: "ok", Name: "x", Metadata: json.RawMessage(`{`)}} {
			_, err := s.CreateUser(ctx, bad)
			wantCode(t, err, model.ErrValidation)
		}
		got := must[model.User](t)(s.GetUser(ctx, "alice"))
		if got.Name != "Alice" || string(got.Metadata) != `{"a":1}` || !got.CreatedAt.Equal(u.CreatedAt) {
			t.Errorf("got %+v", got)
		}
		_, err = s.GetUser(ctx, "nobody")
		wantCode(t, err, model.ErrUIDNotFound)
		up := must[model.User](t)(s.UpdateUser(ctx, model.User{UID: "alice", Name: "Alice B", Avatar: "https://x/a.png"}))
		if up.Name != "Alice B" || up.Avatar != "https://x/a.png" || up.Kind != model.UserKindUser {
			t.Errorf("updated %+v", up)
		}
		_, err = s.UpdateUser(ctx, model.User{UID: "nobody", Name: "x"})
		wantCode(t, err, model.ErrUIDNotFound)
		must[model.User](t)(s.CreateUser(ctx, model.User{UID: "bot", Name: "Helper Bot", Kind: model.UserKindAgent}))
		users(t, s, "carol", "dave", "erin")
		p1 := must[Page[model.User]](t)(s.ListUsers(ctx, UserQuery{Limit: 2}))
		if len(p1.Items) != 2 || p1.Items[0].UID != "alice" || p1.Items[1].UID != "bot" || p1.Next == "" {
			t.Fatalf("page 1 %+v", p1)
		}
		p2 := must[Page[model.User]](t)(s.ListUsers(ctx, UserQuery{Limit: 2, Cursor: p1.Next}))
		p3 := must[Page[model.User]](t)(s.ListUsers(ctx, UserQuery{Limit: 2, Cursor: p2.Next}))
		if len(p2.Items) != 2 || p2.Items[0].UID != "carol" || len(p3.Items) != 1 || p3.Next != "" {
			t.Errorf("pages %+v %+v", p2, p3)
		}
		agents := must[Page[model.User]](t)(s.ListUsers(ctx, UserQuery{Kind: model.UserKindAgent}))
		search := must[Page[model.User]](t)(s.ListUsers(ctx, UserQuery{SearchKeyword: "HELP"}))
		if len(agents.Items) != 1 || len(search.Items) != 1 || search.Items[0].UID != "bot" {
			t.Errorf("filters %+v %+v", agents, search)
		}
		_, err = s.ListUsers(ctx, UserQuery{Cursor: p1.Next + "x"})
		wantCode(t, err, model.ErrBadCursor)
		_, err = s.ListUsers(ctx, UserQuery{Limit: 101})
		wantCode(t, err, model.ErrValidation)
	}},
	behaviour{"tokens: only live ones authenticate", func(t *testing.T, s Store) {
		users(t, s, "alice", "bob")
		h := func(tok string) []byte { sum := sha256.Sum256([]byte(tok)); return sum[:] }
		id := must[string](t)(s.CreateToken(ctx, "alice", h("t1"), time.Time{}))
		must[string](t)(s.CreateToken(ctx, "alice", h("t2"), time.Now().Add(time.Hour)))
		must[string](t)(s.CreateToken(ctx, "alice", h("old"), time.Now().Add(-time.Second)))
		must[string](t)(s.CreateToken(ctx, "bob", h("b1"), time.Time{}))
		_, err := s.CreateToken(ctx, "nobody", h("x"), time.Time{})
		wantCode(t, err, model.ErrUIDNotFound)
		if ti, err := s.TokenUser(ctx, h("t1")); ti.UID != "alice" || ti.ID != id || !ti.ExpiresAt.IsZero() || err != nil {
			t.Errorf("t1: %+v %v", ti, err)
		}
		if ti, err := s.TokenUser(ctx, h("t2")); err != nil || ti.ExpiresAt.Before(time.Now().Add(59*time.Minute)) || ti.ExpiresAt.After(time.Now().Add(time.Hour)) {
			t.Errorf("t2 expires at %v (%v), want in an hour", ti.ExpiresAt, err)
		}
		_, err = s.TokenUser(ctx, h("old"))
		wantCode(t, err, model.ErrUnauthenticated)
		_, err = s.TokenUser(ctx, h("never"))
		wantCode(t, err, model.ErrUnauthenticated)
		wantCode(t, s.RevokeToken(ctx, "bob", id), model.ErrNotFound) // not bob's
		wantCode(t, s.RevokeToken(ctx, "alice", id), "")
		wantCode(t, s.RevokeToken(ctx, "alice", id), "")
		_, err = s.TokenUser(ctx, h("t1"))
		wantCode(t, err, model.ErrUnauthenticated)
		if ti, _ := s.TokenUser(ctx, h("t2")); ti.UID != "alice" {
			t.Error("t2 revoked with t1")
		}
		wantCode(t, s.RevokeUserTokens(ctx, "alice"), "")
		_, err = s.TokenUser(ctx, h("t2"))
		wantCode(t, err, model.ErrUnauthenticated)
		if ti, _ := s.TokenUser(ctx, h("b1")); ti.UID != "bob" {
			t.Error("bob's token revoked with alice's")
		}
	}},
	behaviour{"tokens: logging out revokes exactly the calling token", func(t *testing.T, s Store) {
		users(t, s, "alice")
		h := func(tok string) []byte { sum := sha256.Sum256([]byte(tok)); return sum[:] }
		id1 := must[string](t)(s.CreateToken(ctx, "alice", h("phone"), time.Time{}))
		id2 := must[string](t)(s.CreateToken(ctx, "alice", h("laptop"), time.Time{}))
		_, newest := must2(t)(s.Horizon(ctx))
		// Logout: find the calling token by its hash, then revoke that id.
		ti, err := s.TokenUser(ctx, h("phone"))
		uid, tid := ti.UID, ti.ID
		if err != nil || uid != "alice" || tid != id1 {
			t.Fatalf("phone: %q %q %v", uid, tid, err)
		}
		wantCode(t, s.RevokeToken(ctx, uid, tid), "")
		_, err = s.TokenUser(ctx, h("phone"))
		wantCode(t, err, model.ErrUnauthenticated)
		if ti, err := s.TokenUser(ctx, h("laptop")); ti.UID != "alice" || ti.ID != id2 || err != nil {
			t.Errorf("laptop after logging out the phone: %+v %v", ti, err)
		}
		evs := must[[]model.Event](t)(s.EventsSince(ctx, "alice", newest, 100))
		if len(evs) != 1 || evs[0].Type != model.EventTokensRevoked || evs[0].TargetUID != "alice" || string(evs[0].Data) != `{"tokenId":"`+id1+`"}` {
			t.Errorf("events %+v", evs)
		}
		wantCode(t, s.RevokeUserTokens(ctx, "alice"), "")
		evs = must[[]model.Event](t)(s.EventsSince(ctx, "alice", evs[len(evs)-1].Pos, 100))
		if len(evs) != 1 || evs[0].Type != model.EventTokensRevoked || string(evs[0].Data) != `{"tokenId":"*"}` {
			t.Errorf("events after revoking all %+v", evs)
		}
	}},
	behaviour{"one-to-one messages: send, list, events", func(t *testing.T, s Store) {
		users(t, s, "alice", "bob", "carol")
		m := send(t, s, text("alice", "bob", model.ReceiverUser, "hi bob"))
		if m.ID == 0 || m.ConversationID != "user_alice_user_bob" || m.Moderation != model.ModerationApproved || m.SentAt.IsZero() {
			t.Errorf("sent %+v", m)
		}
		send(t, s, text("bob", "alice", model.ReceiverUser, "hi alice"))
		for _, viewer := range []string{"alice", "bob"} {
			other := map[string]string{"alice": "bob", "bob": "alice"}[viewer]
			got := must[[]model.Message](t)(s.ListMessages(ctx, viewer, MessageQuery{UID: other}))
			if len(got) != 2 || got[0].Text != "hi bob" || got[1].Text != "hi alice" {
				t.Errorf("%s sees %+v", viewer, got)
			}
		}
		if got := must[[]model.Message](t)(s.ListMessages(ctx, "carol", MessageQuery{UID: "alice"})); len(got) != 0 {
			t.Errorf("carol sees %+v", got)
		}
		_, err := s.GetMessage(ctx, "carol", m.ID)
		wantCode(t, err, model.ErrMessageNotFound)
		_, err = s.SendMessage(ctx, text("alice", "nobody", model.ReceiverUser, "x"))
		wantCode(t, err, model.ErrUIDNotFound)
		_, err = s.ListMessages(ctx, "alice", MessageQuery{UID: "nobody"})
		wantCode(t, err, model.ErrUIDNotFound)
		for _, bad := range []model.Message{
			text("alice", "bob", model.ReceiverUser, " "),
			text("alice", "bob", "channel", "x"),
			text("alice", "alice", model.ReceiverUser, "x"),
			{Sender: "alice", ReceiverID: "bob", ReceiverType: model.ReceiverUser, Type: model.TypeImage},
			{Sender: "alice", ReceiverID: "bob", ReceiverType: model.ReceiverUser, Category: model.CategoryAction, Type: model.TypeMember},
			{Sender: "alice", ReceiverID: "bob", ReceiverType: model.ReceiverUser, Category: model.CategoryCustom, Type: "poll", Data: json.RawMessage(`{`)},
		} {
			_, err := s.SendMessage(ctx, bad)
			wantCode(t, err, model.ErrValidation)
		}
		evs := allEvents(t, s)
		if eventTypes(evs) != "message.created,message.created" || evs[0].Seq != 1 || evs[1].Seq != 2 || evs[0].Pos >= evs[1].Pos || evs[0].ConversationID != m.ConversationID {
			t.Errorf("events %+v", evs)
		}
		var fromEvent model.Message
		if err := json.Unmarshal(evs[0].Data, &fromEvent); err != nil || fromEvent.ID != m.ID || fromEvent.Text != "hi bob" {
			t.Errorf("event data %s", evs[0].Data)
		}
		if mine := must[[]model.Event](t)(s.EventsSince(ctx, "carol", 0, 0)); len(mine) != 0 {
			t.Errorf("carol's events %+v", mine)
		}
		if mine := must[[]model.Event](t)(s.EventsSince(ctx, "bob", evs[0].Pos, 0)); len(mine) != 1 || mine[0].Pos != evs[1].Pos {
			t.Errorf("bob's events after the first %+v", mine)
		}
		members := must[[]string](t)(s.Members(ctx, m.ConversationID))
		if fmt.Sprint(members) != "[alice bob]" {
			t.Errorf("members %v", members)
		}
		if none := must[[]string](t)(s.Members(ctx, "user_x_user_y")); len(none) != 0 {
			t.Errorf("unknown conversation members %v", none)
		}
		oldest, newest := must2(t)(s.Horizon(ctx))
		if oldest != evs[0].Pos || newest != evs[1].Pos {
			t.Errorf("horizon %d %d", oldest, newest)
		}
	}},
)

func must2(t *testing.T) func(a, b int64, err error) (int64, int64) {
	return func(a, b int64, err error) (int64, int64) {
		t.Helper()
		testutil.Check(t, err)
		return a, b
	}
}
