package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/chat/model"
)

func messageIDs(msgs []model.Message) string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Text)
	}
	return strings.Join(out, ",")
}

func eventsOf(t *testing.T, s Store, typ string) []model.Event {
	t.Helper()
	var out []model.Event
	for _, e := range allEvents(t, s) {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

var _ = cases(
	behaviour{"messages: edit by the sender, delete as a tombstone", func(t *testing.T, s Store) {
		users(t, s, "owner", "mod", "pat", "quinn")
		group(t, s, "owner", "g", model.GroupPublic, "mod", "pat")
		wantCode(t, s.ChangeScope(ctx, "owner", "g", "mod", model.ScopeModerator), "")
		m := send(t, s, model.Message{Sender: "pat", ReceiverID: "g", ReceiverType: model.ReceiverGroup, Type: model.TypeImage, Text: "look", Attachment: &model.Attachment{URL: "https://x/p.png", MimeType: "image/png", Size: 10}})
		_, err := s.SendMessage(ctx, text("quinn", "g", model.ReceiverGroup, "hi"))
		wantCode(t, err, model.ErrNotAMember)
		_, err = s.SendMessage(ctx, text("pat", "nope", model.ReceiverGroup, "hi"))
		wantCode(t, err, model.ErrGUIDNotFound)
		_, err = s.EditMessage(ctx, "mod", m.ID, "mine now", nil)
		wantCode(t, err, model.ErrPermissionDenied)
		_, err = s.EditMessage(ctx, "quinn", m.ID, "x", nil)
		wantCode(t, err, model.ErrMessageNotFound)
		_, err = s.EditMessage(ctx, "pat", 999999, "x", nil)
		wantCode(t, err, model.ErrMessageNotFound)
		ed := must[model.Message](t)(s.EditMessage(ctx, "pat", m.ID, "look at this", json.RawMessage(`{"k":1}`)))
		if ed.Text != "look at this" || ed.EditedAt == nil || ed.EditedBy != "pat" || string(ed.Data) != `{"k":1}` || ed.Attachment == nil {
			t.Errorf("edited %+v", ed)
		}
		other := send(t, s, text("owner", "g", model.ReceiverGroup, "owner's"))
		_, err = s.DeleteMessage(ctx, "pat", other.ID)
		wantCode(t, err, model.ErrPermissionDenied)
		del := must[model.Message](t)(s.DeleteMessage(ctx, "mod", m.ID))
		if del.DeletedAt == nil || del.DeletedBy != "mod" || del.Text != "" || del.Data != nil || del.Attachment != nil {
			t.Errorf("tombstone %+v", del)
		}
		again := must[model.Message](t)(s.DeleteMessage(ctx, "pat", m.ID))
		if !again.DeletedAt.Equal(*del.DeletedAt) {
			t.Errorf("second delete changed the tombstone")
		}
		_, err = s.EditMessage(ctx, "pat", m.ID, "back", nil)
		wantCode(t, err, model.ErrMessageDeleted)
		_, err = s.AddReaction(ctx, "owner", m.ID, "👍")
		wantCode(t, err, model.ErrMessageDeleted)
		must[model.Message](t)(s.DeleteMessage(ctx, "owner", other.ID)) // admins too
		listed := must[[]model.Message](t)(s.ListMessages(ctx, "pat", MessageQuery{GUID: "g", Categories: []string{model.CategoryMessage}}))
		if len(listed) != 2 || listed[0].DeletedAt == nil || listed[0].Attachment != nil {
			t.Errorf("listed %+v", listed)
		}
		if got := eventsOf(t, s, model.EventMessageDeleted); len(got) != 2 || got[0].ConversationID != "group_g" {
			t.Errorf("delete events %+v", got)
		}
		if got := eventsOf(t, s, model.EventMessageEdited); len(got) != 1 {
			t.Errorf("edit events %+v", got)
		}
	}},
	behaviour{"messages: reactions with counts and reactedByMe", func(t *testing.T, s Store) {
		users(t, s, "a", "b", "c")
		group(t, s, "a", "g", model.GroupPublic, "b")
		m := send(t, s, text("a", "g", model.ReceiverGroup, "react"))
		must[model.Message](t)(s.AddReaction(ctx, "a", m.ID, "👍"))
		must[model.Message](t)(s.AddReaction(ctx, "a", m.ID, "👍")) // twice: once
		must[model.Message](t)(s.AddReaction(ctx, "b", m.ID, "👍"))
		got := must[model.Message](t)(s.AddReaction(ctx, "b", m.ID, "🎉"))
		if fmt.Sprint(got.Reactions) != "[{🎉 1 true} {👍 2 true}]" {
			t.Errorf("b sees %v", got.Reactions)
		}
		if a := must[model.Message](t)(s.GetMessage(ctx, "a", m.ID)); fmt.Sprint(a.Reactions) != "[{🎉 1 false} {👍 2 true}]" {
			t.Errorf("a sees %v", a.Reactions)
		}
		_, err := s.AddReaction(ctx, "c", m.ID, "👍")
		wantCode(t, err, model.ErrMessageNotFound)
		_, err = s.AddReaction(ctx, "a", m.ID, " ")
		wantCode(t, err, model.ErrValidation)
		who := must[Page[model.Reaction]](t)(s.ListReactions(ctx, "a", m.ID, "👍", MemberQuery{Limit: 1}))
		who2 := must[Page[model.Reaction]](t)(s.ListReactions(ctx, "a", m.ID, "👍", MemberQuery{Limit: 1, Cursor: who.Next}))
		if len(who.Items) != 1 || who.Items[0].UID != "a" || len(who2.Items) != 1 || who2.Items[0].UID != "b" || who2.Next != "" {
			t.Errorf("who %+v %+v", who, who2)
		}
		if any := must[Page[model.Reaction]](t)(s.ListReactions(ctx, "a", m.ID, "", MemberQuery{})); len(any.Items) != 3 {
			t.Errorf("all reactions %+v", any)
		}
		_, err = s.ListReactions(ctx, "a", m.ID, "🎉", MemberQuery{Cursor: who.Next})
		wantCode(t, err, model.ErrBadCursor)
		got = must[model.Message](t)(s.RemoveReaction(ctx, "a", m.ID, "👍"))
		must[model.Message](t)(s.RemoveReaction(ctx, "a", m.ID, "👍"))
		if fmt.Sprint(got.Reactions) != "[{🎉 1 false} {👍 1 false}]" {
			t.Errorf("after remove %v", got.Reactions)
		}
		if n, r := len(eventsOf(t, s, model.EventReactionAdded)), len(eventsOf(t, s, model.EventReactionRemoved)); n != 3 || r != 1 {
			t.Errorf("reaction events %d %d", n, r)
		}
	}},
	behaviour{"messages: threads and listing by cursor, parent, types, categories", func(t *testing.T, s Store) {
		users(t, s, "a", "b")
		var ms []model.Message
		for i := 1; i <= 10; i++ {
			ms = append(ms, send(t, s, text("a", "b", model.ReceiverUser, fmt.Sprint(i))))
		}
		r1 := send(t, s, model.Message{Sender: "b", ReceiverID: "a", ReceiverType: model.ReceiverUser, Type: model.TypeText, Text: "r1", ParentID: ms[2].ID})
		send(t, s, model.Message{Sender: "a", ReceiverID: "b", ReceiverType: model.ReceiverUser, Type: model.TypeText, Text: "r2", ParentID: ms[2].ID})
		send(t, s, model.Message{Sender: "a", ReceiverID: "b", ReceiverType: model.ReceiverUser, Category: model.CategoryCustom, Type: "poll", Data: json.RawMessage(`{"q":"?"}`)})
		if r1.ParentID != ms[2].ID {
			t.Errorf("reply %+v", r1)
		}
		if p := must[model.Message](t)(s.GetMessage(ctx, "b", ms[2].ID)); p.ReplyCount != 2 {
			t.Errorf("reply count %d", p.ReplyCount)
		}
		users(t, s, "c")
		_, err := s.SendMessage(ctx, model.Message{Sender: "c", ReceiverID: "a", ReceiverType: model.ReceiverUser, Type: model.TypeText, Text: "x", ParentID: ms[0].ID})
		wantCode(t, err, model.ErrMessageNotFound) // another conversation's parent
		list := func(q MessageQuery) string {
			t.Helper()
			q.UID = "b"
			return messageIDs(must[[]model.Message](t)(s.ListMessages(ctx, "a", q)))
		}
		for _, c := range []struct {
			q    MessageQuery
			want string
		}{
			{MessageQuery{Limit: 3}, "r1,r2,"},
			{MessageQuery{Limit: 3, HideReplies: true}, "9,10,"},
			{MessageQuery{Limit: 3, Before: ms[4].ID}, "2,3,4"},
			{MessageQuery{Limit: 3, After: ms[4].ID}, "6,7,8"},
			{MessageQuery{Limit: 4, Around: ms[4].ID}, "3,4,5,6"},
			{MessageQuery{Limit: 4, Around: ms[0].ID}, "1,2,3,4"},
			{MessageQuery{ParentID: ms[2].ID}, "r1,r2"},
			{MessageQuery{Types: []string{"poll"}}, ""},
			{MessageQuery{Categories: []string{model.CategoryCustom}}, ""},
			{MessageQuery{Types: []string{model.TypeText}, Limit: 2}, "r1,r2"},
		} {
			if got := list(c.q); got != c.want {
				t.Errorf("%+v: got %q want %q", c.q, got, c.want)
			}
		}
		for _, bad := range []MessageQuery{{UID: "b", Limit: 101}, {UID: "b", Before: 1, After: 2}, {}, {UID: "b", GUID: "g"}, {UID: "b", Limit: -1}} {
			_, err := s.ListMessages(ctx, "a", bad)
			wantCode(t, err, model.ErrValidation)
		}
		if got := must[[]model.Message](t)(s.ListMessages(ctx, "a", MessageQuery{UID: "b"})); len(got) != 13 {
			t.Errorf("default limit answered %d", len(got))
		}
		for i := 0; i < 2; i++ { // a deleted reply stops counting, once
			must[model.Message](t)(s.DeleteMessage(ctx, "b", r1.ID))
			if p := must[model.Message](t)(s.GetMessage(ctx, "a", ms[2].ID)); p.ReplyCount != 1 {
				t.Errorf("reply count after deleting a reply (%d): %d", i+1, p.ReplyCount)
			}
		}
	}},
	behaviour{"receipts: watermarks, to-all, unread counts, mark unread, message info", func(t *testing.T, s Store) {
		users(t, s, "a", "b", "c", "x")
		group(t, s, "a", "g", model.GroupPublic, "b", "c")
		m1 := send(t, s, text("a", "g", model.ReceiverGroup, "one"))
		m2 := send(t, s, text("a", "g", model.ReceiverGroup, "two"))
		wantCode(t, s.MarkDelivered(ctx, "b", m2.ID), "")
		wantCode(t, s.MarkDelivered(ctx, "b", m1.ID), "") // never back
		wantCode(t, s.MarkDelivered(ctx, "x", m1.ID), model.ErrMessageNotFound)
		wantCode(t, s.MarkRead(ctx, "b", 999999), model.ErrMessageNotFound)
		if got := eventsOf(t, s, model.EventReceiptDeliveredAll); len(got) != 0 {
			t.Errorf("to-all before c: %+v", got)
		}
		// What the sender's reloaded list shows must agree with the live to-all events.
		senderView := func(step string, delivered, read bool) {
			t.Helper()
			for _, m := range must[[]model.Message](t)(s.ListMessages(ctx, "a", MessageQuery{GUID: "g"})) {
				if (m.DeliveredAt != nil) != delivered || (m.ReadAt != nil) != read {
					t.Errorf("%s: a sees message %d delivered=%v read=%v, want %v %v", step, m.ID, m.DeliveredAt, m.ReadAt, delivered, read)
				}
			}
		}
		senderView("only b delivered", false, false)
		if got := must[[]model.Message](t)(s.ListMessages(ctx, "b", MessageQuery{GUID: "g"})); got[1].DeliveredAt == nil || got[1].ReadAt != nil {
			t.Errorf("b's own receipt of m2 on reload: %+v", got[1])
		}
		wantCode(t, s.MarkRead(ctx, "c", m2.ID), "")
		senderView("b delivered, c read", true, false)
		delivered := eventsOf(t, s, model.EventReceiptDeliveredAll)
		if len(delivered) != 1 || len(eventsOf(t, s, model.EventReceiptReadAll)) != 0 {
			t.Fatalf("to-all after c read: %+v", delivered)
		}
		var r model.Receipt
		_ = json.Unmarshal(delivered[0].Data, &r)
		if r.MessageID != m2.ID || r.ConversationID != "group_g" {
			t.Errorf("to-all receipt %+v", r)
		}
		wantCode(t, s.MarkRead(ctx, "b", m1.ID), "")
		wantCode(t, s.MarkRead(ctx, "b", m2.ID), "")
		if got := eventsOf(t, s, model.EventReceiptReadAll); len(got) != 2 {
			t.Errorf("read to-all %+v", got) // m1 (b was last) and m2
		}
		senderView("both read", true, true)
		if n := len(eventsOf(t, s, model.EventReceiptDelivered)); n != 2 { // b m2, c m2 (with its read); b's reads are behind its delivery
			t.Errorf("delivered events %d", n)
		}
		info := must[[]ReceiptInfo](t)(s.MessageInfo(ctx, "a", m2.ID))
		if len(info) != 2 || info[0].UID != "b" || info[0].ReadAt == nil || info[1].DeliveredAt == nil {
			t.Errorf("info %+v", info)
		}
		_, err := s.MessageInfo(ctx, "x", m2.ID)
		wantCode(t, err, model.ErrMessageNotFound)
		unreadCounts(t, s, m1, m2)
		lateJoinerReceipts(t, s, m1, m2)
	}},
	behaviour{"flags and moderation rules", func(t *testing.T, s Store) {
		users(t, s, "owner", "pat", "quinn")
		group(t, s, "owner", "g", model.GroupPublic, "pat", "quinn")
		wantCode(t, s.PutRules(ctx, []Rule{{Kind: "regex", Pattern: "(", Action: model.ModerationPending}}), model.ErrValidation)
		wantCode(t, s.PutRules(ctx, []Rule{{Kind: "glob", Pattern: "x", Action: model.ModerationPending}}), model.ErrValidation)
		wantCode(t, s.PutRules(ctx, []Rule{{Kind: "word", Pattern: "x", Action: model.ModerationApproved}}), model.ErrValidation)
		wantCode(t, s.PutRules(ctx, []Rule{{Kind: "word", Pattern: "spam", Action: model.ModerationPending}, {Kind: "regex", Pattern: `\d{4}-\d{4}`, Action: model.ModerationDisapproved}}), "")
		rules := must[[]Rule](t)(s.Rules(ctx))
		if len(rules) != 2 || rules[0].ID == "" || rules[1].Kind != "regex" {
			t.Errorf("rules %+v", rules)
		}
		ok := send(t, s, text("pat", "g", model.ReceiverGroup, "spammy is fine"))
		pending := send(t, s, text("pat", "g", model.ReceiverGroup, "buy SPAM now"))
		refused := send(t, s, text("pat", "g", model.ReceiverGroup, "card 1234-5678 spam"))
		if ok.Moderation != model.ModerationApproved || pending.Moderation != model.ModerationPending || refused.Moderation != model.ModerationDisapproved {
			t.Errorf("statuses %s %s %s", ok.Moderation, pending.Moderation, refused.Moderation)
		}
		for viewer, want := range map[string]int{"pat": 3, "owner": 3, "quinn": 1} {
			if got := must[[]model.Message](t)(s.ListMessages(ctx, viewer, MessageQuery{GUID: "g", Categories: []string{model.CategoryMessage}})); len(got) != want {
				t.Errorf("%s sees %d messages", viewer, len(got))
			}
		}
		_, err := s.GetMessage(ctx, "quinn", pending.ID)
		wantCode(t, err, model.ErrMessageNotFound)
		quinnEvents := must[[]model.Event](t)(s.EventsSince(ctx, "quinn", 0, 0))
		for _, e := range quinnEvents {
			if e.Type == model.EventMessageCreated && strings.Contains(string(e.Data), "SPAM") {
				t.Errorf("quinn got the pending message: %s", e.Data)
			}
		}
		_, err = s.Moderate(ctx, pending.ID, "maybe")
		wantCode(t, err, model.ErrValidation)
		_, err = s.Moderate(ctx, 999999, model.ModerationApproved)
		wantCode(t, err, model.ErrMessageNotFound)
		approved := must[model.Message](t)(s.Moderate(ctx, pending.ID, model.ModerationApproved))
		if approved.Moderation != model.ModerationApproved {
			t.Errorf("moderated %+v", approved)
		}
		if m := must[model.Message](t)(s.GetMessage(ctx, "quinn", pending.ID)); m.Text != "buy SPAM now" {
			t.Errorf("quinn after approval %+v", m)
		}
		if evs := eventsOf(t, s, model.EventMessageModerated); len(evs) != 1 || evs[0].ConversationID != "group_g" {
			t.Errorf("moderated events %+v", evs)
		}
		wantCode(t, s.Flag(ctx, model.Flag{MessageID: ok.ID, UID: "quinn", Reason: "rude", Remark: "very"}), "")
		wantCode(t, s.Flag(ctx, model.Flag{MessageID: ok.ID, UID: "owner", Reason: "spam"}), "")
		wantCode(t, s.Flag(ctx, model.Flag{MessageID: ok.ID, UID: "quinn", Reason: " "}), model.ErrValidation)
		wantCode(t, s.Flag(ctx, model.Flag{MessageID: refused.ID, UID: "quinn", Reason: "x"}), model.ErrMessageNotFound)
		f1 := must[Page[model.Flag]](t)(s.ListFlags(ctx, MemberQuery{Limit: 1}))
		f2 := must[Page[model.Flag]](t)(s.ListFlags(ctx, MemberQuery{Limit: 1, Cursor: f1.Next}))
		if len(f1.Items) != 1 || f1.Items[0].UID != "quinn" || f1.Items[0].Remark != "very" || len(f2.Items) != 1 || f2.Items[0].UID != "owner" || f2.Next != "" {
			t.Errorf("flags %+v %+v", f1, f2)
		}
	}},
)

// A conversation's unread count is what reading the main list clears: thread replies and
// action messages (joins, additions) do not count.
func TestUnreadCountsTheMainListOnly(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		users(t, s, "a", "b", "c")
		group(t, s, "a", "g", model.GroupPublic, "b")
		if _, err := s.AddMembers(ctx, "a", "g", []model.Member{{UID: "c"}}); err != nil {
			t.Fatal(err)
		}
		top := send(t, s, text("a", "g", model.ReceiverGroup, "top"))
		reply := text("c", "g", model.ReceiverGroup, "in the thread")
		reply.ParentID = top.ID
		send(t, s, reply)
		unread := func() int {
			convs := must[Page[model.Conversation]](t)(s.ListConversations(ctx, "b", ConversationQuery{Type: model.ReceiverGroup}))
			if len(convs.Items) != 1 {
				t.Fatalf("b's group conversations %+v", convs.Items)
			}
			return convs.Items[0].UnreadCount
		}
		if n := unread(); n != 1 {
			t.Errorf("unread with an addition, a message and a thread reply: %d, want 1", n)
		}
		wantCode(t, s.MarkRead(ctx, "b", top.ID), "")
		if n := unread(); n != 0 {
			t.Errorf("unread after reading the main list: %d, want 0", n)
		}
	})
}

// A quote reply names a message of its conversation and carries it as it stands: in the
// send's answer and event, in lists, and as a tombstone once the quoted message is deleted.
func TestQuoteReplies(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		users(t, s, "a", "b", "c")
		group(t, s, "a", "g", model.GroupPublic, "b")
		group(t, s, "c", "h", model.GroupPublic)
		orig := send(t, s, text("a", "g", model.ReceiverGroup, "the original"))
		other := send(t, s, text("c", "h", model.ReceiverGroup, "elsewhere"))
		q := text("b", "g", model.ReceiverGroup, "quoting it")
		q.QuotedMessageID = orig.ID
		reply := send(t, s, q)
		if reply.QuotedMessageID != orig.ID || reply.QuotedMessage == nil || reply.QuotedMessage.Text != "the original" || reply.QuotedMessage.Sender != "a" {
			t.Fatalf("sent quote reply %+v", reply)
		}
		created := eventsOf(t, s, model.EventMessageCreated)
		var ev model.Message
		_ = json.Unmarshal(created[len(created)-1].Data, &ev)
		if ev.QuotedMessage == nil || ev.QuotedMessage.ID != orig.ID {
			t.Errorf("created event %s", created[len(created)-1].Data)
		}
		bad := text("b", "g", model.ReceiverGroup, "quoting another conversation")
		bad.QuotedMessageID = other.ID
		_, err := s.SendMessage(ctx, bad)
		wantCode(t, err, model.ErrMessageNotFound)
		bad.QuotedMessageID = 1 << 40
		_, err = s.SendMessage(ctx, bad)
		wantCode(t, err, model.ErrMessageNotFound)
		must[model.Message](t)(s.DeleteMessage(ctx, "a", orig.ID))
		list := must[[]model.Message](t)(s.ListMessages(ctx, "b", MessageQuery{GUID: "g"}))
		got := list[len(list)-1]
		if got.ID != reply.ID || got.QuotedMessage == nil || got.QuotedMessage.DeletedAt == nil || got.QuotedMessage.Text != "" {
			t.Errorf("listed quote reply after the delete %+v (quoted %+v)", got, got.QuotedMessage)
		}
	})
}

// Search: in a conversation (searchKeyword) and across the viewer's conversations, never
// another pair's or another group's messages, never deleted ones, newest first with paging.
func TestSearchMessages(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		users(t, s, "a", "b", "c")
		group(t, s, "a", "g", model.GroupPublic, "b")
		group(t, s, "c", "h", model.GroupPublic)
		m1 := send(t, s, text("a", "g", model.ReceiverGroup, "Pasta tonight?"))
		send(t, s, text("b", "a", model.ReceiverUser, "the PASTA was great"))
		send(t, s, text("c", "h", model.ReceiverGroup, "pasta in another group"))
		send(t, s, text("c", "b", model.ReceiverUser, "pasta between others"))
		gone := send(t, s, text("a", "g", model.ReceiverGroup, "deleted pasta"))
		must[model.Message](t)(s.DeleteMessage(ctx, "a", gone.ID))
		send(t, s, text("a", "g", model.ReceiverGroup, "100% sure"))
		texts := func(ms []model.Message) string {
			var out []string
			for _, m := range ms {
				out = append(out, m.Text)
			}
			return strings.Join(out, "|")
		}
		if got := texts(must[[]model.Message](t)(s.SearchMessages(ctx, "a", SearchQuery{Keyword: "pasta"}))); got != "the PASTA was great|Pasta tonight?" {
			t.Errorf("a's search: %s", got)
		}
		page := must[[]model.Message](t)(s.SearchMessages(ctx, "a", SearchQuery{Keyword: "pasta", Limit: 1}))
		if next := texts(must[[]model.Message](t)(s.SearchMessages(ctx, "a", SearchQuery{Keyword: "pasta", Limit: 1, Before: page[0].ID}))); next != "Pasta tonight?" {
			t.Errorf("second page: %s", next)
		}
		if got := texts(must[[]model.Message](t)(s.ListMessages(ctx, "b", MessageQuery{GUID: "g", SearchKeyword: "PASTA"}))); got != "Pasta tonight?" {
			t.Errorf("search in g: %s", got)
		}
		if got := texts(must[[]model.Message](t)(s.SearchMessages(ctx, "a", SearchQuery{Keyword: "0%"}))); got != "100% sure" {
			t.Errorf("a %% is a character, not a wildcard: %s", got)
		}
		_, err := s.SearchMessages(ctx, "a", SearchQuery{Keyword: "p"})
		wantCode(t, err, model.ErrValidation)
		_ = m1
	})
}

// Presence: online while a replica says so, offline after, with the last active time.
func TestPresence(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		users(t, s, "a", "b")
		if u := must[model.User](t)(s.GetUser(ctx, "a")); u.Status != "offline" || u.LastActiveAt != nil {
			t.Errorf("never connected: %+v", u)
		}
		wantCode(t, s.SetPresence(ctx, []string{"a", "b", "nobody"}, true), "")
		page := must[Page[model.User]](t)(s.ListUsers(ctx, UserQuery{}))
		for _, u := range page.Items {
			if u.Status != "online" || u.LastActiveAt == nil {
				t.Errorf("connected: %+v", u)
			}
		}
		wantCode(t, s.SetPresence(ctx, []string{"a"}, false), "")
		if u := must[model.User](t)(s.GetUser(ctx, "a")); u.Status != "offline" || u.LastActiveAt == nil {
			t.Errorf("gone: %+v", u)
		}
	})
}

// unreadCounts: b's conversations (a one-to-one with a and the group g of m1 and m2, which b
// read) count what b has not read, also after b marks m2 unread, in pages.
func unreadCounts(t *testing.T, s Store, m1, m2 model.Message) {
	t.Helper()
	send(t, s, text("a", "b", model.ReceiverUser, "dm1"))
	dm2 := send(t, s, text("a", "b", model.ReceiverUser, "dm2"))
	send(t, s, text("b", "a", model.ReceiverUser, "own"))
	convs := must[Page[model.Conversation]](t)(s.ListConversations(ctx, "b", ConversationQuery{}))
	if len(convs.Items) != 2 || convs.Items[0].ID != "user_a_user_b" || convs.Items[0].With != "a" || convs.Items[0].UnreadCount != 2 || convs.Items[0].LastMessage.Text != "own" {
		t.Fatalf("b's conversations %+v", convs)
	}
	if g := convs.Items[1]; g.ID != "group_g" || g.With != "g" || g.UnreadCount != 0 || g.LastReadID != m2.ID {
		t.Errorf("group conversation %+v", g)
	}
	wantCode(t, s.MarkUnread(ctx, "b", m2.ID), "")
	wantCode(t, s.MarkRead(ctx, "b", dm2.ID), "")
	convs = must[Page[model.Conversation]](t)(s.ListConversations(ctx, "b", ConversationQuery{Type: model.ReceiverGroup}))
	if len(convs.Items) != 1 || convs.Items[0].UnreadCount != 1 || convs.Items[0].LastReadID != m1.ID {
		t.Errorf("after unread %+v", convs)
	}
	page1 := must[Page[model.Conversation]](t)(s.ListConversations(ctx, "b", ConversationQuery{Limit: 1}))
	page2 := must[Page[model.Conversation]](t)(s.ListConversations(ctx, "b", ConversationQuery{Limit: 1, Cursor: page1.Next}))
	if page1.Items[0].UnreadCount != 0 || len(page2.Items) != 1 || page2.Items[0].ID != "group_g" || page2.Next != "" {
		t.Errorf("pages %+v %+v", page1, page2)
	}
	if got := must[Page[model.Conversation]](t)(s.ListConversations(ctx, "x", ConversationQuery{})); len(got.Items) != 0 {
		t.Errorf("x's conversations %+v", got)
	}
	unread := eventsOf(t, s, model.EventReceiptRead)
	last := unread[len(unread)-2] // the unread mark, before b's read of dm2
	if last.TargetUID != "b" || last.ConversationID != "" {
		t.Errorf("unread event %+v", last)
	}
	mine := must[model.Message](t)(s.GetMessage(ctx, "a", dm2.ID))
	if mine.ReadAt == nil || mine.DeliveredAt == nil {
		t.Errorf("a's view of its read message %+v", mine)
	}
}

// lateJoinerReceipts: a member who joins later does not take back what the sender was told,
// and counts for the messages sent after they joined, live and on reload alike. b marked m2
// unread.
func lateJoinerReceipts(t *testing.T, s Store, m1, m2 model.Message) {
	t.Helper()
	users(t, s, "y")
	must[model.Group](t)(s.JoinGroup(ctx, "y", "g", nil))
	view := func(id int64) model.Message { return must[model.Message](t)(s.GetMessage(ctx, "a", id)) }
	if v1, v2 := view(m1.ID), view(m2.ID); v1.ReadAt == nil || v2.DeliveredAt == nil || v2.ReadAt != nil {
		t.Errorf("after y joined: m1 %v/%v, m2 %v/%v; want m1 read, m2 delivered (b marked it unread)", v1.DeliveredAt, v1.ReadAt, v2.DeliveredAt, v2.ReadAt)
	}
	toAllOf := func(typ string, id int64) int {
		n := 0
		for _, e := range eventsOf(t, s, typ) {
			var r model.Receipt
			_ = json.Unmarshal(e.Data, &r)
			if r.MessageID == id {
				n++
			}
		}
		return n
	}
	readAll := toAllOf(model.EventReceiptReadAll, m2.ID)
	wantCode(t, s.MarkRead(ctx, "b", m2.ID), "") // b reads m2 again: y, who joined later, is not waited for
	if v := view(m2.ID); v.ReadAt == nil || toAllOf(model.EventReceiptReadAll, m2.ID) != readAll+1 {
		t.Errorf("m2 read again by b: %v, %d read-by-all events (was %d)", v.ReadAt, toAllOf(model.EventReceiptReadAll, m2.ID), readAll)
	}
	m3 := send(t, s, text("a", "g", model.ReceiverGroup, "three"))
	toAll := func() int { return toAllOf(model.EventReceiptDeliveredAll, m3.ID) }
	wantCode(t, s.MarkDelivered(ctx, "b", m3.ID), "")
	wantCode(t, s.MarkDelivered(ctx, "c", m3.ID), "")
	if v := view(m3.ID); v.DeliveredAt != nil || toAll() != 0 {
		t.Errorf("m3 delivered to all (%v, %d events) before y got it", v.DeliveredAt, toAll())
	}
	wantCode(t, s.MarkDelivered(ctx, "y", m3.ID), "")
	if v := view(m3.ID); v.DeliveredAt == nil || toAll() != 1 {
		t.Errorf("m3 after y: %v, %d to-all events; want delivered and one event", v.DeliveredAt, toAll())
	}
}
