package tools

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentry-dev/agentry/internal/platform/egress"
)

// AllowLinkLocalEnv, set to "true", lets HTTP tools reach link-local and cloud metadata
// addresses. The runtime is configured through the environment (OPENAI_BASE_URL,
// AGENTRY_MEMORY_URL), so this is too; Options.AllowLinkLocal does the same in code.
const AllowLinkLocalEnv = "AGENTRY_TOOLS_ALLOW_LINK_LOCAL"

// EgressRefusedError says which address was refused and how to allow it.
type EgressRefusedError struct{ Addr string }

func (e *EgressRefusedError) Error() string {
	return fmt.Sprintf("refusing to connect to %s: link-local and cloud metadata addresses are refused unless %s=true", e.Addr, AllowLinkLocalEnv)
}

// refusedAddr reports whether a is link-local or a cloud metadata address.
func refusedAddr(a netip.Addr) bool { return egress.LinkLocalOrMetadata(a) }

// refusedHost reports whether a URL host (without port) is a refused literal address or a
// metadata service name. The dial check is what counts; this only covers proxied requests.
func refusedHost(host string) bool { return egress.MetadataHost(host) }

// dialControl runs after the name is resolved and before connect(2), on the address the
// socket is about to connect to, so a name that resolves (or re-resolves, DNS rebinding) to a
// refused address is caught whatever the URL said.
func dialControl(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("failed to parse dial address %q: %w", address, err)
	}
	if refusedAddr(ap.Addr()) {
		return &EgressRefusedError{Addr: ap.Addr().String()}
	}
	return nil
}

// refuseRedirect makes the client return a 3xx as it is: following it would turn the POST into
// a GET to wherever the endpoint points (a metadata address, say), and send the tool's Secret
// headers along when the redirect stays on the same host.
func refuseRedirect(r *http.Request, via []*http.Request) error { return egress.NoRedirects(r, via) }

// guardedDialer is the dialer of HTTP tools; allow skips the address check.
func guardedDialer(allow bool) *net.Dialer {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	if !allow {
		d.Control = dialControl
	}
	return d
}

// guard installs the dialer on a transport that does its own dialing.
func guard(t *http.Transport, allow bool) *http.Transport {
	t.DialContext = guardedDialer(allow).DialContext
	return t
}

// Two shared clients (so tools share connection pools): refusing and allowing link-local.
var sharedClients = [2]func() *http.Client{
	sync.OnceValue(func() *http.Client { return newClient(nil, false) }),
	sync.OnceValue(func() *http.Client { return newClient(nil, true) }),
}

// toolClient returns the client HTTP tools use: base (or a default transport) with redirects
// never followed and, when its transport is a plain *http.Transport, the dial check. A base
// with another RoundTripper or its own dial functions keeps its dialing as it is.
func toolClient(base *http.Client, allow bool) *http.Client {
	if base == nil {
		if allow {
			return sharedClients[1]()
		}
		return sharedClients[0]()
	}
	return newClient(base, allow)
}

func newClient(base *http.Client, allow bool) *http.Client {
	c := &http.Client{}
	if base != nil {
		*c = *base
	}
	c.CheckRedirect = refuseRedirect
	switch t := c.Transport.(type) {
	case nil:
		def, ok := http.DefaultTransport.(*http.Transport)
		if !ok { // replaced by a test or an instrumentation library
			def = &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true}
		}
		c.Transport = guard(def.Clone(), allow)
	case *http.Transport:
		if t.DialContext == nil && t.Dial == nil && t.DialTLSContext == nil && t.DialTLS == nil {
			c.Transport = guard(t.Clone(), allow)
		}
	}
	return c
}

// allowLinkLocal is Options.AllowLinkLocal or the environment's AllowLinkLocalEnv; a value
// that is not a boolean leaves the check on.
func (o Options) allowLinkLocal() bool {
	if o.AllowLinkLocal {
		return true
	}
	v, err := strconv.ParseBool(strings.TrimSpace(o.getenv(AllowLinkLocalEnv)))
	return err == nil && v
}
