package sse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestReader: data lines join with "\n", comments and other fields are skipped, CRLF line ends
// are read, and the end of the stream says whether it cut an event.
func TestReader(t *testing.T) {
	in := ": keep-alive\n\nevent: x\nid: 1\ndata: {\"a\":1}\n\ndata: one\r\ndata:two\r\n\r\ndata: tail"
	r := NewReader(strings.NewReader(in), 1<<10)
	for _, want := range []string{`{"a":1}`, "one\ntwo"} {
		got, err := r.Next()
		if err != nil || string(got) != want {
			t.Fatalf("Next = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := r.Next(); !errors.Is(err, io.ErrUnexpectedEOF) || !IsEOF(err) {
		t.Fatalf("a stream that ends inside an event: %v", err)
	}
	r = NewReader(strings.NewReader("data: x\n\n"), 1<<10)
	_, _ = r.Next()
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("a whole stream ends with io.EOF, got %v", err)
	}
	r = NewReader(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 64)
	if _, err := r.Next(); !errors.Is(err, ErrTooLong) || IsEOF(err) {
		t.Fatalf("a line over the limit: %v", err)
	}
}

// gatedWriter is a response whose writes wait until the test lets them through.
type gatedWriter struct {
	header  http.Header
	entered chan struct{}
	release chan struct{}
	mu      sync.Mutex
	writes  []string
	fail    error
}

func newGated() *gatedWriter {
	return &gatedWriter{header: http.Header{}, entered: make(chan struct{}, 100), release: make(chan struct{}, 100)}
}

func (g *gatedWriter) Header() http.Header { return g.header }
func (g *gatedWriter) WriteHeader(int)     {}
func (g *gatedWriter) Flush()              {}
func (g *gatedWriter) Write(b []byte) (int, error) {
	g.entered <- struct{}{}
	<-g.release
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.fail != nil {
		return 0, g.fail
	}
	g.writes = append(g.writes, string(b))
	return len(b), nil
}

// TestWriterBatches: the events queued while a write is under way go out together in the next
// write, in order, and Close writes what is left before it returns.
func TestWriterBatches(t *testing.T) {
	g := newGated()
	w := Start(context.Background(), g, 0)
	if g.header.Get("Content-Type") != "text/event-stream" || g.header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("headers %v", g.header)
	}
	testutil.NoError(t, w.Send(map[string]int{"n": 0}))
	<-g.entered // the first event is being written: the next ones queue
	for i := 1; i < 10; i++ {
		testutil.NoError(t, w.Send(map[string]int{"n": i}))
	}
	w.SendData("[DONE]")
	g.release <- struct{}{}
	<-g.entered
	g.release <- struct{}{}
	w.Close()
	if len(g.writes) != 2 {
		t.Fatalf("%d writes, want 2 (one event, then the nine that queued and [DONE]): %q", len(g.writes), g.writes)
	}
	var want strings.Builder
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&want, "data: {\"n\":%d}\n\n", i)
	}
	want.WriteString("data: [DONE]\n\n")
	if g.writes[0] != "data: {\"n\":0}\n\n" || g.writes[1] != want.String() {
		t.Fatalf("writes %q", g.writes)
	}
	if err := w.Send(1); !errors.Is(err, ErrClosed) || w.Failed() {
		t.Fatalf("after Close: %v, failed %v", err, w.Failed())
	}
}

// TestWriterStopsForAGoneClient: a failed write, or the request's end, makes every later Send
// fail, so the run producing the events stops.
func TestWriterStopsForAGoneClient(t *testing.T) {
	g := newGated()
	g.fail = errors.New("broken pipe")
	w := Start(context.Background(), g, 0)
	_ = w.Send(1)
	<-g.entered
	g.release <- struct{}{}
	deadline := time.Now().Add(10 * time.Second)
	for !w.Failed() {
		if time.Now().After(deadline) {
			t.Fatal("a failed write did not fail the stream")
		}
		time.Sleep(time.Millisecond)
	}
	if err := w.Send(2); err == nil {
		t.Fatal("Send after a failed write must fail")
	}
	w.Close()

	ctx, cancel := context.WithCancel(context.Background())
	w = Start(ctx, newGated(), 0)
	cancel()
	if err := w.Send(1); !errors.Is(err, context.Canceled) || !w.Failed() {
		t.Fatalf("Send after the request ended: %v", err)
	}
	w.Close()
}

// TestWriterKeepAlive: a silent stream gets comment frames.
func TestWriterKeepAlive(t *testing.T) {
	g := newGated()
	for range cap(g.release) {
		g.release <- struct{}{} // writes pass at once: more keep-alives may come before Close
	}
	w := Start(context.Background(), g, 30*time.Millisecond)
	<-g.entered
	w.Close()
	if len(g.writes) == 0 || strings.Count(strings.Join(g.writes, ""), KeepAliveFrame) != len(g.writes) {
		t.Fatalf("writes %q, want keep-alives only", g.writes)
	}
}
