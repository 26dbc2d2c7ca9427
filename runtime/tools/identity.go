package tools

import (
	"context"
	"net/http"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/platform/jwtauth"
)

// setCallerIdentity tells a tool who is asking, from the caller the agent verified (ctx): the
// subject in id.SubjectHeader, and the caller's token when the tool is one of its audiences.
// Without a verified caller nothing is sent, and a header of that name from a Secret is
// removed, so the tool never reads a subject nobody verified.
func setCallerIdentity(ctx context.Context, h http.Header, id *v1alpha1.CallerIdentity) {
	if id == nil {
		return
	}
	caller, verified := jwtauth.CallerFrom(ctx)
	if id.SubjectHeader != "" {
		h.Del(id.SubjectHeader)
		if verified {
			h.Set(id.SubjectHeader, caller.Subject)
		}
	}
	if id.TokenAudience != "" && verified {
		if tok, ok := caller.TokenFor(id.TokenAudience); ok {
			h.Set("Authorization", "Bearer "+tok)
		}
	}
}

// identityTransport adds the caller's identity to every request of an MCP server's client: the
// session is shared by every caller, so the identity comes from each call's context.
type identityTransport struct {
	base http.RoundTripper
	id   *v1alpha1.CallerIdentity
}

func (t identityTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	setCallerIdentity(r.Context(), r.Header, t.id)
	return t.base.RoundTrip(r)
}

// withCallerIdentity is c sending id's identity on every request (c itself without id).
func withCallerIdentity(c *http.Client, id *v1alpha1.CallerIdentity) *http.Client {
	if id == nil {
		return c
	}
	cc := *c
	base := cc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cc.Transport = identityTransport{base: base, id: id}
	return &cc
}
