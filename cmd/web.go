//go:build !agentry_runtime

package cmd

import (
	"context"

	"github.com/labstack/echo/v4"

	chatapi "github.com/agentry-dev/agentry/chat/api"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/oidc"
	"github.com/agentry-dev/agentry/chat/store"
	webapp "github.com/agentry-dev/agentry/ui/apps/web"
)

// devUsers are the users agentry dev seeds and the web app's development login offers.
var devUsers = []model.User{
	{UID: "alice", Name: "Alice", Role: "user", Kind: model.UserKindUser},
	{UID: "bob", Name: "Bob", Role: "user", Kind: model.UserKindUser},
	{UID: "carol", Name: "Carol", Role: "user", Kind: model.UserKindUser},
	{UID: "admin", Name: "Admin", Role: chatapi.RoleAdmin, Kind: model.UserKindUser},
}

// webConfig answers /app-config.json: the development login (with the seeded users that
// exist, as they are now) only when the server has an Auth Key; admins only when the Auth Key
// may sign them in (agentry dev).
func webConfig(st store.Users, appID, authKey string, authKeyAdmins bool, sso *oidc.Client) func(ctx context.Context) webapp.Config {
	return func(ctx context.Context) webapp.Config {
		cfg := webapp.Config{ChatPath: chatapi.Prefix, AppID: appID}
		if sso != nil {
			cfg.SSO = &webapp.SSO{Name: sso.ProviderName(), URL: chatapi.Prefix + "/auth/sso", LogoutURL: sso.EndSessionURL(sso.PostLogoutURL())}
		}
		if authKey == "" {
			return cfg
		}
		dl := &webapp.DevLogin{AuthKey: authKey, Users: []webapp.DevUser{}}
		for _, seed := range devUsers {
			u, err := st.GetUser(ctx, seed.UID)
			if err != nil || u.Kind != model.UserKindUser || (u.Role == chatapi.RoleAdmin && !authKeyAdmins) {
				continue
			}
			du := webapp.DevUser{UID: u.UID, Name: u.Name}
			if u.Role == chatapi.RoleAdmin {
				du.Role = chatapi.RoleAdmin
			}
			dl.Users = append(dl.Users, du)
		}
		cfg.DevLogin = dl
		return cfg
	}
}

// mountWeb serves the embedded web app at / and /app-config.json on e; e's own routes (the
// chat API, the runtime's /api, probes, metrics) keep precedence.
func mountWeb(st store.Users, appID, authKey string, authKeyAdmins bool, sso *oidc.Client) func(*echo.Echo) {
	return func(e *echo.Echo) {
		webapp.New(webapp.Options{Config: webConfig(st, appID, authKey, authKeyAdmins, sso)}).Register(e)
	}
}

// seedDevChat creates the playground's users and the public group general on a chat store
// that has no users yet, so data an operator changed is kept across restarts.
func seedDevChat(ctx context.Context, st store.Store) (bool, error) {
	page, err := st.ListUsers(ctx, store.UserQuery{Limit: 1, Kind: model.UserKindUser})
	if err != nil {
		return false, err
	}
	if len(page.Items) > 0 {
		return false, nil
	}
	for _, u := range devUsers {
		if _, err := st.CreateUser(ctx, u); err != nil {
			return false, err
		}
	}
	var members []model.Member
	for _, u := range devUsers {
		if u.UID != "admin" {
			members = append(members, model.Member{UID: u.UID, Scope: model.ScopeParticipant})
		}
	}
	_, err = st.CreateGroup(ctx, "admin", model.Group{GUID: "general", Name: "General", Type: model.GroupPublic}, members)
	return err == nil, err
}
