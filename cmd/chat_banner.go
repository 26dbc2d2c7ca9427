//go:build !agentry_runtime

package cmd

import (
	"fmt"
	"io"
	"net"
	"strings"

	chatapi "github.com/agentry-dev/agentry/chat/api"
	webapp "github.com/agentry-dev/agentry/ui/apps/web"
)

// chatBanner prints, once the chat listens, where to open it and the next step for its first
// admin, in the words of the flags it was started with. It holds no secret: the API key is
// named by its file or variable, never printed.
func chatBanner(out io.Writer, o *chatOptions, addr net.Addr, storage string, hasAPIKey bool) {
	if out == nil {
		return
	}
	base := "http://" + displayAddr(addr)
	if o.issuerURL != "" {
		base = strings.TrimSuffix(strings.TrimRight(o.issuerURL, "/"), chatapi.Prefix)
	}
	fmt.Fprintf(out, "\n  Agentry chat: %s%s (storage %s, media %s)\n", base, chatapi.Prefix, storage, o.mediaDir)
	switch {
	case !o.web:
		fmt.Fprintf(out, "  The web app is off (--web=false).\n")
	case !webapp.Built():
		fmt.Fprintf(out, "  The web app is not built into this binary: run make build.\n")
	default:
		fmt.Fprintf(out, "  ==> Open the web app: %s/\n", base)
	}
	key := `$AGENTRY_CHAT_API_KEY`
	if o.apiKeyFile != "" {
		key = "$(cat " + o.apiKeyFile + ")"
	}
	switch {
	case o.sso.issuer != "" && len(o.sso.adminGroups) > 0:
		fmt.Fprintf(out, "  First admin: sign in with %s as a member of %s.\n\n", o.sso.name, strings.Join(o.sso.adminGroups, " or "))
	case o.sso.issuer != "":
		fmt.Fprintf(out, "  First admin: sign in with %s, then make yourself admin with the REST API key:\n", o.sso.name)
		fmt.Fprintf(out, "    curl -X PUT %s%s/users/<your uid>/role -H \"apikey: %s\" -H 'Content-Type: application/json' -d '{\"role\":\"admin\"}'\n\n", base, chatapi.Prefix, key)
	case hasAPIKey:
		fmt.Fprintf(out, "  First admin: create an invitation with the REST API key, then open the link it gives:\n")
		fmt.Fprintf(out, "    curl -X POST %s%s/invitations -H \"apikey: %s\" -H 'Content-Type: application/json' -d '{\"uid\":\"admin\",\"name\":\"Admin\",\"role\":\"admin\"}'\n", base, chatapi.Prefix, key)
		fmt.Fprintf(out, "    → %s/#invite=<code from the answer>  (choose a password there; it works once, for 7 days)\n\n", base)
	default:
		fmt.Fprintf(out, "  Development login: any uid with the Auth Key (never in production).\n\n")
	}
}
