// Package httpserve is the HTTP layer the runtime (agentry serve), the chat service (agentry
// chat) and agentry dev share: the echo setup (echo.go), the request log and request ids
// (observe.go), the CORS policy (cors.go), liveness and readiness (probes.go), credentials
// compared in constant time (secret.go), and here what every server needs against slow or
// greedy clients: header, body and idle timeouts, and a cap on connections per client address.
// Rate limits live beside it in internal/platform/ratelimit.
package httpserve

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/agentry-dev/agentry/internal/platform/defaults"
)

// Defaults. A body (the largest is a media upload) must arrive within its timeout: a client
// trickling one byte every few seconds cannot hold a connection. An idle keep-alive connection
// is closed after IdleTimeout (longer than common load balancers' 60 s, so they close first).
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultBodyTimeout       = 30 * time.Second
	DefaultUploadTimeout     = 5 * time.Minute
	DefaultIdleTimeout       = 90 * time.Second
	DefaultMaxConnsPerIP     = 512
)

// Limits configure a server; zero fields take the defaults above, MaxConnsPerIP < 0 turns the
// cap off.
type Limits struct {
	ReadHeaderTimeout time.Duration
	BodyTimeout       time.Duration
	UploadTimeout     time.Duration
	IdleTimeout       time.Duration
	MaxConnsPerIP     int
	// Uploads says which requests are uploads (their body streams to disk with UploadTimeout
	// instead of being read up front); nil: none.
	Uploads func(*http.Request) bool
	// Timeout answers a request whose body did not arrive in time, in the service's error
	// shape; nil: 408 {"error": "…"} (the runtime's shape).
	Timeout func(w http.ResponseWriter, r *http.Request)
	// MaxBody is how much of a body is read up front (default 1 MiB, the services' JSON
	// limit): a longer one is handed on unread past that, for the handler's own limit to
	// answer 413, so a connection never makes the server buffer more.
	MaxBody int64
}

func (l Limits) withDefaults() Limits {
	defaults.Positive(&l.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	defaults.Positive(&l.BodyTimeout, DefaultBodyTimeout)
	defaults.Positive(&l.UploadTimeout, DefaultUploadTimeout)
	defaults.Positive(&l.IdleTimeout, DefaultIdleTimeout)
	defaults.Positive(&l.MaxBody, 1<<20)
	l.MaxConnsPerIP = cmp.Or(l.MaxConnsPerIP, DefaultMaxConnsPerIP)
	return l
}

// PerIP is the connection cap LimitPerIP takes: the default, or 0 (none) when turned off.
func (l Limits) PerIP() int {
	return max(l.withDefaults().MaxConnsPerIP, 0)
}

// Server is an http.Server for h with the limits' header and idle timeouts, and h wrapped so
// that each request's body must arrive within the body (or upload) timeout.
func Server(h http.Handler, l Limits) *http.Server {
	l = l.withDefaults()
	return &http.Server{Handler: Bodies(h, l), ReadHeaderTimeout: l.ReadHeaderTimeout, IdleTimeout: l.IdleTimeout}
}

// Bodies reads each request's body before the handler runs, under a read deadline of the body
// timeout, then clears the deadline. The deadline cannot simply stay for the handler's life: a
// read deadline passing while a handler streams (SSE, a WebSocket) ends the request's context.
// A body that does not arrive in time is answered 408. Uploads keep streaming, under the
// upload timeout.
func Bodies(h http.Handler, l Limits) http.Handler {
	l = l.withDefaults()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if l.Uploads != nil && l.Uploads(r) {
			_ = rc.SetReadDeadline(time.Now().Add(l.UploadTimeout))
			h.ServeHTTP(w, r)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			_ = rc.SetReadDeadline(time.Now().Add(l.BodyTimeout))
			b, err := io.ReadAll(io.LimitReader(r.Body, l.MaxBody+1))
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded) {
					w.Header().Set("Connection", "close")
					if l.Timeout != nil {
						l.Timeout(w, r)
						return
					}
					RequestTimeout(w, r)
					return
				}
				// The client went away mid-body: nobody is left to read an answer.
				w.Header().Set("Connection", "close")
				writeJSON(w, http.StatusBadRequest, `{"error":"the request body could not be read"}`)
				return
			}
			if int64(len(b)) > l.MaxBody {
				// Over the limit: the handler reads on (past the deadline) and refuses it.
				r.Body = struct {
					io.Reader
					io.Closer
				}{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
			} else {
				r.Body = io.NopCloser(bytes.NewReader(b))
			}
		}
		_ = rc.SetReadDeadline(time.Time{})
		h.ServeHTTP(w, r)
	})
}

// RequestTimeout is the default answer to a body that did not arrive in time: 408 in the
// runtime's error shape, {"error": "…"}.
func RequestTimeout(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusRequestTimeout, `{"error":"the request body did not arrive in time"}`)
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// LimitPerIP wraps ln so that each remote address holds at most n connections; one more is
// closed as soon as it is accepted. n < 1 returns ln as it is. Behind a proxy every client
// shares the proxy's address: raise n or turn it off there.
func LimitPerIP(ln net.Listener, n int) net.Listener {
	if n < 1 {
		return ln
	}
	return &perIP{Listener: ln, max: n, open: map[string]int{}}
}

type perIP struct {
	net.Listener
	max  int
	mu   sync.Mutex
	open map[string]int
}

func (l *perIP) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := hostOf(c.RemoteAddr())
		l.mu.Lock()
		if l.open[ip] >= l.max {
			l.mu.Unlock()
			_ = c.Close()
			continue
		}
		l.open[ip]++
		l.mu.Unlock()
		return &countedConn{Conn: c, release: func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.open[ip]--; l.open[ip] <= 0 {
				delete(l.open, ip)
			}
		}}, nil
	}
}

func hostOf(a net.Addr) string {
	s := a.String()
	if h, _, err := net.SplitHostPort(s); err == nil {
		return strings.ToLower(h)
	}
	return s
}

// countedConn gives its slot back once, however often it is closed (hijacked sockets too).
type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *countedConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}
