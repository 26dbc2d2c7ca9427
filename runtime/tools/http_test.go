package tools

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

// logBuffer collects log lines of a context logger.
type logBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (b *logBuffer) ctx() context.Context {
	l := funcr.New(func(prefix, args string) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.lines = append(b.lines, prefix+" "+args)
	}, funcr.Options{})
	return logr.NewContext(context.Background(), l)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.lines, "\n")
}

func compileHTTP(t *testing.T, url string, opts Options) *Tool {
	t.Helper()
	tool, errs := Compile(httpTool(url, 2*time.Second, "tool-headers"), opts)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return tool
}

var headerSecret = secrets.Static{"tool-headers": {"X-Api-Key": "k-secret-123"}}

func TestHTTPToolDoesNotFollowRedirects(t *testing.T) {
	var targetHits atomic.Int32
	var targetKey atomic.Value
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		targetHits.Add(1)
		targetKey.Store(r.Header.Get("X-Api-Key"))
		_, _ = w.Write([]byte(`{"temp": 1}`))
	}))
	defer target.Close()
	for _, code := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusMovedPermanently} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target.URL+"/latest/meta-data?token=abc", code)
			}))
			defer origin.Close()
			var logs logBuffer
			_, err := compileHTTP(t, origin.URL, Options{Secrets: headerSecret}).Call(logs.ctx(), json.RawMessage(`{"city":"Oslo"}`))
			want := fmt.Sprintf("the tool's endpoint answered a redirect (%d); redirects are not followed", code)
			if err == nil || err.Error() != want {
				t.Errorf("got error %v, want %q", err, want)
			}
			if n := targetHits.Load(); n != 0 {
				t.Errorf("the redirect target was called %d times (header %v)", n, targetKey.Load())
			}
			if !strings.Contains(logs.String(), target.URL+"/latest/meta-data") || strings.Contains(logs.String(), "token=abc") {
				t.Errorf("the log should name the Location without its query: %s", logs.String())
			}
		})
	}
}

func TestHTTPToolErrorBodyIsLoggedNotReturned(t *testing.T) {
	page := "Traceback at db-7.internal:5432 " + "k-secret-123 " + strings.Repeat("x", 4000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, page, http.StatusInternalServerError)
	}))
	defer srv.Close()
	var logs logBuffer
	_, err := compileHTTP(t, srv.URL, Options{Secrets: headerSecret}).Call(logs.ctx(), json.RawMessage(`{"city":"Oslo"}`))
	if err == nil || err.Error() != "the tool's endpoint answered 500" {
		t.Fatalf("got %v", err)
	}
	logged := logs.String()
	if !strings.Contains(logged, "db-7.internal") {
		t.Errorf("the body should be in the log: %s", logged)
	}
	if strings.Contains(logged, "k-secret-123") {
		t.Errorf("the Secret header value must be redacted from the log: %s", logged)
	}
	if len(logged) > 2*maxLoggedBody+500 {
		t.Errorf("the logged body should be truncated to about 1 KiB, the log has %d bytes", len(logged))
	}
}

func TestHTTPToolTransportErrorsAreGeneric(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testutil.Check(t, err)
	closed := "http://" + ln.Addr().String() + "/tool?key=q-secret"
	_ = ln.Close()
	var logs logBuffer
	_, err = compileHTTP(t, closed, Options{Secrets: headerSecret}).Call(logs.ctx(), json.RawMessage(`{"city":"Oslo"}`))
	if err == nil || err.Error() != msgUnreachable {
		t.Fatalf("got %v, want %q", err, msgUnreachable)
	}
	var ce *CallError
	if !errors.As(err, &ce) || !strings.Contains(ce.Detail(), ln.Addr().String()) {
		t.Errorf("the cause should keep the address for the log: %v", ce)
	}
	if l := logs.String(); !strings.Contains(l, ln.Addr().String()) || strings.Contains(l, "q-secret") {
		t.Errorf("the log should name the address but not the query: %s", l)
	}
}

func TestHTTPToolRefusesLinkLocalURLs(t *testing.T) {
	for _, u := range []string{"http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://metadata.google.internal./computeMetadata/v1/", "http://[::ffff:169.254.169.254]/"} {
		var logs logBuffer
		start := time.Now()
		_, err := compileHTTP(t, u, Options{Secrets: headerSecret}).Call(logs.ctx(), json.RawMessage(`{"city":"Oslo"}`))
		if err == nil || err.Error() != msgUnreachable {
			t.Errorf("%s: got %v", u, err)
		}
		var refused *EgressRefusedError
		if !errors.As(err, &refused) || !strings.Contains(logs.String(), AllowLinkLocalEnv) {
			t.Errorf("%s: want a refusal naming %s in the log, got %v / %s", u, AllowLinkLocalEnv, err, logs.String())
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: refusing took %v; it must not try to connect", u, d)
		}
	}
}

func TestDialControl(t *testing.T) {
	refused := []string{"169.254.169.254:80", "169.254.0.1:443", "[fe80::1]:80", "[fd00:ec2::254]:80", "[::ffff:169.254.169.254]:80", "[64:ff9b::a9fe:a9fe]:80", "100.100.100.200:80", "[ff02::1]:80"}
	allowed := []string{"127.0.0.1:80", "[::1]:80", "10.0.0.5:8080", "192.168.1.1:80", "8.8.8.8:443", "[fd00::1]:80", "100.100.100.201:80"}
	for _, a := range refused {
		var re *EgressRefusedError
		if err := dialControl("tcp", a, nil); !errors.As(err, &re) {
			t.Errorf("%s: want a refusal, got %v", a, err)
		}
	}
	for _, a := range allowed {
		if err := dialControl("tcp", a, nil); err != nil {
			t.Errorf("%s: want allowed, got %v", a, err)
		}
	}
}

// fakeDNS answers every A query with ip (and AAAA with nothing): what a rebinding attacker's
// name server does.
func fakeDNS(t *testing.T, ip netip.Addr) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	testutil.Check(t, err)
	t.Cleanup(func() { _ = pc.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			q := buf[:n]
			end := 12
			for end < n && q[end] != 0 {
				end += int(q[end]) + 1
			}
			end += 5 // the root label, QTYPE and QCLASS
			if end > n {
				continue
			}
			qtype := binary.BigEndian.Uint16(q[end-4:])
			resp := append([]byte{}, q[:end]...)
			binary.BigEndian.PutUint16(resp[2:], 0x8180) // response, recursion available
			binary.BigEndian.PutUint16(resp[6:], 0)
			binary.BigEndian.PutUint16(resp[8:], 0)
			binary.BigEndian.PutUint16(resp[10:], 0)
			if qtype == 1 {
				binary.BigEndian.PutUint16(resp[6:], 1)
				a := ip.As4()
				resp = append(resp, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, a[0], a[1], a[2], a[3])
			}
			_, _ = pc.WriteTo(resp, from)
		}
	}()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "udp", pc.LocalAddr().String())
	}}
}

func TestGuardedDialerChecksResolvedAddresses(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	d := guardedDialer(false)
	d.Resolver = fakeDNS(t, netip.MustParseAddr("169.254.169.254"))
	_, err := d.DialContext(ctx, "tcp", "innocent.example.test:80")
	var re *EgressRefusedError
	if !errors.As(err, &re) || re.Addr != "169.254.169.254" {
		t.Fatalf("a name resolving to the metadata address must be refused at dial time, got %v", err)
	}

	// Loopback (tests, sidecars) and private addresses (in-cluster Services) stay reachable.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testutil.Check(t, err)
	defer ln.Close()
	d.Resolver = fakeDNS(t, netip.MustParseAddr("127.0.0.1"))
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort("service.example.test", port))
	if err != nil {
		t.Fatalf("loopback must stay reachable: %v", err)
	}
	_ = conn.Close()
}

func TestAllowLinkLocalOption(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == AllowLinkLocalEnv {
				return v
			}
			return ""
		}
	}
	cases := []struct {
		opts Options
		want bool
	}{
		{Options{Getenv: env("")}, false},
		{Options{Getenv: env("true")}, true},
		{Options{Getenv: env(" TRUE ")}, true},
		{Options{Getenv: env("yes")}, false},
		{Options{Getenv: env("false"), AllowLinkLocal: true}, true},
	}
	for _, tc := range cases {
		if got := tc.opts.allowLinkLocal(); got != tc.want {
			t.Errorf("%+v: got %v", tc.opts.AllowLinkLocal, got)
		}
		tool := compileHTTP(t, "http://169.254.169.254/", tc.opts)
		h := tool.exec.(*httpExecutor)
		dial := h.client.Transport.(*http.Transport)
		if h.allowLinkLocal != tc.want || (h.client == sharedClients[1]()) != tc.want || dial.DialContext == nil {
			t.Errorf("%+v: executor allow=%v", tc.opts.AllowLinkLocal, h.allowLinkLocal)
		}
		if h.client.CheckRedirect == nil {
			t.Error("redirects must be refused with the option too")
		}
	}
}

func TestHTTPToolKeepsCallersClientSafe(t *testing.T) {
	base := &http.Client{Timeout: time.Minute}
	c := toolClient(base, false)
	if c == base || c.CheckRedirect == nil || base.CheckRedirect != nil || c.Timeout != time.Minute {
		t.Fatal("the caller's client must be copied, with redirects refused")
	}
	var re *EgressRefusedError
	if _, err := c.Transport.(*http.Transport).DialContext(context.Background(), "tcp", "169.254.169.254:80"); !errors.As(err, &re) {
		t.Errorf("the caller's default transport must get the dial check, got %v", err)
	}
}
