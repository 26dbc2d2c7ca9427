package store

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

var testHeadersKey = bytes.Repeat([]byte{7}, 32)

func rawDB(s Store) *sql.DB {
	switch v := s.(type) {
	case *sqlStore:
		return v.db
	case *pgStore:
		return v.db
	}
	panic("unknown store")
}

func chef() model.AgentConfig {
	return model.AgentConfig{
		AgentID: "chef", Provider: model.ProviderAGUI, Name: "Chef", Icon: "https://x/chef.png",
		Greeting: "Hi!", IntroductoryMessage: "I cook.", SuggestedMessages: []string{"A pasta?", "Dessert?"},
		DeploymentURL: "https://chef.example/agent",
	}
}

const secret = "Bearer s3cr3t-header-value"

func TestAgentLifecycle(t *testing.T) {
	eachKeyed(t, func(t *testing.T, s Store) {
		users(t, s, "alice")
		hdr := map[string]string{"Authorization": secret}
		a, created, err := s.PutAgent(ctx, chef(), &hdr)
		wantCode(t, err, "")
		if !created || !a.HasHeaders || a.Enabled || a.Name != "Chef" || len(a.SuggestedMessages) != 2 {
			t.Fatalf("created %v: %+v", created, a)
		}
		// The agent's user exists, with the icon as avatar.
		u := must[model.User](t)(s.GetUser(ctx, "chef"))
		if u.Kind != model.UserKindAgent || u.Name != "Chef" || u.Avatar != "https://x/chef.png" {
			t.Fatalf("agent user: %+v", u)
		}
		// Encryption at rest: the raw column is neither empty nor the plaintext.
		raw := rawHeaders(t, s)
		if raw == "" || strings.Contains(raw, "s3cr3t") || strings.Contains(raw, "Authorization") {
			t.Fatalf("headers not encrypted at rest: %q", raw)
		}
		got := must[map[string]string](t)(s.AgentHeaders(ctx, "chef"))
		if got["Authorization"] != secret {
			t.Fatalf("decrypted headers: %v", got)
		}
		// Disabled: hidden from users' listings, visible to admins' (no filter).
		hidden := must[Page[model.User]](t)(s.ListUsers(ctx, UserQuery{Kind: model.UserKindAgent, HideDisabledAgents: true}))
		if len(hidden.Items) != 0 {
			t.Fatalf("disabled agent listed: %+v", hidden.Items)
		}
		if all := must[Page[model.User]](t)(s.ListUsers(ctx, UserQuery{HideDisabledAgents: true})); len(all.Items) != 1 || all.Items[0].UID != "alice" {
			t.Fatalf("users: %+v", all.Items)
		}
		a = must[model.AgentConfig](t)(s.SetAgentEnabled(ctx, "chef", true))
		if !a.Enabled {
			t.Fatal("not enabled")
		}
		if shown := must[Page[model.User]](t)(s.ListUsers(ctx, UserQuery{Kind: model.UserKindAgent, HideDisabledAgents: true})); len(shown.Items) != 1 {
			t.Fatalf("enabled agent not listed: %+v", shown.Items)
		}
		// Update: nil headers keep them (re-encrypted never, same ciphertext); name moves to the user.
		c := chef()
		c.Name, c.Enabled = "Chef Two", true
		a, created, err = s.PutAgent(ctx, c, nil)
		wantCode(t, err, "")
		if created || !a.HasHeaders || a.Name != "Chef Two" {
			t.Fatalf("update: %v %+v", created, a)
		}
		if u := must[model.User](t)(s.GetUser(ctx, "chef")); u.Name != "Chef Two" {
			t.Fatalf("user name not updated: %+v", u)
		}
		// A new write takes a fresh nonce: the same headers give another ciphertext.
		_, _, err = s.PutAgent(ctx, c, &hdr)
		wantCode(t, err, "")
		if rawHeaders(t, s) == raw {
			t.Fatal("the nonce was reused")
		}
		// Empty headers clear them.
		empty := map[string]string{}
		a, _, _ = s.PutAgent(ctx, c, &empty)
		if a.HasHeaders {
			t.Fatal("headers not cleared")
		}
		if list := must[[]model.AgentConfig](t)(s.ListAgents(ctx)); len(list) != 1 || list[0].AgentID != "chef" {
			t.Fatalf("list: %+v", list)
		}
		// Unique agent id vs. a person's uid.
		p := chef()
		p.AgentID = "alice"
		_, _, err = s.PutAgent(ctx, p, nil)
		wantCode(t, err, model.ErrUIDExists)
		deleteAndRecreate(t, s)
	})
}

// rawHeaders is the chef agent's headers column as stored.
func rawHeaders(t *testing.T, s Store) string {
	t.Helper()
	var raw string
	testutil.Check(t, rawDB(s).QueryRowContext(ctx, `SELECT headers FROM chat_agents WHERE agent_id = 'chef'`).Scan(&raw))
	return raw
}

// deleteAndRecreate deletes the chef agent: it is gone, its actions too, and its user stays but
// is hidden; created again it has no headers and no actions.
func deleteAndRecreate(t *testing.T, s Store) {
	t.Helper()
	_, _, err := s.PutAction(ctx, recipeCard())
	wantCode(t, err, "")
	wantCode(t, s.DeleteAgent(ctx, "chef"), "")
	_, err = s.GetAgent(ctx, "chef")
	wantCode(t, err, model.ErrUIDNotFound)
	wantCode(t, s.DeleteAgent(ctx, "chef"), model.ErrUIDNotFound)
	_, err = s.SetAgentEnabled(ctx, "chef", true)
	wantCode(t, err, model.ErrUIDNotFound)
	if shown := must[Page[model.User]](t)(s.ListUsers(ctx, UserQuery{Kind: model.UserKindAgent, HideDisabledAgents: true})); len(shown.Items) != 0 {
		t.Fatalf("deleted agent listed: %+v", shown.Items)
	}
	a, created, err := s.PutAgent(ctx, chef(), nil)
	wantCode(t, err, "")
	if !created || a.HasHeaders {
		t.Fatalf("re-created: %v %+v", created, a)
	}
	if acts := must[[]model.FrontendAction](t)(s.ListActions(ctx, "chef")); len(acts) != 0 {
		t.Fatalf("actions survived the delete: %+v", acts)
	}
}

func TestAgentValidationAndKeys(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		bad := chef()
		bad.AgentID = "no spaces"
		_, _, err := s.PutAgent(ctx, bad, nil)
		wantCode(t, err, model.ErrValidation)
		bad = chef()
		bad.Provider = "openai"
		_, _, err = s.PutAgent(ctx, bad, nil)
		wantCode(t, err, model.ErrValidation)
		bad = chef()
		bad.DeploymentURL = "ftp://x"
		_, _, err = s.PutAgent(ctx, bad, nil)
		wantCode(t, err, model.ErrValidation)
		// No key: headers are refused, not stored in clear.
		hdr := map[string]string{"X-Key": secret}
		_, _, err = s.PutAgent(ctx, chef(), &hdr)
		wantCode(t, err, model.ErrValidation)
		if !strings.Contains(err.Error(), "headers key") || strings.Contains(err.Error(), secret) {
			t.Fatalf("error: %v", err)
		}
	})
	for _, kind := range kinds {
		t.Run(kind+"/wrong key", func(t *testing.T) {
			url := "file:" + t.TempDir() + "/chat.db"
			if kind == "postgres" {
				url = postgresURL(t)
			}
			s1, err := OpenWith(ctx, url, Options{HeadersKey: testHeadersKey})
			testutil.Check(t, err)
			hdr := map[string]string{"X-Key": secret}
			_, _, err = s1.PutAgent(ctx, chef(), &hdr)
			wantCode(t, err, "")
			_ = s1.Close()
			s2, err := OpenWith(ctx, url, Options{HeadersKey: bytes.Repeat([]byte{8}, 32)})
			testutil.Check(t, err)
			defer s2.Close()
			_, err = s2.AgentHeaders(ctx, "chef")
			wantCode(t, err, model.ErrUnavailable)
			if strings.Contains(err.Error(), secret) {
				t.Fatal("secret in error")
			}
		})
	}
	if _, err := OpenWith(ctx, "file:"+t.TempDir()+"/x.db", Options{HeadersKey: []byte("short")}); err == nil {
		t.Fatal("a short key was accepted")
	}
}

func recipeCard() model.FrontendAction {
	return model.FrontendAction{
		AgentID: "chef", Name: "show-recipe-card", DisplayName: "Show recipe card", ExecutionText: "Showing…",
		Description: "Shows a recipe card",
		Parameters:  json.RawMessage(`{"type":"object","required":["title"],"properties":{"title":{"type":"string","description":"The title"}}}`),
	}
}

func TestFrontendActions(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		_, _, err := s.PutAction(ctx, recipeCard())
		wantCode(t, err, model.ErrUIDNotFound)
		must[model.AgentConfig](t)(func() (model.AgentConfig, error) { a, _, err := s.PutAgent(ctx, chef(), nil); return a, err }())
		f, created, err := s.PutAction(ctx, recipeCard())
		wantCode(t, err, "")
		if !created || f.DisplayName != "Show recipe card" {
			t.Fatalf("%v %+v", created, f)
		}
		// Unique per agent: a second put replaces.
		r := recipeCard()
		r.DisplayName = "Card"
		f, created, err = s.PutAction(ctx, r)
		wantCode(t, err, "")
		if created || f.DisplayName != "Card" || !f.CreatedAt.Equal(f.CreatedAt) {
			t.Fatalf("%v %+v", created, f)
		}
		if list := must[[]model.FrontendAction](t)(s.ListActions(ctx, "chef")); len(list) != 1 {
			t.Fatalf("list: %+v", list)
		}
		got := must[model.FrontendAction](t)(s.GetAction(ctx, "chef", "show-recipe-card"))
		if got.DisplayName != "Card" || !json.Valid(got.Parameters) {
			t.Fatalf("%+v", got)
		}
		for params, want := range map[string]string{
			`[]`:                                "parameters must be a JSON object",
			`{"type":"string","properties":{}}`: "parameters.type",
			`{"type":"object"}`:                 "parameters.properties is required",
			`{"type":"object","properties":{"city":{"type":"string"}}}`:          "parameters.properties.city.description is required",
			`{"type":"object","properties":{"city":{"description":"The city"}}}`: "parameters.properties.city.type is required",
			`{"type":"object","properties":{},"required":"city"}`:                "parameters.required must be an array",
			`{"type":"object","properties":{},"required":["city"]}`:              "parameters.required[0]",
			`{"type":"object","properties":{"city":"x"}}`:                        "parameters.properties must be an object",
		} {
			a := recipeCard()
			a.Name, a.Parameters = "other", json.RawMessage(params)
			_, _, err := s.PutAction(ctx, a)
			wantCode(t, err, model.ErrValidation)
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not name %q", params, err, want)
			}
		}
		a := recipeCard()
		a.Name = "bad name!"
		_, _, err = s.PutAction(ctx, a)
		wantCode(t, err, model.ErrValidation)
		wantCode(t, s.DeleteAction(ctx, "chef", "show-recipe-card"), "")
		wantCode(t, s.DeleteAction(ctx, "chef", "show-recipe-card"), model.ErrActionNotFound)
		_, err = s.GetAction(ctx, "chef", "show-recipe-card")
		wantCode(t, err, model.ErrActionNotFound)
		_, err = s.ListActions(ctx, "nobody")
		wantCode(t, err, model.ErrUIDNotFound)
	})
}

// A one-to-one conversation with an agent is listed while the agent is enabled, as the user
// directory lists the agent: a disabled agent's conversation would open onto a 404.
func TestConversationsWithDisabledAgentsAreHidden(t *testing.T) {
	each(t, func(t *testing.T, s Store) {
		users(t, s, "alice", "bob")
		c := chef()
		c.Enabled = true
		if _, _, err := s.PutAgent(ctx, c, nil); err != nil {
			t.Fatal(err)
		}
		send(t, s, text("alice", "chef", model.ReceiverUser, "hi chef"))
		send(t, s, text("alice", "bob", model.ReceiverUser, "hi bob"))
		withs := func() []string {
			var out []string
			for _, cv := range must[Page[model.Conversation]](t)(s.ListConversations(ctx, "alice", ConversationQuery{})).Items {
				out = append(out, cv.With)
			}
			return out
		}
		if got := strings.Join(withs(), ","); got != "bob,chef" {
			t.Errorf("enabled: %s", got)
		}
		must[model.AgentConfig](t)(s.SetAgentEnabled(ctx, "chef", false))
		if got := strings.Join(withs(), ","); got != "bob" {
			t.Errorf("disabled: %s", got)
		}
		must[model.AgentConfig](t)(s.SetAgentEnabled(ctx, "chef", true))
		if got := strings.Join(withs(), ","); got != "bob,chef" {
			t.Errorf("enabled again: %s", got)
		}
	})
}
