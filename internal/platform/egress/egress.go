// Package egress guards outbound connections whose destination someone other than the
// operator can choose: an HTTP tool's URL, an agent's Deployment URL typed by a chat admin.
// The check runs on the address a socket is about to connect to, after DNS resolution, so a
// name that resolves (or re-resolves: DNS rebinding) to a refused address is caught whatever
// the URL said.
package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// metadataAddrs are cloud metadata services outside the link-local ranges: AWS's IPv6
// endpoint and Alibaba Cloud's. (169.254.169.254, used by AWS, GCP, Azure and others, and
// what metadata.google.internal resolves to, are link-local.)
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("fd00:ec2::254"),
	netip.MustParseAddr("100.100.100.200"),
}

// metadataHosts are metadata service names, refused before any lookup so that a proxy (which
// resolves names itself, out of reach of the dial check) is not asked to reach them.
var metadataHosts = []string{"metadata.google.internal", "metadata.goog"}

// nat64Prefix embeds IPv4 addresses in IPv6 (RFC 6052); 64:ff9b::a9fe:a9fe is 169.254.169.254.
var nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")

// internalPrefixes are addresses of this machine, its networks and its cluster: RFC 1918, the
// shared address space (CGNAT, 100.64/10), IPv6 unique local addresses, and the benchmarking
// range 198.18/15 (test clusters). Loopback and unspecified addresses are checked apart.
var internalPrefixes = []netip.Prefix{
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("fc00::/7"),
}

// unmap turns IPv4-mapped and NAT64 addresses into the IPv4 address they carry.
func unmap(a netip.Addr) netip.Addr {
	a = a.Unmap()
	if a.Is6() && nat64Prefix.Contains(a) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	return a
}

// LinkLocalOrMetadata reports whether a is link-local or a cloud metadata address.
func LinkLocalOrMetadata(a netip.Addr) bool {
	a = unmap(a)
	if a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() {
		return true
	}
	for _, m := range metadataAddrs {
		if a == m {
			return true
		}
	}
	return false
}

// Internal reports whether a is loopback, unspecified, multicast, broadcast or in a private,
// shared or test range: an address inside the operator's networks rather than the internet.
func Internal(a netip.Addr) bool {
	a = unmap(a)
	if a.IsLoopback() || a.IsUnspecified() || a.IsMulticast() || a == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return true
	}
	for _, p := range internalPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// MetadataHost reports whether a URL host (without port) is a link-local or metadata literal
// address or a metadata service name.
func MetadataHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return LinkLocalOrMetadata(a)
	}
	for _, h := range metadataHosts {
		if host == h {
			return true
		}
	}
	return false
}

// Category says why an address was refused, without naming it.
type Category string

const (
	// CategoryMetadata: link-local or a cloud metadata service, never allowed.
	CategoryMetadata Category = "link-local or cloud metadata address"
	// CategoryInternal: loopback, private or otherwise internal, allowed only by Policy.Allow.
	CategoryInternal Category = "internal address (loopback or private network)"
	// CategoryDenied: an address the operator's policy names (the cluster's API server).
	CategoryDenied Category = "the cluster's API server"
)

// RefusedError is a connection the policy refused. Error() names the address (for logs);
// Category is what may be shown to whoever chose the URL.
type RefusedError struct {
	Addr     netip.Addr
	Host     string // a metadata service name, refused before any lookup
	Category Category
}

func (e *RefusedError) Error() string {
	if e.Host != "" {
		return fmt.Sprintf("refusing to connect to %s: %s", e.Host, e.Category)
	}
	return fmt.Sprintf("refusing to connect to %s: %s", e.Addr, e.Category)
}

// Policy decides which addresses may be reached. The zero Policy refuses link-local, metadata
// and internal addresses: only the internet.
type Policy struct {
	// AllowLinkLocal lets link-local and metadata addresses through (never the default).
	AllowLinkLocal bool
	// AllowInternal lets every internal address through (in-cluster calls the operator set up).
	AllowInternal bool
	// Allow lists the internal networks that may be reached when AllowInternal is false
	// (e.g. 127.0.0.0/8 for agentry dev, or the cluster's Service range).
	Allow []netip.Prefix
	// Deny lists addresses refused whatever else allows them (the cluster's API server).
	Deny []netip.Addr
}

// Check returns a *RefusedError when a may not be reached.
func (p Policy) Check(a netip.Addr) error {
	a = unmap(a)
	for _, d := range p.Deny {
		if unmap(d) == a {
			return &RefusedError{Addr: a, Category: CategoryDenied}
		}
	}
	if LinkLocalOrMetadata(a) {
		if p.AllowLinkLocal {
			return nil
		}
		return &RefusedError{Addr: a, Category: CategoryMetadata}
	}
	if !Internal(a) || p.AllowInternal {
		return nil
	}
	for _, n := range p.Allow {
		if n.Contains(a) {
			return nil
		}
	}
	return &RefusedError{Addr: a, Category: CategoryInternal}
}

// Control is a net.Dialer Control function applying p to the address being dialled.
func (p Policy) Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("failed to parse dial address %q: %w", address, err)
	}
	return p.Check(ap.Addr())
}

// Dialer is a dialer that applies p.
func (p Policy) Dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: p.Control}
}

// NoRedirects makes a client return a 3xx as it is: following one would send the request's
// headers (credentials) wherever the answer points, past the check of the first URL.
func NoRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// Client is an HTTP client that applies p to every connection, follows no redirect and uses
// no proxy (a proxy would resolve and connect on its own, out of reach of the check).
func (p Policy) Client(dialTimeout time.Duration) *http.Client {
	d := p.Dialer(dialTimeout)
	t := &http.Transport{
		DialContext: func(ctx context.Context, network, address string) (net.Conn, error) {
			if host, _, err := net.SplitHostPort(address); err == nil && !p.AllowLinkLocal && MetadataHost(host) {
				return nil, &RefusedError{Host: host, Category: CategoryMetadata}
			}
			return d.DialContext(ctx, network, address)
		},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   dialTimeout,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{Transport: t, CheckRedirect: NoRedirects}
}

// Refused returns the *RefusedError inside err, if any.
func Refused(err error) (*RefusedError, bool) {
	var re *RefusedError
	ok := errors.As(err, &re)
	return re, ok
}
