package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// stores opens each real store the suite runs on: SQLite in a temporary file, and a real
// PostgreSQL server (Debian's packages, started for the test).
func stores(t *testing.T) map[string]func(t *testing.T) store.Store {
	return storesWith(store.Options{})
}

// storesWith is stores with store options (e.g. a headers key).
func storesWith(o store.Options) map[string]func(t *testing.T) store.Store {
	open := func(t *testing.T, url string) store.Store {
		st, err := store.OpenWith(context.Background(), url, o)
		if err != nil {
			t.Fatalf("failed to open store: %v", err)
		}
		t.Cleanup(func() { _ = st.Close() })
		return st
	}
	return map[string]func(t *testing.T) store.Store{
		"sqlite":   func(t *testing.T) store.Store { return open(t, "file:"+filepath.Join(t.TempDir(), "chat.db")) },
		"postgres": func(t *testing.T) store.Store { return open(t, testutil.StartPostgres(t).URL) },
	}
}

// step is one request of a scenario: who sends it, what, and the answer expected. save keeps
// the answer's id under a name that later paths and bodies use as {name}.
type step struct {
	name, as, method, path string
	body                   any
	status                 int
	code                   string
	save                   string
}

const thumbsUp = "%F0%9F%91%8D"

// scenario covers every route's happy path and the permission and error codes of the issue.
var scenario = []step{
	{"healthz", "", "GET", "/healthz", nil, 200, "", ""},
	{"me", "alice", "GET", "/me", nil, 200, "", ""},
	{"get user", "alice", "GET", "/users/bob", nil, 200, "", ""},
	{"unknown user", "alice", "GET", "/users/nobody", nil, 404, "ERR_UID_NOT_FOUND", ""},
	{"list users", "alice", "GET", "/users?limit=2&searchKeyword=User", nil, 200, "", ""},
	{"update user", "key", "PUT", "/users/bob", map[string]any{"name": "Bobby", "metadata": map[string]any{"team": "x"}}, 200, "", ""},
	{"update unknown user", "key", "PUT", "/users/nobody", map[string]any{"name": "X"}, 404, "ERR_UID_NOT_FOUND", ""},

	{"create public group", "alice", "POST", "/groups", map[string]any{"guid": "pub", "name": "Public", "type": "public", "tags": []string{"news"}}, 201, "", ""},
	{"create duplicate group", "bob", "POST", "/groups", map[string]any{"guid": "pub", "name": "Again", "type": "public"}, 409, "ERR_GUID_ALREADY_EXISTS", ""},
	{"create private group", "alice", "POST", "/groups", map[string]any{"guid": "priv", "name": "Private", "type": "private"}, 201, "", ""},
	{"create password group", "alice", "POST", "/groups", map[string]any{"guid": "pw", "name": "Password", "type": "password", "password": "s3cret"}, 201, "", ""},
	{"join public", "bob", "POST", "/groups/pub/join", nil, 200, "", ""},
	{"join twice", "bob", "POST", "/groups/pub/join", nil, 409, "ERR_ALREADY_JOINED", ""},
	{"join private", "bob", "POST", "/groups/priv/join", nil, 403, "ERR_GROUP_JOIN_NOT_ALLOWED", ""},
	{"join password group, wrong password", "bob", "POST", "/groups/pw/join", map[string]any{"password": "guess"}, 403, "ERR_WRONG_GROUP_PASSWORD", ""},
	{"join password group, no password", "bob", "POST", "/groups/pw/join", nil, 403, "ERR_WRONG_GROUP_PASSWORD", ""},
	{"join password group", "bob", "POST", "/groups/pw/join", map[string]any{"password": "s3cret"}, 200, "", ""},
	{"list joined groups", "bob", "GET", "/groups?joinedOnly=true&withTags=true&limit=1", nil, 200, "", ""},
	{"list groups by tag", "carol", "GET", "/groups?tags=news&searchKeyword=Pub", nil, 200, "", ""},
	{"bad group cursor", "bob", "GET", "/groups?cursor=not-issued-here", nil, 400, "ERR_BAD_CURSOR", ""},
	{"get group", "bob", "GET", "/groups/pub", nil, 200, "", ""},
	{"private group hidden", "carol", "GET", "/groups/priv", nil, 404, "ERR_GUID_NOT_FOUND", ""},
	{"update group, not admin", "bob", "PUT", "/groups/pub", map[string]any{"name": "Mine"}, 403, "ERR_PERMISSION_DENIED", ""},
	{"update group", "alice", "PUT", "/groups/pub", map[string]any{"name": "Public room", "description": "all welcome"}, 200, "", ""},
	{"make group password, no password", "alice", "PUT", "/groups/priv", map[string]any{"type": "password"}, 400, "ERR_VALIDATION", ""},

	{"send text to group", "alice", "POST", "/messages", map[string]any{"receiver": "pub", "receiverType": "group", "text": "hello"}, 201, "", "m1"},
	{"non-member sends", "carol", "POST", "/messages", map[string]any{"receiver": "pub", "receiverType": "group", "text": "hi"}, 403, "ERR_NOT_A_MEMBER", ""},
	{"non-member reads", "carol", "GET", "/groups/pub/messages", nil, 403, "ERR_NOT_A_MEMBER", ""},
	{"send custom", "bob", "POST", "/messages", map[string]any{"receiver": "pub", "receiverType": "group", "category": "custom", "type": "poll", "data": map[string]any{"q": "?"}}, 201, "", ""},
	{"reply", "bob", "POST", "/messages", map[string]any{"receiver": "pub", "receiverType": "group", "text": "re", "parentId": "{m1}"}, 201, "", "m2"},
	{"reply to unknown parent", "bob", "POST", "/messages", map[string]any{"receiver": "pub", "receiverType": "group", "text": "re", "parentId": 999999}, 404, "ERR_MESSAGE_NOT_FOUND", ""},
	{"get message", "bob", "GET", "/messages/{m1}", nil, 200, "", ""},
	{"thread", "bob", "GET", "/groups/pub/messages?parentId={m1}", nil, 200, "", ""},
	{"hide replies", "bob", "GET", "/groups/pub/messages?hideReplies=true&limit=500", nil, 200, "", ""},
	{"before", "bob", "GET", "/groups/pub/messages?before={m2}&types=text&categories=message", nil, 200, "", ""},
	{"around", "bob", "GET", "/groups/pub/messages?around={m1}", nil, 200, "", ""},
	{"only the sender edits", "bob", "PUT", "/messages/{m1}", map[string]any{"text": "hacked"}, 403, "ERR_PERMISSION_DENIED", ""},
	{"edit", "alice", "PUT", "/messages/{m1}", map[string]any{"text": "hello, edited"}, 200, "", ""},
	{"react", "bob", "POST", "/messages/{m1}/reactions/" + thumbsUp, nil, 200, "", ""},
	{"list reactions", "alice", "GET", "/messages/{m1}/reactions?reaction=" + thumbsUp, nil, 200, "", ""},
	{"unreact", "bob", "DELETE", "/messages/{m1}/reactions/" + thumbsUp, nil, 200, "", ""},
	{"delivered", "bob", "POST", "/messages/{m1}/delivered", nil, 204, "", ""},
	{"read", "bob", "POST", "/messages/{m1}/read", nil, 204, "", ""},
	{"unread", "bob", "POST", "/messages/{m1}/unread", nil, 204, "", ""},
	{"message info", "alice", "GET", "/messages/{m1}/info", nil, 200, "", ""},
	{"conversations", "bob", "GET", "/conversations?type=group", nil, 200, "", ""},
	{"typing", "bob", "POST", "/typing/start", map[string]any{"receiver": "pub", "receiverType": "group"}, 204, "", ""},
	{"typing ends", "bob", "POST", "/typing/end", map[string]any{"receiver": "pub", "receiverType": "group"}, 204, "", ""},
	{"typing, non-member", "carol", "POST", "/typing/start", map[string]any{"receiver": "pub", "receiverType": "group"}, 403, "ERR_NOT_A_MEMBER", ""},
	{"typing to a user", "alice", "POST", "/typing/start", map[string]any{"receiver": "dave", "receiverType": "user"}, 204, "", ""},
	{"flag", "bob", "POST", "/messages/{m1}/flag", map[string]any{"reason": "spam", "remark": "ads"}, 204, "", ""},
	{"list flags", "key", "GET", "/moderation/flags", nil, 200, "", ""},
	{"put rules", "key", "PUT", "/moderation/rules", map[string]any{"rules": []any{map[string]any{"kind": "regex", "pattern": "buy .* now", "action": "pending"}}}, 200, "", ""},
	{"get rules", "key", "GET", "/moderation/rules", nil, 200, "", ""},
	{"moderate", "key", "PUT", "/moderation/messages/{m1}", map[string]any{"status": "approved"}, 200, "", ""},
	{"moderate unknown", "key", "PUT", "/moderation/messages/999999", map[string]any{"status": "approved"}, 404, "ERR_MESSAGE_NOT_FOUND", ""},

	{"one-to-one", "alice", "POST", "/messages", map[string]any{"receiver": "dave", "receiverType": "user", "text": "psst"}, 201, "", "m3"},
	{"to unknown user", "alice", "POST", "/messages", map[string]any{"receiver": "nobody", "receiverType": "user", "text": "?"}, 404, "ERR_UID_NOT_FOUND", ""},
	{"one-to-one list", "dave", "GET", "/users/alice/messages", nil, 200, "", ""},
	{"one-to-one hidden from others", "bob", "GET", "/messages/{m3}", nil, 404, "ERR_MESSAGE_NOT_FOUND", ""},
	{"unknown message", "bob", "GET", "/messages/999999", nil, 404, "ERR_MESSAGE_NOT_FOUND", ""},

	{"add members", "alice", "POST", "/groups/priv/members", map[string]any{"members": []any{map[string]any{"uid": "carol"}, map[string]any{"uid": "nobody"}}}, 200, "", ""},
	{"add members, not admin", "carol", "POST", "/groups/priv/members", map[string]any{"members": []any{map[string]any{"uid": "dave"}}}, 403, "ERR_PERMISSION_DENIED", ""},
	{"list members", "carol", "GET", "/groups/priv/members?scopes=admin,participant", nil, 200, "", ""},
	{"members, non-member", "dave", "GET", "/groups/pw/members", nil, 403, "ERR_NOT_A_MEMBER", ""},
	{"make moderator", "alice", "PUT", "/groups/pub/members/bob", map[string]any{"scope": "moderator"}, 204, "", ""},
	{"scope change, not admin", "bob", "PUT", "/groups/pub/members/alice", map[string]any{"scope": "participant"}, 403, "ERR_PERMISSION_DENIED", ""},
	{"carol joins", "carol", "POST", "/groups/pub/join", nil, 200, "", ""},
	{"dave joins", "dave", "POST", "/groups/pub/join", nil, 200, "", ""},
	{"carol writes", "carol", "POST", "/messages", map[string]any{"receiver": "pub", "receiverType": "group", "text": "mine"}, 201, "", "m4"},
	{"participant deletes another's", "dave", "DELETE", "/messages/{m4}", nil, 403, "ERR_PERMISSION_DENIED", ""},
	{"moderator deletes", "bob", "DELETE", "/messages/{m4}", nil, 200, "", ""},
	{"edit a tombstone", "carol", "PUT", "/messages/{m4}", map[string]any{"text": "back"}, 409, "ERR_MESSAGE_DELETED", ""},
	{"sender deletes", "alice", "DELETE", "/messages/{m3}", nil, 200, "", ""},
	{"kick, not moderator", "dave", "DELETE", "/groups/pub/members/carol", nil, 403, "ERR_PERMISSION_DENIED", ""},
	{"moderator kicks", "bob", "DELETE", "/groups/pub/members/dave", nil, 204, "", ""},
	{"ban", "alice", "POST", "/groups/pub/bans/carol", nil, 204, "", ""},
	{"banned list", "alice", "GET", "/groups/pub/bans", nil, 200, "", ""},
	{"banned rejoins", "carol", "POST", "/groups/pub/join", nil, 403, "ERR_BANNED", ""},
	{"unban", "alice", "DELETE", "/groups/pub/bans/carol", nil, 204, "", ""},
	{"unbanned rejoins", "carol", "POST", "/groups/pub/join", nil, 200, "", ""},
	{"owner cannot leave", "alice", "POST", "/groups/pub/leave", nil, 403, "ERR_OWNER_CANNOT_LEAVE", ""},
	{"transfer, not owner", "bob", "PUT", "/groups/pub/owner", map[string]any{"uid": "bob"}, 403, "ERR_PERMISSION_DENIED", ""},
	{"transfer ownership", "alice", "PUT", "/groups/pub/owner", map[string]any{"uid": "bob"}, 204, "", ""},
	{"former owner leaves", "alice", "POST", "/groups/pub/leave", nil, 204, "", ""},
	{"leave, not a member", "alice", "POST", "/groups/pub/leave", nil, 403, "ERR_NOT_A_MEMBER", ""},
	{"password change", "alice", "PUT", "/groups/pw", map[string]any{"password": "n3w"}, 200, "", ""},
	{"old password refused", "dave", "POST", "/groups/pw/join", map[string]any{"password": "s3cret"}, 403, "ERR_WRONG_GROUP_PASSWORD", ""},
	{"new password", "dave", "POST", "/groups/pw/join", map[string]any{"password": "n3w"}, 200, "", ""},
	{"delete group, not owner", "carol", "DELETE", "/groups/priv", nil, 403, "ERR_PERMISSION_DENIED", ""},
	{"delete group", "alice", "DELETE", "/groups/priv", nil, 204, "", ""},
	{"deleted group", "alice", "GET", "/groups/priv", nil, 404, "ERR_GUID_NOT_FOUND", ""},

	{"mint token", "key", "POST", "/users/dave/auth_tokens", map[string]any{"expiresIn": 3600}, 201, "", "tok"},
	{"revoke token", "key", "DELETE", "/users/dave/auth_tokens/{tok}", nil, 204, "", ""},
	{"revoke all tokens", "key", "DELETE", "/users/carol/auth_tokens", nil, 204, "", ""},
	{"revoked token", "carol", "GET", "/me", nil, 401, "ERR_AUTH_TOKEN_INVALID", ""},
}

// TestBehaviour runs the scenario over HTTP against each real store.
func TestBehaviour(t *testing.T) {
	for kind, open := range stores(t) {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, open(t), Options{})
			tokens := map[string]string{"key": keyAuth, "": ""}
			for _, u := range []string{"alice", "bob", "carol", "dave"} {
				tokens[u] = e.user(u)
			}
			saved := map[string]string{}
			fill := func(s string) string {
				for k, v := range saved {
					s = strings.ReplaceAll(s, "{"+k+"}", v)
				}
				return s
			}
			for _, s := range scenario {
				t.Run(s.name, func(t *testing.T) {
					e.t = t
					var body any = s.body
					if s.body != nil {
						b, _ := json.Marshal(s.body)
						// A saved id stands for a number: "{m1}" in a body becomes 12.
						body = fill(strings.NewReplacer(`"{`, "{", `}"`, "}").Replace(string(b)))
					}
					r := e.do(s.method, fill(s.path), tokens[s.as], body)
					e.expect(r, s.status, s.code)
					if s.save != "" {
						var v struct {
							ID any `json:"id"`
						}
						r.decode(t, &v)
						saved[s.save] = fmt.Sprint(v.ID)
					}
				})
			}
			if e.hub.notified.Load() < 30 {
				t.Errorf("the hub was woken %d times; every write must wake it", e.hub.notified.Load())
			}
			if len(e.hub.typing) != 3 || !strings.HasPrefix(e.hub.typing[0], "bob group_pub start") {
				t.Errorf("typing relayed %q", e.hub.typing)
			}
			if strings.Contains(e.logs.String(), testAPIKey) {
				t.Error("the API key reached the log")
			}
		})
	}
}

// TestAddMembersResults checks the per-uid results of an add.
func TestAddMembersResults(t *testing.T) {
	e := newEnv(t, stores(t)["sqlite"](t), Options{})
	alice, _ := e.user("alice"), e.user("bob")
	e.expect(e.do(http.MethodPost, "/groups", alice, map[string]any{"guid": "g", "name": "G", "type": "private"}), 201, "")
	r := e.do(http.MethodPost, "/groups/g/members", alice, map[string]any{"members": []any{map[string]any{"uid": "bob", "scope": "moderator"}, map[string]any{"uid": "nobody"}}})
	e.expect(r, 200, "")
	var out struct {
		Results map[string]memberResult `json:"results"`
	}
	r.decode(t, &out)
	if !out.Results["bob"].Success || out.Results["nobody"].Error == nil || out.Results["nobody"].Error.Code != "ERR_UID_NOT_FOUND" {
		t.Fatalf("results: %s", r.body)
	}
}

// TestGroupPasswordNeverReturned: the bcrypt hash stays in the store.
func TestGroupPasswordNeverReturned(t *testing.T) {
	e := newEnv(t, stores(t)["sqlite"](t), Options{})
	alice := e.user("alice")
	for _, r := range []resp{
		e.do(http.MethodPost, "/groups", alice, map[string]any{"guid": "pw", "name": "P", "type": "password", "password": "s3cret"}),
		e.do(http.MethodGet, "/groups/pw", alice, nil),
		e.do(http.MethodGet, "/groups", alice, nil),
		e.do(http.MethodPut, "/groups/pw", alice, map[string]any{"password": "other"}),
	} {
		if r.status >= 300 || strings.Contains(string(r.body), "$2a$") || strings.Contains(string(r.body), "s3cret") || strings.Contains(string(r.body), `"password":`) {
			t.Fatalf("group answer %d %s", r.status, r.body)
		}
	}
}
