package api

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestSessionIdleTimeout: a session lives past its idle timeout while its client uses it, by
// socket frames or by requests, and ends when it stops: the socket closes with 4001 and REST
// answers 401. A token minted with the REST API key has no idle timeout.
func TestSessionIdleTimeout(t *testing.T) {
	ctx := context.Background()
	st, err := store.OpenWith(ctx, "file:"+filepath.Join(t.TempDir(), "chat.db"), store.Options{})
	testutil.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	const idle = 3 * time.Second
	srv := startChatServerWith(t, st, Options{SessionTTL: time.Hour, SessionIdleTimeout: idle})
	e := srv.admin
	plain := e.user("alice")
	session := func() (token string, ti store.TokenInfo) {
		r := e.do("POST", "/sessions", plain, nil)
		e.expect(r, http.StatusCreated, "")
		var s tokenResponse
		r.decode(t, &s)
		ti, err := st.TokenByID(ctx, s.ID)
		testutil.NoError(t, err)
		if ti.Idle != idle {
			t.Fatalf("session idle timeout %s, want %s", ti.Idle, idle)
		}
		return s.AuthToken, ti
	}
	// keepUsing calls use until the session's recorded use is past its first deadline: without
	// the uses it would have ended by then.
	keepUsing := func(who string, ti store.TokenInfo, use func()) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			use()
			now, err := st.TokenByID(ctx, ti.ID)
			if err != nil {
				t.Fatalf("%s: the session ended while in use: %v", who, err)
			}
			if now.UsedAt.After(ti.UsedAt.Add(idle)) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the session's use is still recorded at %s (created %s)", who, now.UsedAt, ti.UsedAt)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	byFrames, framesInfo := session()
	sock := dialSession(t, srv.url, byFrames)
	keepUsing("socket frames", framesInfo, func() { sock.send(t, `{"type":"typing","conversationId":"nowhere","started":true}`) })
	e.expect(e.do("GET", "/me", byFrames, nil), http.StatusOK, "")

	byRequests, requestsInfo := session()
	quiet := dialSession(t, srv.url, byRequests) // sends nothing: kept open by the requests
	keepUsing("requests", requestsInfo, func() { e.expect(e.do("GET", "/me", byRequests, nil), http.StatusOK, "") })
	if quiet.closed() {
		t.Fatalf("the socket of a session in use by requests closed: %d", quiet.code)
	}

	plainSock := dialSession(t, srv.url, plain)
	// Nobody uses either session now: both sockets close with 4001 and the tokens are refused.
	for _, s := range []*sessionSocket{sock, quiet} {
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			t.Fatal("an idle session's socket is still open")
		}
		if s.code != closeUnauthorized {
			t.Errorf("idle socket closed with %d, want 4001", s.code)
		}
	}
	e.expect(e.do("GET", "/me", byFrames, nil), http.StatusUnauthorized, model.ErrUnauthenticated)
	e.expect(e.do("GET", "/me", byRequests, nil), http.StatusUnauthorized, model.ErrUnauthenticated)
	e.expect(e.do("GET", "/me", plain, nil), http.StatusOK, "")
	if plainSock.closed() {
		t.Errorf("the API key's token's socket closed: %d", plainSock.code)
	}
}

// closeUnauthorized is the hub's 4001 as the WebSocket library reports it.
const closeUnauthorized = websocket.StatusCode(4001)

// sessionSocket is a socket that records how it closed.
type sessionSocket struct {
	conn *websocket.Conn
	done chan struct{}
	code websocket.StatusCode
}

func (s *sessionSocket) closed() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *sessionSocket) send(t *testing.T, frame string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.conn.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
		t.Fatalf("send %s: %v", frame, err)
	}
}

func dialSession(t *testing.T, base, token string) *sessionSocket {
	t.Helper()
	conn := dialReady(t, base, token)
	s := &sessionSocket{conn: conn, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			if _, _, err := conn.Read(context.Background()); err != nil {
				s.code = websocket.CloseStatus(err)
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = conn.CloseNow()
		<-s.done
	})
	return s
}
