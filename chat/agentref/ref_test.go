package agentref

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestParseRef(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	for _, tc := range []struct {
		ref, ns, name string
		// wantErr is part of the message; "" means the reference is valid.
		wantErr string
	}{
		{ref: "default/chef", ns: "default", name: "chef"},
		{ref: "team-1/chef.v2-beta", ns: "team-1", name: "chef.v2-beta"},
		{ref: "0/1", ns: "0", name: "1"},
		{ref: long(63) + "/" + long(253), ns: long(63), name: long(253)},
		{ref: "", wantErr: "agent reference is empty: want namespace/name"},
		{ref: "chef", wantErr: `failed to parse agent reference "chef": no namespace: want namespace/name, e.g. default/chef`},
		{ref: "default/", wantErr: "the name is empty"},
		{ref: "/chef", wantErr: "the namespace is empty"},
		{ref: "/", wantErr: "the namespace is empty"},
		{ref: "a/b/c", wantErr: `more than one "/"`},
		{ref: "https://chef.example.com/api/agents/chef/ag-ui", wantErr: "this is a URL; an agent reference is namespace/name"},
		{ref: "Default/chef", wantErr: `namespace "Default" is not a DNS-1123 label`},
		{ref: "de.fault/chef", wantErr: `namespace "de.fault" is not a DNS-1123 label`},
		{ref: long(64) + "/chef", wantErr: "must be no more than 63 characters"},
		{ref: "default/Chef", wantErr: `name "Chef" is not a DNS-1123 subdomain`},
		{ref: "default/che_f", wantErr: `name "che_f" is not a DNS-1123 subdomain`},
		{ref: "default/-chef", wantErr: "is not a DNS-1123 subdomain"},
		{ref: "default/" + long(254), wantErr: "must be no more than 253 characters"},
		{ref: " default/chef", wantErr: `namespace " default" is not a DNS-1123 label`},
		{ref: "default/chef\n", wantErr: "is not a DNS-1123 subdomain"},
	} {
		ns, name, err := ParseRef(tc.ref)
		switch {
		case tc.wantErr == "" && (err != nil || ns != tc.ns || name != tc.name):
			t.Errorf("ParseRef(%q) = %q, %q, %v; want %q, %q", tc.ref, ns, name, err, tc.ns, tc.name)
		case tc.wantErr != "" && (!errors.Is(err, ErrInvalidRef) || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("ParseRef(%q) error %v; want ErrInvalidRef containing %q", tc.ref, err, tc.wantErr)
		}
	}
}

func TestStaticResolver(t *testing.T) {
	r := StaticResolver{
		"default/chef":   "http://127.0.0.1:4111/api/agents/chef/",
		"default/idle":   "",
		"default/broken": "ftp://127.0.0.1/api/agents/broken",
	}
	ctx := context.Background()
	for _, tc := range []struct {
		ref     string
		route   Route
		want    string
		kind    error
		wantErr string
	}{
		{ref: "default/chef", want: "http://127.0.0.1:4111/api/agents/chef/ag-ui"},
		{ref: "default/chef", route: RouteGenerate, want: "http://127.0.0.1:4111/api/agents/chef/generate"},
		{ref: "default/chef", route: RouteA2A, want: "http://127.0.0.1:4111/a2a/chef"},
		{ref: "default/other", kind: ErrAgentNotFound, wantErr: "agent default/other not found"},
		{ref: "default/idle", kind: ErrAgentNotReady, wantErr: "agent default/idle is not ready (EndpointPending)"},
		{ref: "default/broken", kind: ErrInvalidEndpoint, wantErr: `failed to use the in-cluster endpoint "ftp://127.0.0.1/api/agents/broken" of agent default/broken`},
		{ref: "chef", kind: ErrInvalidRef, wantErr: "no namespace"},
	} {
		got, err := r.Resolve(ctx, tc.ref, tc.route)
		switch {
		case tc.kind == nil && (err != nil || got != tc.want):
			t.Errorf("Resolve(%q, %v) = %q, %v; want %q", tc.ref, tc.route, got, err, tc.want)
		case tc.kind != nil && (!errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("Resolve(%q) error %v; want %v containing %q", tc.ref, err, tc.kind, tc.wantErr)
		}
	}
	// The kinds are distinct, so a caller can tell a configuration error from a cluster state.
	if _, err := r.Resolve(ctx, "default/other", RouteAGUI); errors.Is(err, ErrAgentNotReady) || errors.Is(err, ErrInvalidRef) {
		t.Errorf("not found also matches another kind: %v", err)
	}
}
