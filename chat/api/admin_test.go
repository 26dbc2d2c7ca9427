package api

import (
	"net/http"
	"testing"

	"github.com/agentry-dev/agentry/chat/model"
)

// TestAdminRole: a user whose role is admin configures agents with its bearer token, as the
// REST API key does; other users get 403; nobody but the API key gives the role.
func TestAdminRole(t *testing.T) {
	for name, open := range keyedStores() {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, open(t), Options{AuthKey: "dev-auth-key"})
			alice := e.user("alice")
			e.expect(e.do(http.MethodPost, "/users", keyAuth, map[string]any{"uid": "root", "name": "Root", "role": RoleAdmin}), http.StatusCreated, "")
			root := e.user2("root")

			// The admin's token reaches every agent route.
			e.expect(e.do("PUT", "/agents/chef", root, chefBody("https://chef.example.com/agent")), http.StatusCreated, "")
			e.expect(e.do("GET", "/agents", root, nil), http.StatusOK, "")
			e.expect(e.do("GET", "/agents/chef", root, nil), http.StatusOK, "")
			e.expect(e.do("POST", "/agents/chef/enable", root, nil), http.StatusOK, "")
			e.expect(e.do("POST", "/agents/chef/disable", root, nil), http.StatusOK, "")
			action := map[string]any{"displayName": "Set theme", "description": "Switches the theme.", "parameters": map[string]any{"type": "object", "properties": map[string]any{}}}
			e.expect(e.do("PUT", "/agents/chef/actions/theme", root, action), http.StatusCreated, "")
			e.expect(e.do("GET", "/agents/chef/actions", root, nil), http.StatusOK, "")
			e.expect(e.do("GET", "/agents/chef/actions/theme", root, nil), http.StatusOK, "")
			e.expect(e.do("DELETE", "/agents/chef/actions/theme", root, nil), http.StatusNoContent, "")

			// A user without the role: 403 on every agent route; a bad token stays 401.
			for _, rt := range []struct{ method, path string }{
				{"GET", "/agents"}, {"PUT", "/agents/chef"}, {"GET", "/agents/chef"}, {"DELETE", "/agents/chef"},
				{"POST", "/agents/chef/enable"}, {"POST", "/agents/chef/disable"}, {"POST", "/agents/chef/test"},
				{"GET", "/agents/chef/actions"}, {"PUT", "/agents/chef/actions/x"}, {"GET", "/agents/chef/actions/x"},
				{"DELETE", "/agents/chef/actions/x"}, {"PUT", "/ai/assistant"}, {"DELETE", "/ai/assistant"},
			} {
				e.expect(e.do(rt.method, rt.path, alice, chefBody("https://chef.example.com/agent")), http.StatusForbidden, model.ErrPermissionDenied)
				e.expect(e.do(rt.method, rt.path, "not-a-token", nil), http.StatusUnauthorized, model.ErrUnauthenticated)
			}
			// Admin routes that do not concern agents stay with the API key.
			e.expect(e.do("GET", "/moderation/rules", root, nil), http.StatusUnauthorized, model.ErrAPIKeyInvalid)
			e.expect(e.do("PUT", "/users/alice", root, map[string]any{"name": "A"}), http.StatusUnauthorized, model.ErrAPIKeyInvalid)
			e.expect(e.do("DELETE", "/agents/chef", root, nil), http.StatusNoContent, "")

			// Nobody gives themselves the role: updating a user is the API key's, and the Auth
			// Key (development) creates users but not admins.
			e.expect(e.do("PUT", "/users/alice", alice, map[string]any{"role": RoleAdmin}), http.StatusUnauthorized, model.ErrAPIKeyInvalid)
			e.expect(e.do("PUT", "/users/alice", "", map[string]any{"role": RoleAdmin}, "authkey", "dev-auth-key"), http.StatusUnauthorized, model.ErrAPIKeyInvalid)
			e.expect(e.do("POST", "/users", "", map[string]any{"uid": "mallory", "name": "Mallory", "role": RoleAdmin}, "authkey", "dev-auth-key"), http.StatusUnauthorized, model.ErrAPIKeyInvalid)
			e.expect(e.do("POST", "/users", "", map[string]any{"uid": "bob", "name": "Bob", "role": "user"}, "authkey", "dev-auth-key"), http.StatusCreated, "")
			r := e.do("GET", "/me", alice, nil)
			var me model.User
			r.decode(t, &me)
			if me.Role == RoleAdmin {
				t.Fatalf("alice became an admin: %s", r.body)
			}
			e.expect(e.do("GET", "/agents", alice, nil), http.StatusForbidden, model.ErrPermissionDenied)
			// The API key may give and take the role.
			e.expect(e.do("PUT", "/users/alice", keyAuth, map[string]any{"role": RoleAdmin}), http.StatusOK, "")
			e.expect(e.do("GET", "/agents", alice, nil), http.StatusOK, "")
			e.expect(e.do("PUT", "/users/alice", keyAuth, map[string]any{"role": "user"}), http.StatusOK, "")
			e.expect(e.do("GET", "/agents", alice, nil), http.StatusForbidden, model.ErrPermissionDenied)

			// The Auth Key (a client-side development key) signs users in, but not admins:
			// otherwise whoever holds it could configure agents.
			e.expect(e.do("POST", "/login", "", map[string]any{"uid": "root", "authKey": "dev-auth-key"}), http.StatusForbidden, model.ErrPermissionDenied)
			e.expect(e.do("POST", "/login", "", map[string]any{"uid": "bob", "authKey": "dev-auth-key"}), http.StatusOK, "")
		})
	}
}

// TestAuthKeyAdminsInDev: agentry dev (a loopback playground) lets the Auth Key sign its admin
// in, and that token configures agents.
func TestAuthKeyAdminsInDev(t *testing.T) {
	e := newEnv(t, keyedStores()["sqlite"](t), Options{AuthKey: "dev-auth-key", AuthKeyAdmins: true})
	e.expect(e.do(http.MethodPost, "/users", keyAuth, map[string]any{"uid": "root", "name": "Root", "role": RoleAdmin}), http.StatusCreated, "")
	e.expect(e.do("GET", "/agents", e.login("root", "dev-auth-key"), nil), http.StatusOK, "")
}
