package store

import (
	"encoding/json"
	"testing"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

func ptr[T any](v T) *T { return &v }

// actions returns the Data.action of the group's action messages, oldest first.
func actions(t *testing.T, s Store, viewer, guid string) []string {
	t.Helper()
	msgs := must[[]model.Message](t)(s.ListMessages(ctx, viewer, MessageQuery{GUID: guid, Categories: []string{model.CategoryAction}, Limit: 100}))
	var out []string
	for _, m := range msgs {
		var d memberEvent
		if err := json.Unmarshal(m.Data, &d); err != nil || m.Type != model.TypeMember {
			t.Fatalf("action message %+v", m)
		}
		out = append(out, d.Action+":"+d.By+">"+d.On)
	}
	return out
}

func isMember(t *testing.T, s Store, uid, guid string) bool {
	t.Helper()
	g, err := s.GetGroup(ctx, uid, guid)
	if model.CodeOf(err) == model.ErrGUIDNotFound {
		return false
	}
	testutil.Check(t, err)
	return g.HasJoined
}

var _ = cases(
	behaviour{"groups: create, get, update, delete, errors", func(t *testing.T, s Store) {
		users(t, s, "owner", "bob", "carol")
		g := must[model.Group](t)(s.CreateGroup(ctx, "owner", model.Group{GUID: "g1", Name: "Cooks", Type: model.GroupPublic, Tags: []string{"food"}}, []model.Member{{UID: "bob", Scope: model.ScopeModerator}}))
		if g.Owner != "owner" || !g.HasJoined || g.Scope != model.ScopeAdmin || g.MembersCount != 2 || g.Tags[0] != "food" {
			t.Errorf("created %+v", g)
		}
		_, err := s.CreateGroup(ctx, "owner", model.Group{GUID: "g1", Name: "x", Type: model.GroupPublic}, nil)
		wantCode(t, err, model.ErrGUIDExists)
		for _, bad := range []model.Group{{GUID: "", Name: "x", Type: model.GroupPublic}, {GUID: "g2", Name: "", Type: model.GroupPublic}, {GUID: "g2", Name: "x", Type: "secret"}, {GUID: "g2", Name: "x", Type: model.GroupPassword}} {
			_, err := s.CreateGroup(ctx, "owner", bad, nil)
			wantCode(t, err, model.ErrValidation)
		}
		_, err = s.CreateGroup(ctx, "nobody", model.Group{GUID: "g2", Name: "x", Type: model.GroupPublic}, nil)
		wantCode(t, err, model.ErrUIDNotFound)
		_, err = s.CreateGroup(ctx, "owner", model.Group{GUID: "g2", Name: "x", Type: model.GroupPublic}, []model.Member{{UID: "nobody"}})
		wantCode(t, err, model.ErrUIDNotFound)
		if _, err := s.GetGroup(ctx, "owner", "g2"); model.CodeOf(err) != model.ErrGUIDNotFound {
			t.Errorf("half-created group: %v", err)
		}
		seen := must[model.Group](t)(s.GetGroup(ctx, "carol", "g1"))
		if seen.HasJoined || seen.Scope != "" || seen.MembersCount != 2 {
			t.Errorf("carol sees %+v", seen)
		}
		_, err = s.UpdateGroup(ctx, "bob", "g1", GroupPatch{Name: ptr("Mods rule")})
		wantCode(t, err, model.ErrPermissionDenied)
		_, err = s.UpdateGroup(ctx, "carol", "g1", GroupPatch{Name: ptr("x")})
		wantCode(t, err, model.ErrNotAMember)
		_, err = s.UpdateGroup(ctx, "owner", "g1", GroupPatch{Type: ptr(model.GroupPassword)})
		wantCode(t, err, model.ErrValidation)
		up := must[model.Group](t)(s.UpdateGroup(ctx, "owner", "g1", GroupPatch{Name: ptr("Chefs"), Description: ptr("d"), Tags: &[]string{"food", "fun"}}))
		if up.Name != "Chefs" || up.Description != "d" || len(up.Tags) != 2 || up.Type != model.GroupPublic {
			t.Errorf("updated %+v", up)
		}
		wantCode(t, s.DeleteGroup(ctx, "bob", "g1"), model.ErrPermissionDenied)
		wantCode(t, s.DeleteGroup(ctx, "owner", "g1"), "")
		_, err = s.GetGroup(ctx, "owner", "g1")
		wantCode(t, err, model.ErrGUIDNotFound)
		wantCode(t, s.DeleteGroup(ctx, "owner", "g1"), model.ErrGUIDNotFound)
		evs := allEvents(t, s)
		last := evs[len(evs)-2:]
		if eventTypes(last) != "group.deleted,group.deleted" || last[0].TargetUID != "bob" || last[1].TargetUID != "owner" || last[0].ConversationID != "" {
			t.Errorf("delete events %+v", last)
		}
		if got := must[[]model.Event](t)(s.EventsSince(ctx, "bob", last[0].Pos-1, 0)); len(got) != 1 || got[0].Type != model.EventGroupDeleted {
			t.Errorf("bob's delete events %+v", got)
		}
		// The guid can be used again, without the old messages.
		group(t, s, "carol", "g1", model.GroupPublic)
		if acts := actions(t, s, "carol", "g1"); len(acts) != 0 {
			t.Errorf("old messages came back: %v", acts)
		}
	}},
	behaviour{"groups: list with keyword, joined, tags, private and cursor pages", func(t *testing.T, s Store) {
		users(t, s, "alice", "bob")
		for i, name := range []string{"Apple pie", "apple tart", "Banana", "Cherry"} {
			guid := string(rune('a'+i)) + "grp"
			_ = must[model.Group](t)(s.CreateGroup(ctx, "alice", model.Group{GUID: guid, Name: name, Type: model.GroupPublic, Tags: []string{"t" + guid[:1]}}, nil))
		}
		group(t, s, "alice", "secret", model.GroupPrivate)
		group(t, s, "bob", "zbob", model.GroupPassword)
		all := must[Page[model.Group]](t)(s.ListGroups(ctx, "bob", GroupQuery{}))
		if len(all.Items) != 5 || all.Next != "" || all.Items[4].GUID != "zbob" || !all.Items[4].HasJoined || all.Items[0].HasJoined || all.Items[0].Tags != nil {
			t.Errorf("bob lists %+v", all)
		}
		if got := must[Page[model.Group]](t)(s.ListGroups(ctx, "alice", GroupQuery{})); len(got.Items) != 6 {
			t.Errorf("alice sees her private group: %+v", got)
		}
		_, err := s.GetGroup(ctx, "bob", "secret")
		wantCode(t, err, model.ErrGUIDNotFound)
		kw := must[Page[model.Group]](t)(s.ListGroups(ctx, "bob", GroupQuery{SearchKeyword: "APPLE"}))
		if len(kw.Items) != 2 {
			t.Errorf("keyword %+v", kw)
		}
		if got := must[Page[model.Group]](t)(s.ListGroups(ctx, "bob", GroupQuery{SearchKeyword: "%"})); len(got.Items) != 0 {
			t.Errorf("%% is a wildcard: %+v", got)
		}
		joined := must[Page[model.Group]](t)(s.ListGroups(ctx, "bob", GroupQuery{JoinedOnly: true}))
		if len(joined.Items) != 1 || joined.Items[0].GUID != "zbob" {
			t.Errorf("joined %+v", joined)
		}
		tagged := must[Page[model.Group]](t)(s.ListGroups(ctx, "bob", GroupQuery{Tags: []string{"ta", "tc"}, WithTags: true}))
		if len(tagged.Items) != 2 || tagged.Items[0].Tags[0] != "ta" || tagged.Items[1].GUID != "cgrp" {
			t.Errorf("tagged %+v", tagged)
		}
		var guids []string
		cur := ""
		for i := 0; i < 5; i++ {
			p := must[Page[model.Group]](t)(s.ListGroups(ctx, "alice", GroupQuery{Limit: 4, Cursor: cur}))
			for _, g := range p.Items {
				guids = append(guids, g.GUID)
			}
			if cur = p.Next; cur == "" {
				break
			}
		}
		if len(guids) != 6 || guids[0] != "agrp" || guids[5] != "zbob" {
			t.Errorf("paged %v", guids)
		}
		first := must[Page[model.Group]](t)(s.ListGroups(ctx, "alice", GroupQuery{Limit: 1}))
		for _, bad := range []string{"x", first.Next[:len(first.Next)-2] + "AA", "e30." + first.Next[3:]} {
			_, err := s.ListGroups(ctx, "alice", GroupQuery{Cursor: bad})
			wantCode(t, err, model.ErrBadCursor)
		}
		users1 := must[Page[model.User]](t)(s.ListUsers(ctx, UserQuery{Limit: 1}))
		_, err = s.ListGroups(ctx, "alice", GroupQuery{Cursor: users1.Next})
		wantCode(t, err, model.ErrBadCursor)
		_, err = s.ListGroups(ctx, "alice", GroupQuery{Limit: 101})
		wantCode(t, err, model.ErrValidation)
		if p := must[Page[model.Group]](t)(s.ListGroups(ctx, "alice", GroupQuery{Limit: 100})); len(p.Items) != 6 {
			t.Errorf("limit 100: %d", len(p.Items))
		}
	}},
	behaviour{"members: join public, password, private; leave; owner stays", func(t *testing.T, s Store) {
		users(t, s, "owner", "bob", "carol")
		group(t, s, "owner", "pub", model.GroupPublic)
		group(t, s, "owner", "pw", model.GroupPassword)
		group(t, s, "owner", "priv", model.GroupPrivate)
		g := must[model.Group](t)(s.JoinGroup(ctx, "bob", "pub", nil))
		if !g.HasJoined || g.Scope != model.ScopeParticipant || g.MembersCount != 2 {
			t.Errorf("joined %+v", g)
		}
		_, err := s.JoinGroup(ctx, "bob", "pub", nil)
		wantCode(t, err, model.ErrAlreadyJoined)
		_, err = s.JoinGroup(ctx, "bob", "nope", nil)
		wantCode(t, err, model.ErrGUIDNotFound)
		_, err = s.JoinGroup(ctx, "nobody", "pub", nil)
		wantCode(t, err, model.ErrUIDNotFound)
		_, err = s.JoinGroup(ctx, "bob", "priv", nil)
		wantCode(t, err, model.ErrPrivateGroup)
		_, err = s.JoinGroup(ctx, "bob", "pw", func(h string) bool { return h == "hash:wrong" })
		wantCode(t, err, model.ErrWrongGroupPassword)
		_, err = s.JoinGroup(ctx, "bob", "pw", nil)
		wantCode(t, err, model.ErrWrongGroupPassword)
		must[model.Group](t)(s.JoinGroup(ctx, "bob", "pw", func(h string) bool { return h == "hash:secret" }))
		wantCode(t, s.LeaveGroup(ctx, "owner", "pub"), model.ErrOwnerCannotLeave)
		wantCode(t, s.LeaveGroup(ctx, "carol", "pub"), model.ErrNotAMember)
		wantCode(t, s.LeaveGroup(ctx, "bob", "pub"), "")
		if isMember(t, s, "bob", "pub") {
			t.Error("bob still a member")
		}
		if got := actions(t, s, "owner", "pub"); len(got) != 2 || got[0] != "joined:bob>bob" || got[1] != "left:bob>bob" {
			t.Errorf("actions %v", got)
		}
		_, err = s.ListMessages(ctx, "bob", MessageQuery{GUID: "pub"})
		wantCode(t, err, model.ErrNotAMember)
		_, err = s.SendMessage(ctx, text("bob", "pub", model.ReceiverGroup, "still here?"))
		wantCode(t, err, model.ErrNotAMember)
		var left model.Event
		for _, e := range allEvents(t, s) {
			if e.Type == model.EventMemberLeft {
				left = e
			}
		}
		if left.TargetUID != "bob" || left.ConversationID != "group_pub" {
			t.Errorf("left event %+v", left)
		}
		if evs := must[[]model.Event](t)(s.EventsSince(ctx, "bob", left.Pos-1, 0)); len(evs) != 1 || evs[0].Pos != left.Pos {
			t.Errorf("bob replays after leaving %+v", evs)
		}
		wantCode(t, s.TransferOwnership(ctx, "bob", "pw", "bob"), model.ErrPermissionDenied)
		wantCode(t, s.TransferOwnership(ctx, "owner", "pw", "carol"), model.ErrNotAMember)
		wantCode(t, s.TransferOwnership(ctx, "owner", "pw", "bob"), "")
		g = must[model.Group](t)(s.GetGroup(ctx, "bob", "pw"))
		if g.Owner != "bob" || g.Scope != model.ScopeAdmin {
			t.Errorf("after transfer %+v", g)
		}
		wantCode(t, s.LeaveGroup(ctx, "owner", "pw"), "")
		wantCode(t, s.LeaveGroup(ctx, "bob", "pw"), model.ErrOwnerCannotLeave)
		if got := actions(t, s, "bob", "pw"); got[len(got)-2] != "ownershipTransferred:owner>bob" {
			t.Errorf("actions %v", got)
		}
	}},
	behaviour{"members: add, kick, ban, unban, scope and who may", func(t *testing.T, s Store) {
		users(t, s, "owner", "admin", "mod", "pat", "quinn", "rex")
		group(t, s, "owner", "priv", model.GroupPrivate, "pat")
		wantCode(t, s.ChangeScope(ctx, "owner", "priv", "pat", "boss"), model.ErrValidation)
		res, err := s.AddMembers(ctx, "pat", "priv", []model.Member{{UID: "quinn"}})
		wantCode(t, err, model.ErrPermissionDenied)
		res = must[map[string]error](t)(s.AddMembers(ctx, "owner", "priv", []model.Member{{UID: "admin", Scope: model.ScopeAdmin}, {UID: "mod", Scope: model.ScopeModerator}, {UID: "pat"}, {UID: "ghost"}, {UID: "quinn", Scope: "boss"}}))
		if res["admin"] != nil || res["mod"] != nil || model.CodeOf(res["pat"]) != model.ErrAlreadyJoined || model.CodeOf(res["ghost"]) != model.ErrUIDNotFound || model.CodeOf(res["quinn"]) != model.ErrValidation {
			t.Errorf("add results %v", res)
		}
		_, err = s.AddMembers(ctx, "owner", "nope", nil)
		wantCode(t, err, model.ErrGUIDNotFound)
		// Who may kick whom.
		wantCode(t, s.KickMember(ctx, "pat", "priv", "mod"), model.ErrPermissionDenied)
		wantCode(t, s.KickMember(ctx, "quinn", "priv", "pat"), model.ErrNotAMember)
		wantCode(t, s.KickMember(ctx, "mod", "priv", "admin"), model.ErrPermissionDenied)
		wantCode(t, s.BanMember(ctx, "mod", "priv", "admin"), model.ErrPermissionDenied)
		wantCode(t, s.KickMember(ctx, "admin", "priv", "owner"), model.ErrPermissionDenied)
		wantCode(t, s.BanMember(ctx, "admin", "priv", "owner"), model.ErrPermissionDenied)
		wantCode(t, s.KickMember(ctx, "admin", "priv", "admin"), model.ErrPermissionDenied)
		wantCode(t, s.KickMember(ctx, "admin", "priv", "quinn"), model.ErrNotAMember)
		wantCode(t, s.KickMember(ctx, "mod", "priv", "pat"), "")
		if isMember(t, s, "pat", "priv") {
			t.Error("kicked pat still a member")
		}
		// Kicked may be added again; banned may not, nor join.
		res = must[map[string]error](t)(s.AddMembers(ctx, "admin", "priv", []model.Member{{UID: "pat"}}))
		if res["pat"] != nil {
			t.Errorf("re-add %v", res)
		}
		wantCode(t, s.BanMember(ctx, "mod", "priv", "pat"), "")
		wantCode(t, s.BanMember(ctx, "mod", "priv", "pat"), "")
		wantCode(t, s.BanMember(ctx, "admin", "priv", "ghost"), model.ErrUIDNotFound)
		res = must[map[string]error](t)(s.AddMembers(ctx, "owner", "priv", []model.Member{{UID: "pat"}}))
		if model.CodeOf(res["pat"]) != model.ErrBanned {
			t.Errorf("add banned %v", res)
		}
		group(t, s, "owner", "pub", model.GroupPublic, "mod")
		wantCode(t, s.ChangeScope(ctx, "owner", "pub", "mod", model.ScopeModerator), "")
		wantCode(t, s.BanMember(ctx, "mod", "pub", "rex"), "") // not a member yet: banned ahead
		_, err = s.JoinGroup(ctx, "rex", "pub", nil)
		wantCode(t, err, model.ErrBanned)
		banned := must[Page[model.Member]](t)(s.ListBanned(ctx, "mod", "pub", MemberQuery{}))
		if len(banned.Items) != 1 || banned.Items[0].UID != "rex" {
			t.Errorf("banned %+v", banned)
		}
		_, err = s.ListBanned(ctx, "owner", "nope", MemberQuery{})
		wantCode(t, err, model.ErrGUIDNotFound)
		wantCode(t, s.UnbanMember(ctx, "rex", "pub", "rex"), model.ErrNotAMember)
		wantCode(t, s.UnbanMember(ctx, "mod", "pub", "rex"), "")
		must[model.Group](t)(s.JoinGroup(ctx, "rex", "pub", nil))
		// Scopes.
		wantCode(t, s.ChangeScope(ctx, "mod", "priv", "admin", model.ScopeParticipant), model.ErrPermissionDenied)
		wantCode(t, s.ChangeScope(ctx, "admin", "priv", "owner", model.ScopeParticipant), model.ErrPermissionDenied)
		wantCode(t, s.ChangeScope(ctx, "admin", "priv", "quinn", model.ScopeAdmin), model.ErrNotAMember)
		wantCode(t, s.ChangeScope(ctx, "admin", "priv", "mod", model.ScopeAdmin), "")
		wantCode(t, s.KickMember(ctx, "mod", "priv", "admin"), "") // an admin now
		members := must[Page[model.Member]](t)(s.ListMembers(ctx, "owner", "priv", MemberQuery{}))
		if len(members.Items) != 2 || members.Items[0].UID != "mod" || members.Items[1].UID != "owner" {
			t.Errorf("members %+v", members)
		}
		admins := must[Page[model.Member]](t)(s.ListMembers(ctx, "owner", "priv", MemberQuery{Scopes: []model.Scope{model.ScopeAdmin}, Limit: 1}))
		if len(admins.Items) != 1 || admins.Next == "" {
			t.Errorf("admins %+v", admins)
		}
		_, err = s.ListMembers(ctx, "pat", "priv", MemberQuery{})
		wantCode(t, err, model.ErrGUIDNotFound)
		_, err = s.ListMembers(ctx, "pat", "pub", MemberQuery{})
		wantCode(t, err, model.ErrNotAMember)
		_, err = s.ListBanned(ctx, "rex", "pub", MemberQuery{})
		wantCode(t, err, model.ErrPermissionDenied)
		if got := actions(t, s, "owner", "priv"); len(got) != 8 || got[0] != "added:owner>pat" || got[3] != "kicked:mod>pat" || got[5] != "banned:mod>pat" || got[6] != "scopeChanged:admin>mod" || got[7] != "kicked:mod>admin" {
			t.Errorf("actions %v", got)
		}
		kickedAndBannedAreTold(t, s)
		if g := must[model.Group](t)(s.GetGroup(ctx, "owner", "priv")); g.MembersCount != 2 {
			t.Errorf("members count %d", g.MembersCount)
		}
	}},
)

// kickedAndBannedAreTold: pat, kicked by mod from priv and then banned, is told of both even
// though no longer a member.
func kickedAndBannedAreTold(t *testing.T, s Store) {
	t.Helper()
	var kicked, bannedEv []model.Event
	for _, e := range must[[]model.Event](t)(s.EventsSince(ctx, "pat", 0, 0)) {
		switch e.Type {
		case model.EventMemberKicked:
			kicked = append(kicked, e)
		case model.EventMemberBanned:
			bannedEv = append(bannedEv, e)
		}
	}
	if len(kicked) != 1 || kicked[0].TargetUID != "pat" || len(bannedEv) != 1 {
		t.Errorf("pat's events: kicked %+v banned %+v", kicked, bannedEv)
	}
	var d memberEvent
	_ = json.Unmarshal(kicked[0].Data, &d)
	if d.Action != "kicked" || d.By != "mod" || d.On != "pat" || d.GUID != "priv" {
		t.Errorf("kick data %s", kicked[0].Data)
	}
}
