package api

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

// TestInvitations: an admin invites a person (created when new) and changes roles; the person
// checks the code, chooses a password with it (once) and signs in with it from then on; wrong
// passwords, used codes and unknown people are refused alike, and no code or password reaches
// the log.
func TestInvitations(t *testing.T) {
	e := newEnv(t, stores(t)["sqlite"](t), Options{})
	e.expect(e.do("POST", "/users", keyAuth, map[string]any{"uid": "ada", "name": "Ada", "role": "admin"}), http.StatusCreated, "")
	admin := e.user2("ada")
	member := e.user("bob")

	type invited struct {
		Invitation model.Invitation
		Code       string
		User       model.User
	}
	invite := func(auth string, body map[string]any, status int, code string) invited {
		t.Helper()
		r := e.do("POST", "/invitations", auth, body)
		e.expect(r, status, code)
		var inv invited
		if status == http.StatusCreated {
			r.decode(t, &inv)
		}
		return inv
	}
	inv := invite(admin, map[string]any{"uid": "dave", "name": "Dave"}, http.StatusCreated, "")
	if inv.Code == "" || inv.User.UID != "dave" || inv.User.Kind != model.UserKindUser || inv.Invitation.CreatedBy != "ada" ||
		(inv.Invitation.ExpiresAt.Sub(inv.Invitation.CreatedAt)-DefaultInvitationTTL).Abs() > time.Minute {
		t.Fatalf("invitation %+v", inv)
	}
	invite(member, map[string]any{"uid": "carol", "name": "Carol"}, http.StatusForbidden, model.ErrPermissionDenied)
	invite(admin, map[string]any{"uid": "nameless"}, http.StatusBadRequest, model.ErrValidation)
	invite(admin, map[string]any{"uid": "dave", "expiresIn": 10}, http.StatusBadRequest, model.ErrValidation)

	check := e.do("POST", "/auth/invitation", "", map[string]string{"code": inv.Code})
	e.expect(check, http.StatusOK, "")
	if !strings.Contains(string(check.body), `"uid":"dave"`) {
		t.Errorf("the invitation's person: %s", check.body)
	}
	e.expect(e.do("POST", "/auth/invitation/accept", "", map[string]string{"code": inv.Code, "password": "short"}), http.StatusBadRequest, model.ErrValidation)
	const password = "correct horse battery"
	r := e.do("POST", "/auth/invitation/accept", "", map[string]string{"code": inv.Code, "password": password})
	e.expect(r, http.StatusOK, "")
	var s tokenResponse
	r.decode(t, &s)
	if s.User == nil || s.User.UID != "dave" || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("accepted: %s", r.body)
	}
	e.expect(e.do("GET", "/me", s.AuthToken, nil), http.StatusOK, "")
	e.expect(e.do("POST", "/auth/invitation/accept", "", map[string]string{"code": inv.Code, "password": "another password"}), http.StatusNotFound, model.ErrInvitationInvalid)
	e.expect(e.do("POST", "/auth/invitation", "", map[string]string{"code": "made-up"}), http.StatusNotFound, model.ErrInvitationInvalid)

	signIn := func(uid, pw string) resp {
		return e.do("POST", "/auth/password", "", map[string]string{"uid": uid, "password": pw})
	}
	e.expect(signIn("dave", password), http.StatusOK, "")
	wrong, nobody := signIn("dave", "wrong password"), signIn("nobody", password)
	e.expect(wrong, http.StatusUnauthorized, model.ErrBadCredentials)
	e.expect(nobody, http.StatusUnauthorized, model.ErrBadCredentials)
	if string(wrong.body) != string(nobody.body) {
		t.Errorf("a wrong password and an unknown uid answer differently: %s / %s", wrong.body, nobody.body)
	}
	e.expect(signIn("bob", password), http.StatusUnauthorized, model.ErrBadCredentials) // bob has no password

	// Roles: an admin makes dave an admin, who may then invite; not one's own, not an agent's.
	setRole := func(auth, uid, role string, status int, code string) {
		t.Helper()
		e.expect(e.do("PUT", "/users/"+uid+"/role", auth, map[string]any{"role": role}), status, code)
	}
	setRole(member, "dave", "admin", http.StatusForbidden, model.ErrPermissionDenied)
	setRole(admin, "dave", "admin", http.StatusOK, "")
	invite(s.AuthToken, map[string]any{"uid": "erin", "name": "Erin", "expiresIn": 3600}, http.StatusCreated, "")
	setRole(admin, "ada", "", http.StatusBadRequest, model.ErrValidation)
	setRole(keyAuth, "dave", "", http.StatusOK, "")
	invite(s.AuthToken, map[string]any{"uid": "frank", "name": "Frank"}, http.StatusForbidden, model.ErrPermissionDenied)
	e.expect(e.do("POST", "/users", keyAuth, map[string]any{"uid": "helper", "name": "Helper", "kind": "agent"}), http.StatusCreated, "")
	setRole(admin, "helper", "admin", http.StatusBadRequest, model.ErrValidation)
	invite(admin, map[string]any{"uid": "helper"}, http.StatusBadRequest, model.ErrValidation)

	// Deactivated: no invitation, no password sign-in.
	e.expect(e.do("POST", "/users/dave/deactivate", admin, nil), http.StatusOK, "")
	e.expect(signIn("dave", password), http.StatusForbidden, model.ErrUserDeactivated)
	invite(admin, map[string]any{"uid": "dave"}, http.StatusForbidden, model.ErrUserDeactivated)

	if logs := e.logs.String(); strings.Contains(logs, inv.Code) || strings.Contains(logs, password) {
		t.Error("an invitation code or a password is in the log")
	}
}
