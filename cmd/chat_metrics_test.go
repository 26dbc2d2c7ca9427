//go:build !agentry_runtime

package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/go-logr/logr"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testutil.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// serveChat runs runChat in the background; stop ends it and returns its error.
func serveChat(o *chatOptions, key string) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runChat(ctx, logr.Discard(), o, key) }()
	return func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(15 * time.Second):
			return errors.New("runChat did not stop")
		}
	}
}

// waitOK polls GET url until it answers 200, for up to 10 s.
func waitOK(t *testing.T, url, what string) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res, err := http.Get(url)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
			err = fmt.Errorf("it answered %d", res.StatusCode)
		}
		if time.Now().After(end) {
			t.Fatalf("%s: %v", what, err)
		}
	}
}

// jsonCall is httpCall with a JSON body.
func jsonCall(t *testing.T, method, url, body string, hdr ...string) (*http.Response, string) {
	t.Helper()
	return httpCall(t, method, url, strings.NewReader(body), append([]string{"Content-Type", "application/json"}, hdr...)...)
}

// TestChatMetricsListener: agentry chat serves /metrics, /healthz and /readyz on its own
// listener (not on the public port); the series move once a socket connects and a message is
// sent; every REST answer carries a request id, echoing a safe incoming one.
func TestChatMetricsListener(t *testing.T) {
	addr, maddr := freeAddr(t), freeAddr(t)
	dir := t.TempDir()
	const key = "0123456789abcdef-key"
	o := &chatOptions{addr: addr, metricsAddr: maddr, storage: "file:" + filepath.Join(dir, "chat.db"), replicas: 1,
		mediaDir: filepath.Join(dir, "media"), maxMediaBytes: 1 << 20, web: true}
	stop := serveChat(o, key)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("runChat: %v", err)
		}
	}()
	waitOK(t, "http://"+maddr+"/readyz", "the metrics listener did not come up")
	if res, _ := jsonCall(t, "GET", "http://"+maddr+"/healthz", ""); res.StatusCode != http.StatusOK {
		t.Fatalf("healthz on the metrics listener: %d", res.StatusCode)
	}
	// Not on the public port.
	if res, _ := jsonCall(t, "GET", "http://"+addr+"/metrics", ""); res.StatusCode != http.StatusNotFound {
		t.Fatalf("/metrics on the public port: %d", res.StatusCode)
	}

	api := "http://" + addr + "/chat/v1"
	alice, bob := chatUserToken(t, api, key, "alice"), chatUserToken(t, api, key, "bob")
	checkRequestIDs(t, api, alice)
	defer checkMessageReachesSocket(t, addr, api, alice, bob).CloseNow()

	// The writer counts a frame once its write returned, which may be just after the read.
	var metrics string
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, metrics = jsonCall(t, "GET", "http://"+maddr+"/metrics", "")
		if strings.Contains(metrics, `agentry_chat_frames_sent_total{kind="event"} 1`) || time.Now().After(end) {
			break
		}
	}
	for _, want := range []string{
		"agentry_chat_sockets 1",
		`agentry_chat_frames_sent_total{kind="event"} 1`,
		`agentry_chat_messages_stored_total{source="user"} 1`,
		"agentry_chat_slow_consumers_closed_total 0",
		`agentry_chat_http_requests_total{code="201",method="POST",route="/chat/v1/messages"} 1`,
		`agentry_chat_http_request_duration_seconds_count{method="GET",route="/chat/v1/me"} 3`,
		"go_goroutines",
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if strings.Contains(metrics, alice) || strings.Contains(metrics, "/chat/v1/users/alice") {
		t.Error("metrics hold a token or a raw path")
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", metrics)
	}
}

// chatUserToken creates uid with the REST API key and mints its token.
func chatUserToken(t *testing.T, api, key, uid string) string {
	t.Helper()
	if res, body := jsonCall(t, "POST", api+"/users", `{"uid":"`+uid+`","name":"`+uid+`"}`, "apikey", key); res.StatusCode != http.StatusCreated {
		t.Fatalf("create %s: %d %s", uid, res.StatusCode, body)
	}
	res, body := jsonCall(t, "POST", api+"/users/"+uid+"/auth_tokens", "", "apikey", key)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("token: %d %s", res.StatusCode, body)
	}
	var tok struct{ AuthToken string }
	_ = json.Unmarshal([]byte(body), &tok)
	return tok.AuthToken
}

// checkRequestIDs: request ids are generated, or a safe incoming one echoed; an unsafe one is
// replaced.
func checkRequestIDs(t *testing.T, api, alice string) {
	t.Helper()
	res, _ := jsonCall(t, "GET", api+"/me", "", "Authorization", "Bearer "+alice)
	if id := res.Header.Get("X-Request-Id"); len(id) < 16 {
		t.Fatalf("no request id: %q", id)
	}
	if res, _ := jsonCall(t, "GET", api+"/me", "", "Authorization", "Bearer "+alice, "X-Request-Id", "lb-7f3a.42"); res.Header.Get("X-Request-Id") != "lb-7f3a.42" {
		t.Fatalf("safe request id not echoed: %q", res.Header.Get("X-Request-Id"))
	}
	if res, _ := jsonCall(t, "GET", api+"/me", "", "Authorization", "Bearer "+alice, "X-Request-Id", "evil\"id with spaces"); strings.Contains(res.Header.Get("X-Request-Id"), "evil") {
		t.Fatalf("unsafe request id echoed: %q", res.Header.Get("X-Request-Id"))
	}
}

// checkMessageReachesSocket: bob's socket gets alice's message; it returns the socket, open.
func checkMessageReachesSocket(t *testing.T, addr, api, alice, bob string) *websocket.Conn {
	t.Helper()
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	conn, _, err := websocket.Dial(wctx, "ws://"+addr+"/chat/v1/ws", nil)
	testutil.NoError(t, err)
	testutil.NoError(t, conn.Write(wctx, websocket.MessageText, []byte(`{"type":"auth","token":"`+bob+`"}`)))
	if _, data, err := conn.Read(wctx); err != nil || !strings.Contains(string(data), `"ready"`) {
		t.Fatalf("ready: %s %v", data, err)
	}
	if res, body := jsonCall(t, "POST", api+"/messages", `{"receiver":"bob","receiverType":"user","category":"message","type":"text","text":"hi"}`, "Authorization", "Bearer "+alice); res.StatusCode != http.StatusCreated {
		t.Fatalf("send: %d %s", res.StatusCode, body)
	}
	if _, data, err := conn.Read(wctx); err != nil || !strings.Contains(string(data), `"message.created"`) {
		t.Fatalf("event: %s %v", data, err)
	}
	return conn
}

// TestChatMetricsAddrTaken: a taken default metrics address only warns (several local
// processes); a given one is fatal.
func TestChatMetricsAddrTaken(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	testutil.NoError(t, err)
	defer busy.Close()
	dir := t.TempDir()
	o := &chatOptions{addr: freeAddr(t), metricsAddr: busy.Addr().String(), metricsAddrSet: true, storage: "file:" + filepath.Join(dir, "chat.db"),
		replicas: 1, mediaDir: filepath.Join(dir, "media"), maxMediaBytes: 1 << 20}
	if err := runChat(context.Background(), logr.Discard(), o, "0123456789abcdef-key"); err == nil || !strings.Contains(err.Error(), "--metrics-addr") {
		t.Fatalf("a given, taken metrics address: %v", err)
	}
	o.metricsAddrSet = false
	stop := serveChat(o, "0123456789abcdef-key")
	waitOK(t, "http://"+o.addr+"/chat/v1/healthz", "the chat service did not start beside a taken default metrics address")
	testutil.NoError(t, stop())
}
