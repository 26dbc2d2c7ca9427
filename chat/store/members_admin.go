package store

import (
	"cmp"
	"context"
	"fmt"

	"github.com/agentry-dev/agentry/chat/model"
)

// What admins and moderators do to a group's members: kick, ban and unban them, change their
// scope, and hand the group over.

// mayActOn checks that actor (admin or moderator) may kick or ban uid: never the owner or
// oneself, and moderators never an admin.
func mayActOn(g model.Group, actor string, actorScope model.Scope, uid string, target model.Scope) error {
	switch {
	case uid == g.Owner:
		return model.Errorf(model.ErrPermissionDenied, "the owner of group %q cannot be kicked or banned", g.GUID)
	case uid == actor:
		return model.Errorf(model.ErrPermissionDenied, "you cannot kick or ban yourself; leave the group instead")
	case actorScope == model.ScopeModerator && target == model.ScopeAdmin:
		return model.Errorf(model.ErrPermissionDenied, "a moderator cannot act on an admin of group %q", g.GUID)
	}
	return nil
}

// moderatorAction locks the group and checks that actor, an admin or moderator, may kick or
// ban uid; it returns uid's scope ("" when uid is not a member).
func moderatorAction(t *txn, guid, actor, uid string) (model.Scope, error) {
	g, err := lockGroup(t, guid)
	if err != nil {
		return "", err
	}
	actorScope, err := requireScopeOf(t, g, actor, model.ScopeAdmin, model.ScopeModerator)
	if err != nil {
		return "", err
	}
	target, err := scopeOf(t, guid, uid, false)
	if err != nil {
		return "", err
	}
	return target, mayActOn(g, actor, actorScope, uid, target)
}

// KickMember implements Groups: the user leaves and may join again.
func (s *sqlStore) KickMember(ctx context.Context, actor, guid, uid string) error {
	return s.write(ctx, "kick member", func(t *txn) error {
		target, err := moderatorAction(t, guid, actor, uid)
		if err != nil {
			return err
		}
		if target == "" {
			return model.Errorf(model.ErrNotAMember, "%q is not a member of group %q", uid, guid)
		}
		if err := deleteMember(t, guid, uid); err != nil {
			return err
		}
		return record(t, model.EventMemberKicked, uid, memberEvent{Action: "kicked", By: actor, On: uid, GUID: guid, Scope: target})
	})
}

// BanMember implements Groups: the user leaves (when a member) and cannot join or be added
// until unbanned. Banning a user who is not a member is allowed; banning twice is a no-op.
func (s *sqlStore) BanMember(ctx context.Context, actor, guid, uid string) error {
	return s.write(ctx, "ban member", func(t *txn) error {
		target, err := moderatorAction(t, guid, actor, uid)
		if err != nil {
			return err
		}
		if _, err := getUser(t, uid); err != nil {
			return err
		}
		if banned, _, err := isBanned(t, guid, uid); err != nil || banned {
			return err
		}
		if err := deleteMember(t, guid, uid); err != nil {
			return err
		}
		target = cmp.Or(target, model.ScopeParticipant)
		if _, err := t.exec(`INSERT INTO chat_bans (guid, uid, scope, banned_by, banned_us) VALUES ($1, $2, $3, $4, $5)`, guid, uid, string(target), actor, us(t.now)); err != nil {
			return err
		}
		return record(t, model.EventMemberBanned, uid, memberEvent{Action: "banned", By: actor, On: uid, GUID: guid, Scope: target})
	})
}

// UnbanMember implements Groups; unbanning a user who is not banned is a no-op. The user is
// not made a member again: they may join (or be added).
func (s *sqlStore) UnbanMember(ctx context.Context, actor, guid, uid string) error {
	return s.write(ctx, "unban member", func(t *txn) error {
		g, err := lockGroup(t, guid)
		if err != nil {
			return err
		}
		actorScope, err := requireScopeOf(t, g, actor, model.ScopeAdmin, model.ScopeModerator)
		if err != nil {
			return err
		}
		banned, scope, err := isBanned(t, guid, uid)
		if err != nil || !banned {
			return err
		}
		if actorScope == model.ScopeModerator && scope == model.ScopeAdmin {
			return model.Errorf(model.ErrPermissionDenied, "a moderator cannot act on an admin of group %q", guid)
		}
		if _, err := t.exec(`DELETE FROM chat_bans WHERE guid = $1 AND uid = $2`, guid, uid); err != nil {
			return err
		}
		return record(t, model.EventMemberUnbanned, uid, memberEvent{Action: "unbanned", By: actor, On: uid, GUID: guid})
	})
}

// ChangeScope implements Groups: admins only; the owner stays admin.
func (s *sqlStore) ChangeScope(ctx context.Context, actor, guid, uid string, scope model.Scope) error {
	if err := checkScope(scope); err != nil {
		return err
	}
	return s.write(ctx, "change member scope", func(t *txn) error {
		g, err := lockGroup(t, guid)
		if err != nil {
			return err
		}
		if err := requireScope(t, g, actor, model.ScopeAdmin); err != nil {
			return err
		}
		old, err := scopeOf(t, guid, uid, false)
		if err != nil {
			return err
		}
		switch {
		case old == "":
			return model.Errorf(model.ErrNotAMember, "%q is not a member of group %q", uid, guid)
		case uid == g.Owner:
			return model.Errorf(model.ErrPermissionDenied, "the owner of group %q stays admin", guid)
		case old == scope:
			return nil
		}
		if _, err := t.exec(`UPDATE chat_members SET scope = $3 WHERE guid = $1 AND uid = $2`, guid, uid, string(scope)); err != nil {
			return err
		}
		return record(t, model.EventMemberScopeChanged, uid, memberEvent{Action: "scopeChanged", By: actor, On: uid, GUID: guid, Scope: scope, Old: old})
	})
}

// TransferOwnership implements Groups: the owner only; the new owner (a member) becomes admin
// and the old owner stays admin, now free to leave.
func (s *sqlStore) TransferOwnership(ctx context.Context, actor, guid, newOwner string) error {
	return s.write(ctx, "transfer group ownership", func(t *txn) error {
		g, err := lockGroup(t, guid)
		if err != nil {
			return err
		}
		if err := requireScope(t, g, actor, model.ScopeAdmin, model.ScopeModerator, model.ScopeParticipant); err != nil {
			return err
		}
		if g.Owner != actor {
			return model.Errorf(model.ErrPermissionDenied, "only the owner of group %q can transfer ownership", guid)
		}
		if scope, err := scopeOf(t, guid, newOwner, false); err != nil {
			return err
		} else if scope == "" {
			return model.Errorf(model.ErrNotAMember, "%q is not a member of group %q", newOwner, guid)
		}
		if newOwner == actor {
			return nil
		}
		if _, err := t.exec(`UPDATE chat_members SET scope = 'admin' WHERE guid = $1 AND uid = $2`, guid, newOwner); err != nil {
			return err
		}
		if _, err := t.exec(`UPDATE chat_groups SET owner = $2, updated_us = $3 WHERE guid = $1`, guid, newOwner, us(t.now)); err != nil {
			return err
		}
		if _, err := actionMessage(t, guid, actor, fmt.Sprintf("%s made %s the owner", actor, newOwner), memberEvent{Action: "ownershipTransferred", By: actor, On: newOwner, GUID: guid, Scope: model.ScopeAdmin}); err != nil {
			return err
		}
		return t.emit(groupConversation(guid), model.EventOwnershipChanged, "", map[string]string{"guid": guid, "owner": newOwner, "previousOwner": actor})
	})
}
