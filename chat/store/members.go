package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentry-dev/agentry/chat/model"
)

// memberEvent is the Data of member.* events and of their action messages.
type memberEvent struct {
	Action string      `json:"action"`
	By     string      `json:"by"`
	On     string      `json:"on"`
	GUID   string      `json:"guid"`
	Scope  model.Scope `json:"scope,omitempty"`
	Old    model.Scope `json:"oldScope,omitempty"`
	// MembersCount is the group's member count after the change, so clients update their
	// lists from the event alone (also for a group they can no longer read).
	MembersCount int `json:"membersCount"`
}

// scopeOf is uid's scope in the group, "" when not a member. share locks the member row until
// commit (PostgreSQL), so a concurrent kick waits for a writer that relied on the membership.
func scopeOf(t *txn, guid, uid string, share bool) (model.Scope, error) {
	lock := ""
	if share {
		lock = t.s.d.forShare
	}
	var scope string
	err := t.row(`SELECT scope FROM chat_members WHERE guid = $1 AND uid = $2`+lock, guid, uid).Scan(&scope)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return model.Scope(scope), err
}

// requireScope answers ErrNotAMember for non-members and ErrPermissionDenied for members
// whose scope is not one of scopes; it returns the member's scope.
func requireScope(t *txn, g model.Group, uid string, scopes ...model.Scope) error {
	_, err := requireScopeOf(t, g, uid, scopes...)
	return err
}

func requireScopeOf(t *txn, g model.Group, uid string, scopes ...model.Scope) (model.Scope, error) {
	scope, err := scopeOf(t, g.GUID, uid, false)
	switch {
	case err != nil:
		return "", err
	case scope == "":
		return "", model.Errorf(model.ErrNotAMember, "%q is not a member of group %q", uid, g.GUID)
	case !slices.Contains(scopes, scope):
		return "", model.Errorf(model.ErrPermissionDenied, "a %s of group %q may not do this", scope, g.GUID)
	}
	return scope, nil
}

func memberUIDs(t *txn, guid string) ([]string, error) {
	return queryAll(t, func(sc scanner) (uid string, err error) {
		return uid, sc.Scan(&uid)
	}, `SELECT uid FROM chat_members WHERE guid = $1 ORDER BY uid`, guid)
}

func isBanned(t *txn, guid, uid string) (bool, model.Scope, error) {
	var scope string
	err := t.row(`SELECT scope FROM chat_bans WHERE guid = $1 AND uid = $2`, guid, uid).Scan(&scope)
	if errors.Is(err, sql.ErrNoRows) {
		return false, "", nil
	}
	return err == nil, model.Scope(scope), err
}

func insertMember(t *txn, guid, uid string, scope model.Scope) error {
	if _, err := t.exec(`INSERT INTO chat_members (guid, uid, scope, joined_us) VALUES ($1, $2, $3, $4)`, guid, uid, string(scope), us(t.now)); err != nil {
		return err
	}
	_, err := t.exec(`UPDATE chat_groups SET members_count = members_count + 1 WHERE guid = $1`, guid)
	return err
}

func deleteMember(t *txn, guid, uid string) error {
	res, err := t.exec(`DELETE FROM chat_members WHERE guid = $1 AND uid = $2`, guid, uid)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	_, err = t.exec(`UPDATE chat_groups SET members_count = members_count - 1 WHERE guid = $1`, guid)
	return err
}

// record stores a membership change's action message and its event. target makes the event
// reach the user it is about even when they are no longer a member (kicked, banned, left).
func record(t *txn, eventType, target string, e memberEvent) error {
	if err := t.row(`SELECT members_count FROM chat_groups WHERE guid = $1`, e.GUID).Scan(&e.MembersCount); err != nil {
		return err
	}
	text := fmt.Sprintf("%s %s %s", e.By, e.Action, e.On)
	if e.By == e.On {
		text = fmt.Sprintf("%s %s", e.On, e.Action)
	}
	// Sockets follow membership from these events: a joiner is a member from its member event
	// on, a removed user until its member event. So the member event goes first for arrivals
	// and last for departures, and the user sees the action message live either way.
	arrival := eventType == model.EventMemberJoined || eventType == model.EventMemberAdded
	if arrival {
		if err := t.emit(groupConversation(e.GUID), eventType, target, e); err != nil {
			return err
		}
	}
	if _, err := actionMessage(t, e.GUID, e.By, text, e); err != nil {
		return err
	}
	if arrival {
		return nil
	}
	return t.emit(groupConversation(e.GUID), eventType, target, e)
}

// addMember adds uid with scope and records it as action ("joined", "added").
func addMember(t *txn, guid, actor, uid string, scope model.Scope, action, eventType string) error {
	if err := insertMember(t, guid, uid, scope); err != nil {
		return err
	}
	return record(t, eventType, uid, memberEvent{Action: action, By: actor, On: uid, GUID: guid, Scope: scope})
}

// PasswordHash implements Groups.
func (s *sqlStore) PasswordHash(ctx context.Context, guid string) (string, error) {
	var hash string
	err := s.read(ctx, "read group password", func(t *txn) error {
		err := t.row(`SELECT password_hash FROM chat_groups WHERE guid = $1`, guid).Scan(&hash)
		if errors.Is(err, sql.ErrNoRows) {
			return model.Errorf(model.ErrGUIDNotFound, "no group %q", guid)
		}
		return err
	})
	return hash, err
}

// JoinGroup implements Groups. The ban, membership and type checks run under the group row
// lock, so a concurrent ban either happens first (ErrBanned) or removes the member after.
func (s *sqlStore) JoinGroup(ctx context.Context, uid, guid string, checkPassword func(hash string) bool) (model.Group, error) {
	var out model.Group
	err := s.write(ctx, "join group", func(t *txn) error {
		if _, err := getUser(t, uid); err != nil {
			return err
		}
		g, err := lockGroup(t, guid)
		if err != nil {
			return err
		}
		if banned, _, err := isBanned(t, guid, uid); err != nil {
			return err
		} else if banned {
			return model.Errorf(model.ErrBanned, "%q is banned from group %q", uid, guid)
		}
		if scope, err := scopeOf(t, guid, uid, false); err != nil {
			return err
		} else if scope != "" {
			return model.Errorf(model.ErrAlreadyJoined, "%q has already joined group %q", uid, guid)
		}
		switch g.Type {
		case model.GroupPrivate:
			return model.Errorf(model.ErrPrivateGroup, "group %q is private: an admin must add you", guid)
		case model.GroupPassword:
			if checkPassword == nil || !checkPassword(g.PasswordHash) {
				return model.Errorf(model.ErrWrongGroupPassword, "wrong password for group %q", guid)
			}
		}
		if err := addMember(t, guid, uid, uid, model.ScopeParticipant, "joined", model.EventMemberJoined); err != nil {
			return err
		}
		out, err = viewGroup(t, uid, guid)
		return err
	})
	return out, err
}

// LeaveGroup implements Groups.
func (s *sqlStore) LeaveGroup(ctx context.Context, uid, guid string) error {
	return s.write(ctx, "leave group", func(t *txn) error {
		g, err := lockGroup(t, guid)
		if err != nil {
			return err
		}
		if err := requireScope(t, g, uid, model.ScopeAdmin, model.ScopeModerator, model.ScopeParticipant); err != nil {
			return err
		}
		if g.Owner == uid {
			return model.Errorf(model.ErrOwnerCannotLeave, "the owner of group %q must transfer ownership before leaving", guid)
		}
		if err := deleteMember(t, guid, uid); err != nil {
			return err
		}
		return record(t, model.EventMemberLeft, uid, memberEvent{Action: "left", By: uid, On: uid, GUID: guid})
	})
}

// AddMembers implements Groups: admins only. Each uid fails on its own (unknown, banned,
// already a member, bad scope); the others are added.
func (s *sqlStore) AddMembers(ctx context.Context, actor, guid string, members []model.Member) (map[string]error, error) {
	result := map[string]error{}
	err := s.write(ctx, "add members", func(t *txn) error {
		clear(result)
		g, err := lockGroup(t, guid)
		if err != nil {
			return err
		}
		if err := requireScope(t, g, actor, model.ScopeAdmin); err != nil {
			return err
		}
		for _, m := range members {
			m.Scope = cmp.Or(m.Scope, model.ScopeParticipant)
			if err := checkScope(m.Scope); err != nil {
				result[m.UID] = err
				continue
			}
			if _, err := getUser(t, m.UID); err != nil {
				var me *model.Error
				if !errors.As(err, &me) {
					return err
				}
				result[m.UID] = err
				continue
			}
			banned, _, err := isBanned(t, guid, m.UID)
			if err != nil {
				return err
			}
			if banned {
				result[m.UID] = model.Errorf(model.ErrBanned, "%q is banned from group %q", m.UID, guid)
				continue
			}
			if scope, err := scopeOf(t, guid, m.UID, false); err != nil {
				return err
			} else if scope != "" {
				result[m.UID] = model.Errorf(model.ErrAlreadyJoined, "%q has already joined group %q", m.UID, guid)
				continue
			}
			if err := addMember(t, guid, actor, m.UID, m.Scope, "added", model.EventMemberAdded); err != nil {
				return err
			}
			result[m.UID] = nil
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return result, nil
}

// ListMembers implements Groups: members only, in uid order.
func (s *sqlStore) ListMembers(ctx context.Context, viewer, guid string, q MemberQuery) (Page[model.Member], error) {
	return s.listMembers(ctx, viewer, guid, q, "chat_members", "joined_us", model.ScopeAdmin, model.ScopeModerator, model.ScopeParticipant)
}

// ListBanned implements Groups: admins and moderators only.
func (s *sqlStore) ListBanned(ctx context.Context, viewer, guid string, q MemberQuery) (Page[model.Member], error) {
	return s.listMembers(ctx, viewer, guid, q, "chat_bans", "banned_us", model.ScopeAdmin, model.ScopeModerator)
}

func (s *sqlStore) listMembers(ctx context.Context, viewer, guid string, q MemberQuery, table, at string, may ...model.Scope) (Page[model.Member], error) {
	limit, err := limitOf(q.Limit)
	if err != nil {
		return Page[model.Member]{}, err
	}
	c, err := s.decodeCursor(table+":"+guid, q.Cursor)
	if err != nil {
		return Page[model.Member]{}, err
	}
	args, where := []any{guid, c.Key}, []string{"guid = $1", "uid > $2"}
	if len(q.Scopes) > 0 {
		marks := make([]string, len(q.Scopes))
		for i, sc := range q.Scopes {
			args = append(args, string(sc))
			marks[i] = fmt.Sprintf("$%d", len(args))
		}
		where = append(where, "scope IN ("+strings.Join(marks, ", ")+")")
	}
	args = append(args, limit+1)
	var items []model.Member
	err = s.read(ctx, "list members", func(t *txn) error {
		g, err := viewGroup(t, viewer, guid)
		if err != nil {
			return err
		}
		if err := requireScope(t, g, viewer, may...); err != nil {
			return err
		}
		items, err = queryAll(t, func(sc scanner) (model.Member, error) {
			m := model.Member{GUID: guid}
			var joined int64
			err := sc.Scan(&m.UID, &m.Scope, &joined)
			m.JoinedAt = fromUS(joined)
			return m, err
		}, fmt.Sprintf(`SELECT uid, scope, %s FROM %s WHERE %s ORDER BY uid LIMIT $%d`, at, table, strings.Join(where, " AND "), len(args)), args...)
		return err
	})
	if err != nil {
		return Page[model.Member]{}, err
	}
	return pageOf(s, items, limit, func(last model.Member) cursor { return cursor{Of: table + ":" + guid, Key: last.UID} }), nil
}
