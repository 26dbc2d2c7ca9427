package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

// validID is the shape of uids and guids: they appear in conversation ids and URLs.
var validID = regexp.MustCompile(`^[A-Za-z0-9_.@-]{1,100}$`)

func checkID(field, id string) error {
	if !validID.MatchString(id) {
		return model.Errorf(model.ErrValidation, "%s must be 1-100 letters, digits or _ . @ -", field)
	}
	return nil
}

func checkJSON(field string, raw json.RawMessage) error {
	if len(raw) > 0 && !json.Valid(raw) {
		return model.Errorf(model.ErrValidation, "%s must be JSON", field)
	}
	return nil
}

const userColumns = `uid, name, avatar, role, kind, metadata, created_us`

// readUserColumns are userColumns and the user's presence.
const readUserColumns = userColumns + `, online, last_active_us, deactivated_us, provider_groups, provider_issuer, provider_subject`

func scanUser(sc scanner) (model.User, error) {
	var u model.User
	var kind, meta, groups string
	var created, online, active, deactivated int64
	if err := sc.Scan(&u.UID, &u.Name, &u.Avatar, &u.Role, &kind, &meta, &created, &online, &active, &deactivated, &groups, &u.ProviderIssuer, &u.ProviderSubject); err != nil {
		return u, err
	}
	if err := json.Unmarshal([]byte(groups), &u.ProviderGroups); err != nil {
		return u, err
	}
	u.Deactivated = deactivated != 0
	u.LastActiveAt = optTime(active)
	u.Status = "offline"
	if online == 1 && time.Since(fromUS(active)) < model.PresenceTTL {
		u.Status = "online"
	}
	u.Kind = model.UserKind(kind)
	if meta != "" {
		u.Metadata = json.RawMessage(meta)
	}
	u.CreatedAt = fromUS(created)
	return u, nil
}

func validateUser(u model.User) (model.User, error) {
	if err := checkID("uid", u.UID); err != nil {
		return u, err
	}
	if strings.TrimSpace(u.Name) == "" {
		return u, model.Errorf(model.ErrValidation, "name is required")
	}
	switch u.Kind {
	case "":
		u.Kind = model.UserKindUser
	case model.UserKindUser, model.UserKindAgent:
	default:
		return u, model.Errorf(model.ErrValidation, "kind must be user or agent")
	}
	return u, checkJSON("metadata", u.Metadata)
}

// CreateUser implements Users.
func (s *sqlStore) CreateUser(ctx context.Context, u model.User) (model.User, error) {
	u, err := validateUser(u)
	if err != nil {
		return model.User{}, err
	}
	err = s.write(ctx, "create user", func(t *txn) error {
		u.CreatedAt = t.now
		err := t.execOne(model.Errorf(model.ErrUIDExists, "user %q already exists", u.UID),
			`INSERT INTO chat_users (`+userColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (uid) DO NOTHING`,
			u.UID, u.Name, u.Avatar, u.Role, string(u.Kind), string(u.Metadata), us(u.CreatedAt))
		if err != nil || (len(u.ProviderGroups) == 0 && u.ProviderIssuer == "" && u.ProviderSubject == "") {
			return err
		}
		_, err = t.exec(`UPDATE chat_users SET provider_groups = $2, provider_issuer = $3, provider_subject = $4 WHERE uid = $1`,
			u.UID, groupsJSON(u.ProviderGroups), u.ProviderIssuer, u.ProviderSubject)
		return err
	})
	if err != nil {
		return model.User{}, err
	}
	return u, nil
}

// getUser reads a user; ErrUIDNotFound when there is none.
func getUser(t *txn, uid string) (model.User, error) {
	u, err := scanUser(t.row(`SELECT `+readUserColumns+` FROM chat_users WHERE uid = $1`, uid))
	if errors.Is(err, sql.ErrNoRows) {
		return u, model.Errorf(model.ErrUIDNotFound, "no user %q", uid)
	}
	return u, err
}

// GetUser implements Users.
func (s *sqlStore) GetUser(ctx context.Context, uid string) (model.User, error) {
	var u model.User
	err := s.read(ctx, "read user", func(t *txn) (err error) {
		u, err = getUser(t, uid)
		return err
	})
	return u, err
}

// UpdateUser implements Users: name, avatar, role and metadata change; uid, kind and
// createdAt stay.
func (s *sqlStore) UpdateUser(ctx context.Context, u model.User) (model.User, error) {
	if strings.TrimSpace(u.Name) == "" {
		return model.User{}, model.Errorf(model.ErrValidation, "name is required")
	}
	if err := checkJSON("metadata", u.Metadata); err != nil {
		return model.User{}, err
	}
	var out model.User
	err := s.write(ctx, "update user", func(t *txn) error {
		err := t.execOne(model.Errorf(model.ErrUIDNotFound, "no user %q", u.UID),
			`UPDATE chat_users SET name = $2, avatar = $3, role = $4, metadata = $5, provider_groups = $6, provider_issuer = $7, provider_subject = $8 WHERE uid = $1`,
			u.UID, u.Name, u.Avatar, u.Role, string(u.Metadata), groupsJSON(u.ProviderGroups), u.ProviderIssuer, u.ProviderSubject)
		if err != nil {
			return err
		}
		out, err = getUser(t, u.UID)
		return err
	})
	return out, err
}

// ListUsers implements Users, in uid order.
func (s *sqlStore) ListUsers(ctx context.Context, q UserQuery) (Page[model.User], error) {
	limit, err := limitOf(q.Limit)
	if err != nil {
		return Page[model.User]{}, err
	}
	c, err := s.decodeCursor("users", q.Cursor)
	if err != nil {
		return Page[model.User]{}, err
	}
	where, args := []string{"uid > $1"}, []any{c.Key}
	if q.SearchKeyword != "" {
		args = append(args, likePattern(q.SearchKeyword))
		where = append(where, fmt.Sprintf(`(LOWER(name) LIKE $%d ESCAPE '\' OR LOWER(uid) LIKE $%d ESCAPE '\')`, len(args), len(args)))
	}
	if q.Kind != "" {
		args = append(args, string(q.Kind))
		where = append(where, fmt.Sprintf("kind = $%d", len(args)))
	}
	if q.HideDisabledAgents {
		where = append(where, `(kind <> 'agent' OR uid IN (SELECT agent_id FROM chat_agents WHERE enabled = 1))`)
	}
	args = append(args, limit+1)
	var items []model.User
	err = s.read(ctx, "list users", func(t *txn) (err error) {
		items, err = queryAll(t, scanUser, fmt.Sprintf(`SELECT `+readUserColumns+` FROM chat_users WHERE %s ORDER BY uid LIMIT $%d`, strings.Join(where, " AND "), len(args)), args...)
		return err
	})
	if err != nil {
		return Page[model.User]{}, err
	}
	return pageOf(s, items, limit, func(last model.User) cursor { return cursor{Of: "users", Key: last.UID} }), nil
}

// SetPresence implements Users: the users have a socket open (online) or no longer on this
// replica (offline); either way they were active now. Unknown uids are ignored.
func (s *sqlStore) SetPresence(ctx context.Context, uids []string, online bool) error {
	if len(uids) == 0 {
		return nil
	}
	on := 0
	if online {
		on = 1
	}
	return s.write(ctx, "set presence", func(t *txn) error {
		for start := 0; start < len(uids); start += 500 {
			batch := uids[start:min(start+500, len(uids))]
			args := []any{on, us(t.now)}
			marks := make([]string, len(batch))
			for i, uid := range batch {
				args = append(args, uid)
				marks[i] = fmt.Sprintf("$%d", len(args))
			}
			if _, err := t.exec(`UPDATE chat_users SET online = $1, last_active_us = $2 WHERE uid IN (`+strings.Join(marks, ", ")+`)`, args...); err != nil {
				return err
			}
		}
		return nil
	})
}

// SetDeactivated implements Users: a deactivated user's tokens are revoked at once (its
// sockets close with 4001, through the auth.revoked event) and no new one is minted or
// accepted until the user is reactivated.
func (s *sqlStore) SetDeactivated(ctx context.Context, uid string, deactivated bool) (model.User, error) {
	var u model.User
	err := s.write(ctx, "deactivate user", func(t *txn) (err error) {
		if u, err = getUser(t, uid); err != nil {
			return err
		}
		if u.Kind != model.UserKindUser {
			return model.Errorf(model.ErrValidation, "%q is an agent, not a person: disable the agent instead", uid)
		}
		if u.Deactivated == deactivated {
			return nil
		}
		at := int64(0)
		if deactivated {
			at = us(t.now)
		}
		if _, err := t.exec(`UPDATE chat_users SET deactivated_us = $2 WHERE uid = $1`, uid, at); err != nil {
			return err
		}
		u.Deactivated = deactivated
		if !deactivated {
			return nil
		}
		if _, err := t.exec(`UPDATE chat_tokens SET revoked_us = $2 WHERE uid = $1 AND revoked_us = 0`, uid, us(t.now)); err != nil {
			return err
		}
		return t.emit("", model.EventTokensRevoked, uid, map[string]string{"tokenId": "*"})
	})
	return u, err
}

func groupsJSON(groups []string) string {
	if groups == nil {
		groups = []string{}
	}
	b, _ := json.Marshal(groups)
	return string(b)
}
