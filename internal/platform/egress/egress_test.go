package egress

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestPolicyCheck(t *testing.T) {
	zero := Policy{}
	local := Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	internal := Policy{AllowInternal: true, Deny: []netip.Addr{netip.MustParseAddr("10.96.0.1")}}
	cases := []struct {
		addr                 string
		zero, local, cluster Category // "" = allowed
	}{
		{"93.184.216.34", "", "", ""},
		{"2606:2800:220:1::1", "", "", ""},
		{"127.0.0.1", CategoryInternal, "", ""},
		{"::1", CategoryInternal, CategoryInternal, ""},
		{"::ffff:127.0.0.1", CategoryInternal, "", ""},
		{"0.0.0.0", CategoryInternal, CategoryInternal, ""},
		{"10.1.2.3", CategoryInternal, CategoryInternal, ""},
		{"172.20.0.1", CategoryInternal, CategoryInternal, ""},
		{"192.168.1.10", CategoryInternal, CategoryInternal, ""},
		{"100.64.0.1", CategoryInternal, CategoryInternal, ""},
		{"198.18.0.10", CategoryInternal, CategoryInternal, ""},
		{"fd12::1", CategoryInternal, CategoryInternal, ""},
		{"10.96.0.1", CategoryInternal, CategoryInternal, CategoryDenied},
		{"169.254.169.254", CategoryMetadata, CategoryMetadata, CategoryMetadata},
		{"::ffff:169.254.169.254", CategoryMetadata, CategoryMetadata, CategoryMetadata},
		{"64:ff9b::a9fe:a9fe", CategoryMetadata, CategoryMetadata, CategoryMetadata},
		{"fe80::1", CategoryMetadata, CategoryMetadata, CategoryMetadata},
		{"fd00:ec2::254", CategoryMetadata, CategoryMetadata, CategoryMetadata},
		{"100.100.100.200", CategoryMetadata, CategoryMetadata, CategoryMetadata},
	}
	for _, c := range cases {
		a := netip.MustParseAddr(c.addr)
		for _, pc := range []struct {
			p    Policy
			want Category
			name string
		}{{zero, c.zero, "zero"}, {local, c.local, "loopback allowed"}, {internal, c.cluster, "internal allowed"}} {
			err := pc.p.Check(a)
			re, refused := Refused(err)
			switch {
			case pc.want == "" && err != nil:
				t.Errorf("%s, %s: refused (%v), want allowed", c.addr, pc.name, err)
			case pc.want != "" && (!refused || re.Category != pc.want):
				t.Errorf("%s, %s: %v, want refused as %q", c.addr, pc.name, err, pc.want)
			}
		}
	}
	if !MetadataHost("metadata.google.internal.") || !MetadataHost("[fe80::1]") || MetadataHost("example.com") {
		t.Error("MetadataHost")
	}
}

// TestClientRefusesAfterResolution: a name that resolves to loopback is refused at dial time
// (the URL's host says nothing about it), and the client follows no redirect.
func TestClientRefusesAfterResolution(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/secret", http.StatusTemporaryRedirect)
			return
		}
		_, _ = w.Write([]byte("internal secret"))
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://localhost:"+port+"/", nil)
	_, err := Policy{}.Client(time.Second).Do(req)
	if re, ok := Refused(err); !ok || re.Category != CategoryInternal {
		t.Fatalf("localhost with the zero policy: %v, want refused as internal", err)
	}
	allowed := Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}}
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/redirect", nil)
	res, err := allowed.Client(time.Second).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusTemporaryRedirect {
		t.Errorf("status %d: the client followed a redirect", res.StatusCode)
	}
}
