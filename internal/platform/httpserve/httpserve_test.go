package httpserve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// serve runs h with limits on a loopback listener and returns its address.
func serve(t *testing.T, h http.Handler, l Limits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testutil.NoError(t, err)
	srv := Server(h, l)
	go func() { _ = srv.Serve(LimitPerIP(ln, l.PerIP())) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	testutil.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// closedWithin reports whether the server closes c (after any answer) within d.
func closedWithin(c net.Conn, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	return err == nil // EOF: closed by the server; a timeout error: still open
}

var echoBody = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	fmt.Fprintf(w, "got %d bytes", len(b))
})

// TestTricklingBodyIsCutOff: a body sent a byte at a time past the body timeout gets 408 and
// the connection closes; the handler never runs.
func TestTricklingBodyIsCutOff(t *testing.T) {
	addr := serve(t, echoBody, Limits{BodyTimeout: 300 * time.Millisecond})
	c := dial(t, addr)
	fmt.Fprint(c, "POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	start := time.Now()
	go func() {
		for range 20 {
			time.Sleep(100 * time.Millisecond)
			if _, err := c.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a trickled body: %v", err)
	}
	if res.StatusCode != http.StatusRequestTimeout {
		t.Errorf("status %d, want 408", res.StatusCode)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("answered after %s, want about the 300 ms body timeout", d)
	}
}

// TestIdleConnectionsClose: a keep-alive connection idle past the idle timeout is closed.
func TestIdleConnectionsClose(t *testing.T) {
	addr := serve(t, echoBody, Limits{IdleTimeout: 300 * time.Millisecond})
	c := dial(t, addr)
	fmt.Fprint(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	testutil.NoError(t, err)
	_, _ = io.Copy(io.Discard, res.Body)
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	start := time.Now()
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("idle connection: %v, want closed (EOF)", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("closed after %s", d)
	}
	// A connection that never sends its headers is closed after the header timeout.
	slow := dial(t, serve(t, echoBody, Limits{ReadHeaderTimeout: 300 * time.Millisecond}))
	fmt.Fprint(slow, "GET / HTTP/1.1\r\n")
	if !closedWithin(slow, 3*time.Second) {
		t.Error("a connection without headers stayed open")
	}
}

// TestConnectionsPerIPAreCapped: one address holds at most MaxConnsPerIP connections; one
// more is closed at once, and a freed slot is taken again.
func TestConnectionsPerIPAreCapped(t *testing.T) {
	addr := serve(t, echoBody, Limits{MaxConnsPerIP: 3})
	var held []net.Conn
	for range 3 {
		c := dial(t, addr)
		fmt.Fprint(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		if _, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	extra := dial(t, addr)
	if !closedWithin(extra, 2*time.Second) {
		t.Fatal("a fourth connection from the same address stayed open")
	}
	_ = held[0].Close()
	// The slot is free once the server has seen the close: until then a new one is closed.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		again := dial(t, addr)
		fmt.Fprint(again, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		_ = again.SetReadDeadline(time.Now().Add(2 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(again), nil)
		if err == nil && res.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a connection closed, a new one: %v", err)
		}
	}
}

// TestStreamsOutliveTheBodyTimeout: a handler that streams (SSE) or hijacks the connection (a
// WebSocket) for longer than the body timeout keeps its context and its reads.
func TestStreamsOutliveTheBodyTimeout(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/sse", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		for i := range 6 {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			fmt.Fprintf(w, "data: %d\n\n", i)
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: done\n\n")
	})
	mux.HandleFunc("/hijack", func(w http.ResponseWriter, _ *http.Request) {
		c, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		fmt.Fprint(rw, "HTTP/1.1 101 Switching Protocols\r\n\r\n")
		_ = rw.Flush()
		line, err := rw.ReadString('\n') // arrives after the body timeout
		if err == nil {
			fmt.Fprint(rw, "echo "+line)
			_ = rw.Flush()
		}
	})
	addr := serve(t, mux, Limits{BodyTimeout: 200 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/sse", strings.NewReader(`{"messages":[]}`))
	res, err := http.DefaultClient.Do(req)
	testutil.NoError(t, err)
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(b), "data: done") {
		t.Errorf("the stream was cut after the body timeout: %q", b)
	}

	c := dial(t, addr)
	fmt.Fprint(c, "GET /hijack HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: test\r\n\r\n")
	br := bufio.NewReader(c)
	if _, err := http.ReadResponse(br, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	fmt.Fprint(c, "ping\n")
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if line, err := br.ReadString('\n'); err != nil || line != "echo ping\n" {
		t.Errorf("hijacked connection after the body timeout: %q %v", line, err)
	}
}

// TestLargeBodiesAreLeftToTheHandler: a body over MaxBody is not buffered; the handler's own
// limit reads on and answers 413.
func TestLargeBodiesAreLeftToTheHandler(t *testing.T) {
	limited := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20)); err != nil {
			http.Error(w, "too large", http.StatusRequestEntityTooLarge)
			return
		}
		fmt.Fprint(w, "ok")
	})
	addr := serve(t, limited, Limits{})
	for size, want := range map[int]int{1 << 20: 200, 8 << 20: 413} {
		res, err := http.Post("http://"+addr+"/", "application/json", strings.NewReader(strings.Repeat("x", size)))
		testutil.NoError(t, err)
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("%d bytes: %d, want %d", size, res.StatusCode, want)
		}
	}
}
