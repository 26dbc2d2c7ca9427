//go:build !agentry_runtime

package cmd

import (
	"net"
	"strings"
	"testing"
)

// TestChatBanner: the banner names where to open the chat and its first admin's next step, in
// the words of the flags; the API key is named by its file, never printed.
func TestChatBanner(t *testing.T) {
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	for _, tc := range []struct {
		name string
		o    chatOptions
		key  bool
		want []string
	}{
		{"API key file", chatOptions{apiKeyFile: "/srv/chat/api-key", mediaDir: "/srv/chat/media"}, true,
			[]string{"Agentry chat: http://127.0.0.1:8080/chat/v1 (storage postgres, media /srv/chat/media)", `curl -X POST http://127.0.0.1:8080/chat/v1/invitations -H "apikey: $(cat /srv/chat/api-key)"`, "http://127.0.0.1:8080/#invite=<code"}},
		{"public URL", chatOptions{issuerURL: "https://chat.example.com/chat/v1"}, true,
			[]string{"https://chat.example.com/chat/v1 (", `-H "apikey: $AGENTRY_CHAT_API_KEY"`}},
		{"provider with admin groups", chatOptions{sso: ssoFlags{issuer: "https://sso.example.com", name: "Acme", adminGroups: []string{"chat-admins"}}}, true,
			[]string{"First admin: sign in with Acme as a member of chat-admins."}},
		{"provider", chatOptions{sso: ssoFlags{issuer: "https://sso.example.com", name: "Acme"}}, true,
			[]string{"First admin: sign in with Acme, then make yourself admin", "/users/<your uid>/role"}},
		{"development", chatOptions{authKey: "dev-auth-key-0123456"}, false, []string{"Development login"}},
	} {
		var b strings.Builder
		chatBanner(&b, &tc.o, addr, "postgres", tc.key)
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: banner lacks %q:\n%s", tc.name, w, b.String())
			}
		}
		if strings.Contains(b.String(), "dev-auth-key-0123456") {
			t.Errorf("%s: the banner shows a key", tc.name)
		}
	}
}
