package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentry-dev/agentry/chat/model"
)

const groupColumns = `g.guid, g.name, g.type, g.description, g.icon, g.tags, g.owner, g.password_hash, g.members_count, g.created_us, g.updated_us`

func scanGroup(sc scanner, extra ...any) (model.Group, error) {
	var g model.Group
	var typ, tags string
	var created, updated int64
	if err := sc.Scan(append([]any{&g.GUID, &g.Name, &typ, &g.Description, &g.Icon, &tags, &g.Owner, &g.PasswordHash, &g.MembersCount, &created, &updated}, extra...)...); err != nil {
		return g, err
	}
	g.Type = model.GroupType(typ)
	_ = json.Unmarshal([]byte(tags), &g.Tags)
	g.CreatedAt, g.UpdatedAt = fromUS(created), fromUS(updated)
	return g, nil
}

func groupConversation(guid string) string {
	return model.ConversationID(model.ReceiverGroup, "", guid)
}

func checkGroupType(typ model.GroupType, passwordHash string) error {
	switch typ {
	case model.GroupPublic, model.GroupPrivate:
	case model.GroupPassword:
		if passwordHash == "" {
			return model.Errorf(model.ErrValidation, "a password group needs a password")
		}
	default:
		return model.Errorf(model.ErrValidation, "type must be public, private or password")
	}
	return nil
}

func checkScope(scope model.Scope) error {
	switch scope {
	case model.ScopeAdmin, model.ScopeModerator, model.ScopeParticipant:
		return nil
	}
	return model.Errorf(model.ErrValidation, "scope must be admin, moderator or participant")
}

// lockGroup reads a group and, on PostgreSQL, locks its row until commit: every membership
// change takes this lock first, so rules over several rows (ban vs. join, the member count)
// see each other's effects in order.
func lockGroup(t *txn, guid string) (model.Group, error) {
	g, err := scanGroup(t.row(`SELECT `+groupColumns+` FROM chat_groups g WHERE g.guid = $1`+t.s.d.forUpdate, guid))
	if errors.Is(err, sql.ErrNoRows) {
		return g, model.Errorf(model.ErrGUIDNotFound, "no group %q", guid)
	}
	return g, err
}

// viewGroup reads a group as viewer sees it. Private groups are invisible to non-members
// (ErrGUIDNotFound), so their names and existence do not leak.
func viewGroup(t *txn, viewer, guid string) (model.Group, error) {
	var scope sql.NullString
	g, err := scanGroup(t.row(`SELECT `+groupColumns+`, m.scope FROM chat_groups g LEFT JOIN chat_members m ON m.guid = g.guid AND m.uid = $2 WHERE g.guid = $1`, guid, viewer), &scope)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && g.Type == model.GroupPrivate && !scope.Valid) {
		return model.Group{}, model.Errorf(model.ErrGUIDNotFound, "no group %q", guid)
	}
	g.HasJoined, g.Scope = scope.Valid, model.Scope(scope.String)
	return g, err
}

func setTags(t *txn, guid string, tags []string) error {
	if _, err := t.exec(`DELETE FROM chat_group_tags WHERE guid = $1`, guid); err != nil {
		return err
	}
	for _, tag := range tags {
		if _, err := t.exec(`INSERT INTO chat_group_tags (guid, tag) VALUES ($1, $2) ON CONFLICT DO NOTHING`, guid, tag); err != nil {
			return err
		}
	}
	return nil
}

func tagsJSON(tags []string) string {
	if tags == nil {
		tags = []string{}
	}
	b, _ := json.Marshal(tags)
	return string(b)
}

// CreateGroup implements Groups. The actor becomes owner and admin; members are added with
// their scopes (participant when unset). Each member gets an action message and an event.
func (s *sqlStore) CreateGroup(ctx context.Context, actor string, g model.Group, members []model.Member) (model.Group, error) {
	if err := checkID("guid", g.GUID); err != nil {
		return model.Group{}, err
	}
	if strings.TrimSpace(g.Name) == "" {
		return model.Group{}, model.Errorf(model.ErrValidation, "name is required")
	}
	if err := checkGroupType(g.Type, g.PasswordHash); err != nil {
		return model.Group{}, err
	}
	var out model.Group
	err := s.write(ctx, "create group", func(t *txn) error {
		if _, err := getUser(t, actor); err != nil {
			return err
		}
		conv := groupConversation(g.GUID)
		err := t.execOne(model.Errorf(model.ErrGUIDExists, "group %q already exists", g.GUID),
			`INSERT INTO chat_groups (guid, name, type, description, icon, tags, owner, password_hash, members_count, created_us, updated_us)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, $9, $9) ON CONFLICT (guid) DO NOTHING`,
			g.GUID, g.Name, string(g.Type), g.Description, g.Icon, tagsJSON(g.Tags), actor, g.PasswordHash, us(t.now))
		if err != nil {
			return err
		}
		if err := setTags(t, g.GUID, g.Tags); err != nil {
			return err
		}
		// A deleted group's conversation row stays (its seq must not restart for old readers).
		if _, err := t.exec(`INSERT INTO chat_conversations (id, type, party_a, party_b, updated_us) VALUES ($1, 'group', $2, '', $3) ON CONFLICT (id) DO NOTHING`, conv, g.GUID, us(t.now)); err != nil {
			return err
		}
		if err := insertMember(t, g.GUID, actor, model.ScopeAdmin); err != nil {
			return err
		}
		created, err := lockGroup(t, g.GUID)
		if err != nil {
			return err
		}
		if err := t.emit(conv, model.EventGroupCreated, "", created); err != nil {
			return err
		}
		for _, m := range members {
			if m.UID == actor {
				continue
			}
			m.Scope = cmp.Or(m.Scope, model.ScopeParticipant)
			if err := checkScope(m.Scope); err != nil {
				return err
			}
			if _, err := getUser(t, m.UID); err != nil {
				return err
			}
			if err := addMember(t, g.GUID, actor, m.UID, m.Scope, "added", model.EventMemberAdded); err != nil {
				return err
			}
		}
		out, err = viewGroup(t, actor, g.GUID)
		return err
	})
	return out, err
}

// GetGroup implements Groups.
func (s *sqlStore) GetGroup(ctx context.Context, viewer, guid string) (model.Group, error) {
	var g model.Group
	err := s.read(ctx, "read group", func(t *txn) (err error) {
		g, err = viewGroup(t, viewer, guid)
		return err
	})
	return g, err
}

// UpdateGroup implements Groups: admins only.
func (s *sqlStore) UpdateGroup(ctx context.Context, actor, guid string, p GroupPatch) (model.Group, error) {
	var out model.Group
	err := s.write(ctx, "update group", func(t *txn) error {
		g, err := lockGroup(t, guid)
		if err != nil {
			return err
		}
		if err := requireScope(t, g, actor, model.ScopeAdmin); err != nil {
			return err
		}
		if p.Name != nil {
			if strings.TrimSpace(*p.Name) == "" {
				return model.Errorf(model.ErrValidation, "name is required")
			}
			g.Name = *p.Name
		}
		if p.Description != nil {
			g.Description = *p.Description
		}
		if p.Icon != nil {
			g.Icon = *p.Icon
		}
		if p.Tags != nil {
			g.Tags = *p.Tags
			if err := setTags(t, guid, g.Tags); err != nil {
				return err
			}
		}
		if p.Type != nil {
			g.Type = *p.Type
		}
		if p.PasswordHash != nil {
			g.PasswordHash = *p.PasswordHash
		}
		if g.Type != model.GroupPassword {
			g.PasswordHash = ""
		}
		if err := checkGroupType(g.Type, g.PasswordHash); err != nil {
			return err
		}
		if _, err := t.exec(`UPDATE chat_groups SET name = $2, description = $3, icon = $4, tags = $5, type = $6, password_hash = $7, updated_us = $8 WHERE guid = $1`,
			guid, g.Name, g.Description, g.Icon, tagsJSON(g.Tags), string(g.Type), g.PasswordHash, us(t.now)); err != nil {
			return err
		}
		g.UpdatedAt = t.now
		if err := t.emit(groupConversation(guid), model.EventGroupUpdated, "", g); err != nil {
			return err
		}
		out, err = viewGroup(t, actor, guid)
		return err
	})
	return out, err
}

// DeleteGroup implements Groups: admins only. The group, its members, bans and messages go;
// each former member gets a targeted group.deleted event, as they are members of nothing now.
func (s *sqlStore) DeleteGroup(ctx context.Context, actor, guid string) error {
	return s.write(ctx, "delete group", func(t *txn) error {
		g, err := lockGroup(t, guid)
		if err != nil {
			return err
		}
		if err := requireScope(t, g, actor, model.ScopeAdmin); err != nil {
			return err
		}
		uids, err := memberUIDs(t, guid)
		if err != nil {
			return err
		}
		conv := groupConversation(guid)
		for _, q := range []string{
			`DELETE FROM chat_reactions WHERE message_id IN (SELECT id FROM chat_messages WHERE conversation_id = $1)`,
			`DELETE FROM chat_flags WHERE message_id IN (SELECT id FROM chat_messages WHERE conversation_id = $1)`,
			`DELETE FROM chat_messages WHERE conversation_id = $1`,
			`DELETE FROM chat_receipts WHERE conversation_id = $1`,
		} {
			if _, err := t.exec(q, conv); err != nil {
				return err
			}
		}
		for _, q := range []string{
			`DELETE FROM chat_members WHERE guid = $1`,
			`DELETE FROM chat_bans WHERE guid = $1`,
			`DELETE FROM chat_group_tags WHERE guid = $1`,
			`DELETE FROM chat_groups WHERE guid = $1`,
		} {
			if _, err := t.exec(q, guid); err != nil {
				return err
			}
		}
		for _, uid := range uids {
			if err := t.emit("", model.EventGroupDeleted, uid, map[string]string{"guid": guid, "by": actor}); err != nil {
				return err
			}
		}
		return nil
	})
}

// ListGroups implements Groups, in guid order: public and password groups, and the private
// groups viewer is a member of.
func (s *sqlStore) ListGroups(ctx context.Context, viewer string, q GroupQuery) (Page[model.Group], error) {
	limit, err := limitOf(q.Limit)
	if err != nil {
		return Page[model.Group]{}, err
	}
	c, err := s.decodeCursor("groups", q.Cursor)
	if err != nil {
		return Page[model.Group]{}, err
	}
	args := []any{viewer, c.Key}
	// A group the viewer is banned from is not listed: they cannot join it, and a list that
	// dropped it on the ban event must not show it again on reload.
	where := []string{"g.guid > $2", "(g.type <> 'private' OR m.uid IS NOT NULL)",
		"NOT EXISTS (SELECT 1 FROM chat_bans b WHERE b.guid = g.guid AND b.uid = $1)"}
	if q.JoinedOnly {
		where = append(where, "m.uid IS NOT NULL")
	}
	if q.SearchKeyword != "" {
		args = append(args, likePattern(q.SearchKeyword))
		where = append(where, fmt.Sprintf(`LOWER(g.name) LIKE $%d ESCAPE '\'`, len(args)))
	}
	if len(q.Tags) > 0 {
		marks := make([]string, len(q.Tags))
		for i, tag := range q.Tags {
			args = append(args, tag)
			marks[i] = fmt.Sprintf("$%d", len(args))
		}
		where = append(where, `EXISTS (SELECT 1 FROM chat_group_tags gt WHERE gt.guid = g.guid AND gt.tag IN (`+strings.Join(marks, ", ")+`))`)
	}
	args = append(args, limit+1)
	var items []model.Group
	err = s.read(ctx, "list groups", func(t *txn) (err error) {
		items, err = queryAll(t, func(sc scanner) (model.Group, error) {
			var scope sql.NullString
			g, err := scanGroup(sc, &scope)
			g.HasJoined, g.Scope = scope.Valid, model.Scope(scope.String)
			if !q.WithTags {
				g.Tags = nil
			}
			return g, err
		}, fmt.Sprintf(`SELECT `+groupColumns+`, m.scope FROM chat_groups g LEFT JOIN chat_members m ON m.guid = g.guid AND m.uid = $1
WHERE %s ORDER BY g.guid LIMIT $%d`, strings.Join(where, " AND "), len(args)), args...)
		return err
	})
	if err != nil {
		return Page[model.Group]{}, err
	}
	return pageOf(s, items, limit, func(last model.Group) cursor { return cursor{Of: "groups", Key: last.GUID} }), nil
}
