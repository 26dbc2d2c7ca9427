package jwtsign

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/platform/jwtauth"
)

const issuer = "https://chat.example.com/chat/v1"

func openStore(t *testing.T, key []byte) store.Store {
	t.Helper()
	st, err := store.OpenWith(context.Background(), "file:"+filepath.Join(t.TempDir(), "chat.db"), store.Options{HeadersKey: key})
	testutil.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// keysServer serves s's key set as the chat's route does.
func keysServer(t *testing.T, s *Signer) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		set, err := s.KeySet(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_ = json.NewEncoder(w).Encode(set)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestSignedTokensVerify: a token the chat signs verifies with go-oidc against the chat's key
// set (issuer, audience, subject, conversation); a second replica on the same store signs with
// the same key; rotation signs with a new key while the old one stays published.
func TestSignedTokensVerify(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, bytes.Repeat([]byte{7}, 32))
	s, err := New(ctx, st, issuer, 0)
	testutil.NoError(t, err)
	v, err := jwtauth.New(jwtauth.Config{Issuer: issuer, JWKSURL: keysServer(t, s), Audiences: []string{"https://agents.example.com/chef"}}, http.DefaultClient)
	testutil.NoError(t, err)
	tok, err := s.Sign(ctx, Person{UID: "alice"}, "https://agents.example.com/chef", "user:alice:chef")
	testutil.NoError(t, err)
	caller, err := v.Verify(ctx, tok)
	if err != nil || caller.Subject != "alice" || caller.Issuer != issuer {
		t.Fatalf("verify: %+v %v", caller, err)
	}
	var claims map[string]any
	testutil.NoError(t, json.Unmarshal(decodeSegment(t, tok, 1), &claims))
	if claims[ConversationClaim] != "user:alice:chef" || claims["exp"].(float64)-claims["iat"].(float64) != TokenTTL.Seconds() {
		t.Errorf("claims %v", claims)
	}
	if !strings.Contains(string(decodeSegment(t, tok, 0)), `"ES256"`) {
		t.Errorf("header %s", decodeSegment(t, tok, 0))
	}

	// The same person, agent and conversation get the same token for half its life (agents
	// remember verified tokens); another conversation gets its own.
	if again, _ := s.Sign(ctx, Person{UID: "alice"}, "https://agents.example.com/chef", "user:alice:chef"); again != tok {
		t.Error("a second call in the same conversation signed a new token")
	}
	if other, _ := s.Sign(ctx, Person{UID: "alice"}, "https://agents.example.com/chef", "group:kitchen"); other == tok {
		t.Error("another conversation got the same token")
	}

	// A person who signed in through an identity provider: the token names that account.
	sso, err := s.Sign(ctx, Person{UID: "sso-abc", ProviderIssuer: "https://idp.example.com", ProviderSubject: "248289761001"}, "https://agents.example.com/chef", "")
	testutil.NoError(t, err)
	var ssoClaims map[string]any
	testutil.NoError(t, json.Unmarshal(decodeSegment(t, sso, 1), &ssoClaims))
	if ssoClaims["sub"] != "sso-abc" || ssoClaims[ProviderIssuerClaim] != "https://idp.example.com" || ssoClaims[ProviderSubjectClaim] != "248289761001" {
		t.Errorf("claims of a provider's user: %v", ssoClaims)
	}
	if _, ok := claims[ProviderSubjectClaim]; ok {
		t.Errorf("a local user's token names a provider account: %v", claims)
	}

	replica, err := New(ctx, st, issuer, 0)
	testutil.NoError(t, err)
	a, _ := s.KeySet(ctx)
	b, _ := replica.KeySet(ctx)
	if len(a.Keys) != 1 || len(b.Keys) != 1 || a.Keys[0].KeyID != b.Keys[0].KeyID {
		t.Fatalf("replicas publish %v and %v", a.Keys, b.Keys)
	}

	// Rotation: every refresh is due and every key is too old. A new key is published before it
	// signs: the next token still comes from the first key.
	s.rotateEvery, s.reload = 1, 0
	held, err := s.Sign(ctx, Person{UID: "bob"}, "https://agents.example.com/chef", "c-held")
	testutil.NoError(t, err)
	s.rotateEvery = time.Hour // no more rotations while the key set is read
	set, _ := s.KeySet(ctx)
	if len(set.Keys) < 2 || set.Keys[0].KeyID == a.Keys[0].KeyID || kid(t, held) != a.Keys[0].KeyID {
		t.Fatalf("after rotation the key set is %v and the token's key %s", set.Keys, kid(t, held))
	}
	// Once published long enough (here: at once), the new key signs; both verify.
	s.publish = 0
	second, err := s.Sign(ctx, Person{UID: "bob"}, "https://agents.example.com/chef", "c-second")
	testutil.NoError(t, err)
	if kid(t, second) != set.Keys[0].KeyID {
		t.Fatalf("the new key %s does not sign (%s did)", set.Keys[0].KeyID, kid(t, second))
	}
	fresh, err := jwtauth.New(jwtauth.Config{Issuer: issuer, JWKSURL: keysServer(t, s), Audiences: []string{"https://agents.example.com/chef"}}, http.DefaultClient)
	testutil.NoError(t, err)
	for _, tk := range []string{tok, second} {
		if _, err := fresh.Verify(ctx, tk); err != nil {
			t.Errorf("a token of the published key %s: %v", kid(t, tk), err)
		}
	}
	s.rotateEvery = 1
	for i := range 5 {
		_, err = s.Sign(ctx, Person{UID: "bob"}, "https://agents.example.com/chef", fmt.Sprint("c-", i))
		testutil.NoError(t, err)
	}
	if set, _ := s.KeySet(ctx); len(set.Keys) != published {
		t.Errorf("the key set holds %d keys, want the newest %d", len(set.Keys), published)
	}
}

func kid(t *testing.T, tok string) string {
	var h struct {
		Kid string `json:"kid"`
	}
	testutil.NoError(t, json.Unmarshal(decodeSegment(t, tok, 0), &h))
	return h.Kid
}

// TestNoHeadersKey: without the headers key there is nowhere safe to keep a private key.
func TestNoHeadersKey(t *testing.T) {
	if _, err := New(context.Background(), openStore(t, nil), issuer, 0); err == nil || !strings.Contains(err.Error(), "headers key") {
		t.Fatalf("without a headers key: %v", err)
	}
}

func decodeSegment(t *testing.T, tok string, i int) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[i])
	testutil.NoError(t, err)
	return b
}
