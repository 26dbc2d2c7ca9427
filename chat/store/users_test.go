package store

import (
	"crypto/sha256"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

var _ = cases(
	behaviour{"users: deactivating ends every token at once and refuses new ones until reactivated", func(t *testing.T, s Store) {
		users(t, s, "alice", "bob")
		h := func(tok string) []byte { sum := sha256.Sum256([]byte(tok)); return sum[:] }
		must[string](t)(s.CreateToken(ctx, "alice", h("phone"), time.Time{}))
		must[string](t)(s.CreateToken(ctx, "bob", h("bob"), time.Time{}))
		_, newest := must2(t)(s.Horizon(ctx))
		u := must[model.User](t)(s.SetDeactivated(ctx, "alice", true))
		if !u.Deactivated || !must[model.User](t)(s.GetUser(ctx, "alice")).Deactivated {
			t.Fatalf("deactivated: %+v", u)
		}
		_, err := s.TokenUser(ctx, h("phone"))
		wantCode(t, err, model.ErrUnauthenticated)
		_, err = s.CreateToken(ctx, "alice", h("new"), time.Time{})
		wantCode(t, err, model.ErrUserDeactivated)
		if ti, err := s.TokenUser(ctx, h("bob")); err != nil || ti.UID != "bob" {
			t.Errorf("bob's token went with alice: %v", err)
		}
		// One auth.revoked for every token of hers: the hub closes all her sockets (4001).
		evs := must[[]model.Event](t)(s.EventsSince(ctx, "alice", newest, 100))
		if len(evs) != 1 || evs[0].Type != model.EventTokensRevoked || string(evs[0].Data) != `{"tokenId":"*"}` {
			t.Errorf("events %+v", evs)
		}
		// Twice is no error and no second event.
		must[model.User](t)(s.SetDeactivated(ctx, "alice", true))
		if again := must[[]model.Event](t)(s.EventsSince(ctx, "alice", evs[0].Pos, 100)); len(again) != 0 {
			t.Errorf("deactivating twice: %+v", again)
		}
		// Reactivated, she signs in again; the old token stays revoked.
		if u := must[model.User](t)(s.SetDeactivated(ctx, "alice", false)); u.Deactivated {
			t.Fatalf("reactivated: %+v", u)
		}
		must[string](t)(s.CreateToken(ctx, "alice", h("new"), time.Time{}))
		if ti, err := s.TokenUser(ctx, h("new")); err != nil || ti.UID != "alice" {
			t.Errorf("after reactivation: %v", err)
		}
		_, err = s.TokenUser(ctx, h("phone"))
		wantCode(t, err, model.ErrUnauthenticated)
		_, err = s.SetDeactivated(ctx, "nobody", true)
		wantCode(t, err, model.ErrUIDNotFound)
		must[model.User](t)(s.CreateUser(ctx, model.User{UID: "helper", Name: "Helper", Kind: model.UserKindAgent}))
		_, err = s.SetDeactivated(ctx, "helper", true)
		wantCode(t, err, model.ErrValidation)
	}},
	behaviour{"sessions: an idle timeout ends a session nobody uses; a touch moves it, but never revives it", func(t *testing.T, s Store) {
		users(t, s, "alice")
		h := func(tok string) []byte { sum := sha256.Sum256([]byte(tok)); return sum[:] }
		before := time.Now().Add(-time.Second)
		id := must[string](t)(s.CreateSession(ctx, "alice", h("long"), time.Now().Add(time.Hour), time.Hour))
		ti := must[TokenInfo](t)(s.TokenUser(ctx, h("long")))
		if ti.ID != id || ti.Idle != time.Hour || ti.UsedAt.Before(before) {
			t.Fatalf("session %+v", ti)
		}
		wantCode(t, s.TouchToken(ctx, id), "")
		if again := must[TokenInfo](t)(s.TokenByID(ctx, id)); again.UID != "alice" || again.UsedAt.Before(ti.UsedAt) {
			t.Errorf("touched session %+v, was %+v", again, ti)
		}
		// A token without an idle timeout says so, and a touch leaves it alone.
		plain := must[string](t)(s.CreateToken(ctx, "alice", h("plain"), time.Time{}))
		wantCode(t, s.TouchToken(ctx, plain), "")
		if p := must[TokenInfo](t)(s.TokenByID(ctx, plain)); p.Idle != 0 || !p.UsedAt.IsZero() {
			t.Errorf("plain token %+v", p)
		}
		short := must[string](t)(s.CreateSession(ctx, "alice", h("short"), time.Time{}, 50*time.Millisecond))
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, err := s.TokenUser(ctx, h("short"))
			if model.CodeOf(err) == model.ErrUnauthenticated {
				break
			}
			if err != nil || time.Now().After(deadline) {
				t.Fatalf("idle session still live after 10 s: %v", err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		wantCode(t, s.TouchToken(ctx, short), "")
		_, err := s.TokenByID(ctx, short)
		wantCode(t, err, model.ErrUnauthenticated)
		_, err = s.CreateSession(ctx, "alice", h("neg"), time.Time{}, -time.Second)
		wantCode(t, err, model.ErrValidation)
	}},
	behaviour{"audiences: an agent's audience and a user's provider groups are kept", func(t *testing.T, s Store) {
		u := must[model.User](t)(s.CreateUser(ctx, model.User{UID: "erin", Name: "Erin", ProviderGroups: []string{"eng", "design"},
			ProviderIssuer: "https://idp.example.com", ProviderSubject: "248289761001"}))
		got := must[model.User](t)(s.GetUser(ctx, "erin"))
		if len(got.ProviderGroups) != 2 || got.ProviderGroups[1] != "design" {
			t.Fatalf("provider groups %q (created %+v)", got.ProviderGroups, u)
		}
		if got.ProviderIssuer != "https://idp.example.com" || got.ProviderSubject != "248289761001" {
			t.Fatalf("provider account %q %q", got.ProviderIssuer, got.ProviderSubject)
		}
		if b, _ := json.Marshal(got); strings.Contains(string(b), "248289761001") {
			t.Errorf("the provider account reaches clients: %s", b)
		}
		got.ProviderGroups = []string{"eng"}
		if up := must[model.User](t)(s.UpdateUser(ctx, got)); len(up.ProviderGroups) != 1 {
			t.Fatalf("updated provider groups %q", up.ProviderGroups)
		}
		if b, _ := json.Marshal(got); strings.Contains(string(b), "eng") {
			t.Errorf("provider groups reach clients: %s", b)
		}
		cfg := model.AgentConfig{AgentID: "chef", Provider: model.ProviderAGUI, Name: "Chef", DeploymentURL: "https://chef.example.com/agent", Audience: []string{"group:cooks", "idp:eng"}}
		_, _, err := s.PutAgent(ctx, cfg, nil)
		wantCode(t, err, "")
		a := must[model.AgentConfig](t)(s.GetAgent(ctx, "chef"))
		if len(a.Audience) != 2 || a.Audience[1] != "idp:eng" {
			t.Fatalf("audience %q", a.Audience)
		}
		ok, err := MayUseAgent(ctx, s, "erin", a.Audience)
		if !ok || err != nil {
			t.Errorf("erin holds idp:eng: %v %v", ok, err)
		}
		users(t, s, "bob")
		if ok, _ := MayUseAgent(ctx, s, "bob", a.Audience); ok {
			t.Error("bob is in no audience entry")
		}
		// With a second audience (a manifest's), erin must be in both.
		if ok, _ := MayUseAgent(ctx, s, "erin", a.Audience, []string{"bob"}); ok {
			t.Error("erin is not in the second audience")
		}
		if ok, _ := MayUseAgent(ctx, s, "bob", nil, []string{"bob"}); !ok {
			t.Error("bob is named by the only audience that is set")
		}
	}},
)
