package api

import (
	"net/http"
	"strings"
	"testing"
)

// validationCase is a bad request and the 4xx and code it gets.
type validationCase struct {
	name, method, path, auth string
	body                     any
	status                   int
	code                     string
}

// validationCases are bad inputs to every kind of route, sent with the user token tok.
func validationCases(tok string) []validationCase {
	long := strings.Repeat("x", 73)
	return []validationCase{
		{"malformed JSON", "POST", "/groups", tok, `{"guid":`, 400, "ERR_VALIDATION"},
		{"empty body", "POST", "/groups", tok, nil, 400, "ERR_VALIDATION"},
		{"two JSON values", "POST", "/groups", tok, `{} {}`, 400, "ERR_VALIDATION"},
		{"a stray brace after the value", "POST", "/groups", tok, `{"guid":"g9","name":"G","type":"public"}}`, 400, "ERR_VALIDATION"},
		{"a stray bracket after the value", "POST", "/groups", tok, `{"guid":"g9","name":"G","type":"public"}]`, 400, "ERR_VALIDATION"},
		{"trailing garbage", "POST", "/groups", tok, `{"guid":"g9","name":"G","type":"public"} x`, 400, "ERR_VALIDATION"},
		{"wrong field type", "POST", "/groups", tok, `{"guid":1}`, 400, "ERR_VALIDATION"},
		{"unknown group type", "POST", "/groups", tok, map[string]any{"guid": "g1", "name": "G", "type": "secret"}, 400, "ERR_VALIDATION"},
		{"missing group type", "POST", "/groups", tok, map[string]any{"guid": "g1", "name": "G"}, 400, "ERR_VALIDATION"},
		{"bad guid", "POST", "/groups", tok, map[string]any{"guid": "g 1", "name": "G", "type": "public"}, 400, "ERR_VALIDATION"},
		{"guid too long", "POST", "/groups", tok, map[string]any{"guid": strings.Repeat("g", 101), "name": "G", "type": "public"}, 400, "ERR_VALIDATION"},
		{"blank group name", "POST", "/groups", tok, map[string]any{"guid": "g1", "name": "  ", "type": "public"}, 400, "ERR_VALIDATION"},
		{"password group without password", "POST", "/groups", tok, map[string]any{"guid": "g1", "name": "G", "type": "password"}, 400, "ERR_VALIDATION"},
		{"password too long", "POST", "/groups", tok, map[string]any{"guid": "g1", "name": "G", "type": "password", "password": long}, 400, "ERR_VALIDATION"},
		{"password on a public group", "POST", "/groups", tok, map[string]any{"guid": "g1", "name": "G", "type": "public", "password": "p"}, 400, "ERR_VALIDATION"},
		{"bad member scope", "POST", "/groups", tok, map[string]any{"guid": "g1", "name": "G", "type": "public", "members": []any{map[string]any{"uid": "u2", "scope": "owner"}}}, 400, "ERR_VALIDATION"},
		{"bad member uid", "POST", "/groups/g1/members", tok, map[string]any{"members": []any{map[string]any{"uid": "u/2"}}}, 400, "ERR_VALIDATION"},
		{"no members", "POST", "/groups/g1/members", tok, map[string]any{"members": []any{}}, 400, "ERR_VALIDATION"},
		{"bad scope change", "PUT", "/groups/g1/members/u2", tok, map[string]any{"scope": "root"}, 400, "ERR_VALIDATION"},
		{"bad new owner", "PUT", "/groups/g1/owner", tok, map[string]any{"uid": ""}, 400, "ERR_VALIDATION"},
		{"update changes guid", "PUT", "/groups/g1", tok, map[string]any{"guid": "g2"}, 400, "ERR_VALIDATION"},
		{"update unknown type", "PUT", "/groups/g1", tok, map[string]any{"type": "hidden"}, 400, "ERR_VALIDATION"},
		{"bad guid in path", "GET", "/groups/g%20x", tok, nil, 400, "ERR_VALIDATION"},
		{"password not a string", "POST", "/groups/g1/join", tok, `{"password":5}`, 400, "ERR_VALIDATION"},
		{"bad uid in path", "GET", "/users/u%2A", tok, nil, 400, "ERR_VALIDATION"},
		{"empty text", "POST", "/messages", tok, map[string]any{"receiver": "u2", "receiverType": "user", "text": " "}, 400, "ERR_VALIDATION"},
		{"text too long", "POST", "/messages", tok, map[string]any{"receiver": "u2", "receiverType": "user", "text": strings.Repeat("y", maxTextRunes+1)}, 400, "ERR_VALIDATION"},
		{"bad receiver type", "POST", "/messages", tok, map[string]any{"receiver": "u2", "receiverType": "room", "text": "hi"}, 400, "ERR_VALIDATION"},
		{"bad receiver", "POST", "/messages", tok, map[string]any{"receiver": "../u2", "receiverType": "user", "text": "hi"}, 400, "ERR_VALIDATION"},
		{"client action message", "POST", "/messages", tok, map[string]any{"receiver": "u2", "receiverType": "user", "category": "action", "text": "hi"}, 400, "ERR_VALIDATION"},
		{"media type on JSON route", "POST", "/messages", tok, map[string]any{"receiver": "u2", "receiverType": "user", "type": "image", "text": "hi"}, 400, "ERR_VALIDATION"},
		{"custom without data", "POST", "/messages", tok, map[string]any{"receiver": "u2", "receiverType": "user", "category": "custom", "type": "poll"}, 400, "ERR_VALIDATION"},
		{"custom with null data", "POST", "/messages", tok, map[string]any{"receiver": "u2", "receiverType": "user", "category": "custom", "type": "poll", "data": nil}, 400, "ERR_VALIDATION"},
		{"custom data not an object", "POST", "/messages", tok, map[string]any{"receiver": "u2", "receiverType": "user", "category": "custom", "type": "poll", "data": []int{1}}, 400, "ERR_VALIDATION"},
		{"metadata not an object", "POST", "/messages", tok, map[string]any{"receiver": "u2", "receiverType": "user", "text": "hi", "metadata": "x"}, 400, "ERR_VALIDATION"},
		{"negative parent", "POST", "/messages", tok, map[string]any{"receiver": "u2", "receiverType": "user", "text": "hi", "parentId": -1}, 400, "ERR_VALIDATION"},
		{"edit with nothing", "PUT", "/messages/1", tok, map[string]any{}, 400, "ERR_VALIDATION"},
		{"edit to empty text", "PUT", "/messages/1", tok, map[string]any{"text": ""}, 400, "ERR_VALIDATION"},
		{"bad message id", "GET", "/messages/abc", tok, nil, 400, "ERR_VALIDATION"},
		{"zero message id", "DELETE", "/messages/0", tok, nil, 400, "ERR_VALIDATION"},
		{"bad before cursor", "GET", "/users/u2/messages?before=abc", tok, nil, 400, "ERR_BAD_CURSOR"},
		{"negative after cursor", "GET", "/groups/g1/messages?after=-5", tok, nil, 400, "ERR_BAD_CURSOR"},
		{"two cursors", "GET", "/groups/g1/messages?before=5&after=2", tok, nil, 400, "ERR_VALIDATION"},
		{"zero limit", "GET", "/groups?limit=0", tok, nil, 400, "ERR_VALIDATION"},
		{"bad limit", "GET", "/users?limit=ten", tok, nil, 400, "ERR_VALIDATION"},
		{"bad boolean", "GET", "/groups?joinedOnly=maybe", tok, nil, 400, "ERR_VALIDATION"},
		{"oversized cursor", "GET", "/groups?cursor=" + strings.Repeat("c", 600), tok, nil, 400, "ERR_BAD_CURSOR"},
		{"bad user kind", "GET", "/users?kind=robot", tok, nil, 400, "ERR_VALIDATION"},
		{"bad scopes filter", "GET", "/groups/g1/members?scopes=owner", tok, nil, 400, "ERR_VALIDATION"},
		{"bad conversation type", "GET", "/conversations?type=channel", tok, nil, 400, "ERR_VALIDATION"},
		{"reaction too long", "POST", "/messages/1/reactions/" + strings.Repeat("r", 40), tok, nil, 400, "ERR_VALIDATION"},
		{"reaction with markup", "POST", "/messages/1/reactions/%3Cb%3E", tok, nil, 400, "ERR_VALIDATION"},
		{"flag without reason", "POST", "/messages/1/flag", tok, map[string]any{"remark": "x"}, 400, "ERR_VALIDATION"},
		{"typing bad receiver type", "POST", "/typing/start", tok, map[string]any{"receiver": "u2", "receiverType": "x"}, 400, "ERR_VALIDATION"},
		{"create user bad uid", "POST", "/users", keyAuth, map[string]any{"uid": "a b", "name": "A"}, 400, "ERR_VALIDATION"},
		{"create user without name", "POST", "/users", keyAuth, map[string]any{"uid": "u3"}, 400, "ERR_VALIDATION"},
		{"create user bad kind", "POST", "/users", keyAuth, map[string]any{"uid": "u3", "name": "A", "kind": "bot"}, 400, "ERR_VALIDATION"},
		{"create existing user", "POST", "/users", keyAuth, map[string]any{"uid": "u1", "name": "A"}, 409, "ERR_UID_ALREADY_EXISTS"},
		{"bad rule regex", "PUT", "/moderation/rules", keyAuth, map[string]any{"rules": []any{map[string]any{"kind": "regex", "pattern": "(", "action": "pending"}}}, 400, "ERR_VALIDATION"},
		{"bad rule kind", "PUT", "/moderation/rules", keyAuth, map[string]any{"rules": []any{map[string]any{"kind": "glob", "pattern": "x", "action": "pending"}}}, 400, "ERR_VALIDATION"},
		{"bad rule action", "PUT", "/moderation/rules", keyAuth, map[string]any{"rules": []any{map[string]any{"kind": "word", "pattern": "x", "action": "approved"}}}, 400, "ERR_VALIDATION"},
		{"rules missing", "PUT", "/moderation/rules", keyAuth, map[string]any{}, 400, "ERR_VALIDATION"},
		{"bad moderation status", "PUT", "/moderation/messages/1", keyAuth, map[string]any{"status": "ok"}, 400, "ERR_VALIDATION"},
		{"body not JSON", "POST", "/messages", tok, "text=hi", 400, "ERR_VALIDATION"},
		{"unknown route", "GET", "/nothing", tok, nil, 404, "ERR_NOT_FOUND"},
		{"media without multipart", "POST", "/messages/media", tok, map[string]any{}, 400, "ERR_VALIDATION"},
		{"media bad id", "GET", "/media/..%2Fetc", tok, nil, 404, "ERR_NOT_FOUND"},
	}
}

// TestValidation sends bad input to every kind of route; each must be refused with a 4xx and a
// code before the store is reached (the stub store panics on anything but users and tokens).
func TestValidation(t *testing.T) {
	e := newStubEnv(t, Options{})
	for _, c := range validationCases(e.user("u1")) {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			e.expect(e.do(c.method, c.path, c.auth, c.body), c.status, c.code)
		})
	}
	if n := e.hub.notified.Load(); n != 0 {
		t.Fatalf("refused requests woke the hub %d times", n)
	}
}

func TestBodyTooLarge(t *testing.T) {
	e := newStubEnv(t, Options{})
	tok := e.user("u1")
	big := `{"receiver":"u2","receiverType":"user","text":"` + strings.Repeat("a", maxJSONBytes) + `"}`
	e.expect(e.do(http.MethodPost, "/messages", tok, big), http.StatusRequestEntityTooLarge, "ERR_TOO_LARGE")
}

// TestNULIsRefusedNamingTheField: a NUL character anywhere a client sends text — a body field
// (nested too), a query parameter, a multipart field — is a 400 naming where it was, before
// any store sees it (the stub store panics on groups and messages).
func TestNULIsRefusedNamingTheField(t *testing.T) {
	e := newStubEnv(t, Options{})
	tok := e.user("u1")
	cases := []struct {
		name, method, path, auth string
		body                     any
		field                    string
	}{
		{"message text", "POST", "/messages", tok, `{"receiver":"u2","receiverType":"user","text":"a\u0000b"}`, "text must not"},
		{"group name", "POST", "/groups", tok, `{"guid":"g1","name":"G\u0000","type":"public"}`, "name must not"},
		{"user name", "POST", "/users", keyAuth, `{"uid":"u5","name":"\u0000"}`, "name must not"},
		{"nested metadata", "POST", "/messages", tok, `{"receiver":"u2","receiverType":"user","text":"hi","metadata":{"a":[1,{"b":"x\u0000"}]}}`, "metadata.a[1].b must not"},
		{"a key", "POST", "/messages", tok, `{"receiver":"u2","receiverType":"user","text":"hi","metadata":{"k\u0000":1}}`, "metadata must not"},
		{"query parameter", "GET", "/groups?searchKeyword=a%00b", tok, nil, "query parameter searchKeyword must not"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			r := e.do(c.method, c.path, c.auth, c.body)
			e.expect(r, http.StatusBadRequest, "ERR_VALIDATION")
			if !strings.Contains(string(r.body), c.field) {
				t.Errorf("answer %s does not say %q", r.body, c.field)
			}
		})
	}
	e.t = t
	r := e.upload(tok, "application/octet-stream", "a.txt", []byte("hello"), map[string]string{"receiver": "u2", "receiverType": "user", "text": "cap\x00tion"})
	e.expect(r, http.StatusBadRequest, "ERR_VALIDATION")
	if !strings.Contains(string(r.body), "text must not contain NUL") {
		t.Errorf("media answer %s does not name the text field", r.body)
	}
}
