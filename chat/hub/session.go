package hub

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
)

// maxClientFrame bounds what a client may send: auth, typing and ack frames are tiny.
const maxClientFrame = 16 << 10

// session is one authenticated socket.
type session struct {
	h   *Hub
	uid string
	// tokenID is the id of the token the socket authenticated with (auth.revoked names it);
	// expires is when that token expires (zero: never): the socket closes then, as REST
	// starts answering 401.
	tokenID string
	expires time.Time
	// idle is the session's idle timeout (zero: none); usedAt (UnixNano) its last recorded
	// use, which the reader moves and the writer's idle timer reads.
	idle   time.Duration
	usedAt atomic.Int64
	conn   *websocket.Conn
	queue  *sendQueue
	slow   chan struct{} // closed when the queue overflowed
	// dropped stops further enqueues once the socket is condemned, so the feed skips it cheaply.
	dropped atomic.Bool
	// order is when the socket registered (the hub's count); evicted is closed when the hub
	// drops it for a newer socket of its user (MaxSocketsPerUser).
	order     uint64
	evicted   chan struct{}
	evictOnce sync.Once
}

// evict condemns the socket for a newer one of its user; its writer closes it with 4009.
func (s *session) evict() {
	s.evictOnce.Do(func() {
		s.dropped.Store(true)
		close(s.evicted)
	})
}

// enqueue never blocks: the feed loop and Typing call it for many sockets under the hub's
// read lock. A full queue condemns the socket; its writer closes it with 4008.
func (s *session) enqueue(f outFrame) {
	if s.dropped.Load() {
		return
	}
	if !s.queue.push(f) {
		if s.dropped.CompareAndSwap(false, true) {
			s.h.dropped.Add(1)
			close(s.slow)
		}
	}
}

// ServeHTTP upgrades to a WebSocket and serves one client session (mount at GET /chat/v1/ws).
// The protocol is described in docs/chat-service.md, "WebSocket protocol".
func (h *Hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.begin() {
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	handedOver := false // once true, the session's goroutine owns what the defers below release
	defer func() {
		if !handedOver {
			h.sessions.Done()
		}
	}()
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		OriginPatterns:     h.o.OriginPatterns,
		InsecureSkipVerify: len(h.o.OriginPatterns) == 0, // see Options.OriginPatterns
	})
	if err != nil {
		return // Accept has answered
	}
	defer func() {
		if !handedOver {
			_ = conn.CloseNow()
		}
	}()
	conn.SetReadLimit(maxClientFrame)

	ti, resume, ok := h.authenticate(conn)
	if !ok {
		return
	}
	uid := ti.UID
	s := &session{h: h, uid: uid, tokenID: ti.ID, expires: ti.ExpiresAt, conn: conn, queue: newSendQueue(h.o.QueueSize), slow: make(chan struct{}), evicted: make(chan struct{})}
	if h.o.Sessions != nil && ti.Idle > 0 {
		s.idle = ti.Idle
		s.usedAt.Store(ti.UsedAt.UnixNano())
	}
	// Registered before the horizon is read: every event committed after that read reaches
	// the queue, so replay (up to the horizon) plus the queue (skipping what replay sent)
	// lose nothing.
	if !h.register(s) {
		_ = conn.Close(websocket.StatusGoingAway, "server shutting down")
		return
	}
	defer func() {
		if !handedOver {
			h.unregister(s)
		}
	}()
	oldest, newest, err := h.o.Events.Horizon(h.ctx)
	if err != nil {
		h.log.Error(err, "failed to read the event horizon", "uid", uid)
		_ = conn.Close(websocket.StatusTryAgainLater, "store unavailable")
		return
	}
	h.log.V(1).Info("socket connected", "uid", uid, "resume", resume, "newest", newest)

	// The writer's context ends when the hub shuts down or the reader stops (peer gone).
	wctx, stopWriter := context.WithCancel(h.ctx)
	last, ok := s.open(wctx, resume, oldest, newest)
	if !ok {
		stopWriter()
		return
	}
	// The socket lives on two fresh goroutines and this handler returns (the connection is
	// hijacked; net/http is done with it): this goroutine's stack grew through routing, the
	// token lookup and the replay, and an idle goroutine keeps its stack until a GC shrinks
	// it, so every idle socket would hold that much.
	handedOver = true
	go s.serve(wctx, stopWriter, last)
}

// serve runs the socket's reader here and its writer on a goroutine of its own until both
// end, then releases what ServeHTTP handed over.
func (s *session) serve(wctx context.Context, stopWriter context.CancelFunc, last int64) {
	defer s.h.sessions.Done()
	defer s.h.unregister(s)
	defer func() { _ = s.conn.CloseNow() }()
	defer stopWriter()
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		s.writeLoop(wctx, last)
	}()
	// The reader's context is never cancelled: cancelling a read closes the socket at once,
	// which would beat the writer's close frame (1001, 4008). Every writer exit closes the
	// socket, which ends this read.
	s.readLoop(context.Background())
	stopWriter()
	<-writerDone
	s.h.log.V(1).Info("socket disconnected", "uid", s.uid)
}

// authenticate reads the auth frame and resolves the token; on failure it has closed the
// socket with 4001 (bad or missing auth) or 1013 (store unavailable).
func (h *Hub) authenticate(conn *websocket.Conn) (ti store.TokenInfo, resume *int64, ok bool) {
	// A timer, not a read deadline: a cancelled read drops the socket without the 4001 frame.
	timedOut := make(chan struct{})
	timer := time.AfterFunc(h.o.AuthTimeout, func() {
		defer close(timedOut)
		_ = conn.Close(CloseUnauthorized, "auth timeout")
	})
	typ, data, err := conn.Read(h.ctx)
	if !timer.Stop() {
		<-timedOut
		return store.TokenInfo{}, nil, false
	}
	if err != nil {
		return store.TokenInfo{}, nil, false
	}
	var f clientFrame
	if typ != websocket.MessageText || json.Unmarshal(data, &f) != nil || f.Type != FrameAuth || f.Token == "" {
		_ = conn.Close(CloseUnauthorized, "first frame must be auth")
		return store.TokenInfo{}, nil, false
	}
	ctx, cancel := context.WithTimeout(h.ctx, h.o.AuthTimeout)
	defer cancel()
	ti, err = h.o.Authenticate(ctx, f.Token)
	if err != nil || ti.UID == "" {
		if model.CodeOf(err) == model.ErrUnavailable {
			h.log.Error(err, "failed to authenticate a socket")
			_ = conn.Close(websocket.StatusTryAgainLater, "store unavailable")
		} else {
			_ = conn.Close(CloseUnauthorized, "unauthorized")
		}
		return store.TokenInfo{}, nil, false
	}
	// Sockets wait for the feed to know its start position (see Run).
	select {
	case <-h.started:
	case <-ctx.Done():
		_ = conn.Close(websocket.StatusTryAgainLater, "not ready")
		return store.TokenInfo{}, nil, false
	}
	return ti, f.Resume, true
}

// TypingPerSecond is how many typing frames a socket may send in any one second; the rest
// are dropped (each one fans out to a whole conversation).
const TypingPerSecond = 5

// typingClock is the typing limit's clock; a test stops it to count a burst exactly.
var typingClock = time.Now

// window admits at most len(at) events in any period: a sliding window, so "5 per second"
// holds for every second, not only on average (a token bucket lets twice as many through
// when it starts full).
type window struct {
	at     [TypingPerSecond]time.Time
	next   int
	period time.Duration
}

func (w *window) allow(now time.Time) bool {
	if oldest := w.at[w.next]; !oldest.IsZero() && now.Sub(oldest) < w.period {
		return false
	}
	w.at[w.next] = now
	w.next = (w.next + 1) % len(w.at)
	return true
}

// readLoop handles client frames until the socket closes.
func (s *session) readLoop(ctx context.Context) {
	limit := window{period: time.Second}
	replays := window{period: 10 * time.Second}
	for {
		typ, data, err := s.conn.Read(ctx)
		if err != nil {
			return
		}
		var f clientFrame
		if typ != websocket.MessageText || json.Unmarshal(data, &f) != nil {
			_ = s.conn.Close(websocket.StatusUnsupportedData, "frames are JSON text")
			return
		}
		s.used(ctx)
		switch f.Type {
		case FrameTyping:
			if f.ConversationID != "" && limit.allow(typingClock()) {
				s.h.Typing(s.uid, f.ConversationID, f.Started)
			}
		case FrameReplay:
			if f.ConversationID != "" && replays.allow(typingClock()) {
				s.h.replay(s, f.ConversationID)
			}
		default:
			// ack and unknown types are ignored, so newer clients work with this server.
		}
	}
}

// used records a client frame as the session's use (at most every store.TouchEvery).
func (s *session) used(ctx context.Context) {
	if s.idle <= 0 || time.Since(time.Unix(0, s.usedAt.Load())) < store.TouchEvery(s.idle) {
		return
	}
	if err := s.h.o.Sessions.TouchToken(ctx, s.tokenID); err != nil {
		s.h.log.Error(err, "failed to record a session's use", "uid", s.uid)
		return
	}
	s.usedAt.Store(time.Now().UnixNano())
}

// idleCheck runs when the session's idle deadline as this socket knows it has passed: the
// store knows of uses elsewhere (REST, other sockets). It returns the next deadline, or false
// when the session has ended. A store that cannot answer is asked again later.
func (s *session) idleCheck(ctx context.Context) (time.Time, bool) {
	ti, err := s.h.o.Sessions.TokenByID(ctx, s.tokenID)
	switch {
	case model.CodeOf(err) == model.ErrUnauthenticated:
		return time.Time{}, false
	case err != nil:
		s.h.log.Error(err, "failed to recheck an idle session", "uid", s.uid)
		return time.Now().Add(store.TouchEvery(s.idle)), true
	}
	if ti.UsedAt.UnixNano() > s.usedAt.Load() {
		s.usedAt.Store(ti.UsedAt.UnixNano())
	}
	return time.Unix(0, s.usedAt.Load()).Add(s.idle), true
}

// open writes the ready frame and the replay: the socket's first data frames, before the
// queue's. It returns the pos the queue continues after; false when the socket is done (it
// has been closed).
func (s *session) open(ctx context.Context, resume *int64, oldest, newest int64) (int64, bool) {
	ready, _ := json.Marshal(readyFrame{Type: FrameReady, UID: s.uid, Pos: newest})
	if s.write(ready) != nil {
		_ = s.conn.CloseNow()
		return 0, false
	}
	if resume == nil {
		return newest, true // without resume, the client starts after the newest event
	}
	wait, cancel := context.WithTimeout(ctx, s.h.o.AuthTimeout)
	release, ok := s.h.replaySlot(wait, s.uid)
	cancel()
	if !ok {
		if ctx.Err() == nil {
			_ = s.conn.Close(websocket.StatusTryAgainLater, "busy: resume again")
		}
		_ = s.conn.CloseNow()
		return 0, false
	}
	last, err := s.replay(ctx, *resume, oldest, newest)
	release()
	if err != nil {
		if ctx.Err() == nil {
			s.h.log.Error(err, "failed to replay events", "uid", s.uid, "resume", *resume)
			_ = s.conn.Close(websocket.StatusTryAgainLater, "replay failed")
		}
		_ = s.conn.CloseNow()
		return 0, false
	}
	return last, true
}

// writeLoop is the socket's only writer of data frames after open: the queue, and the
// heartbeat. Every return closes the socket.
func (s *session) writeLoop(ctx context.Context, last int64) {
	h := s.h
	closeWith := func(code websocket.StatusCode, reason string) { _ = s.conn.Close(code, reason) }
	defer func() { _ = s.conn.CloseNow() }()

	heartbeat := time.NewTicker(h.o.Heartbeat)
	defer heartbeat.Stop()
	var expired <-chan time.Time // nil: the token never expires
	if !s.expires.IsZero() {
		t := time.NewTimer(time.Until(s.expires))
		defer t.Stop()
		expired = t.C
	}
	var idle <-chan time.Time // nil: no idle timeout
	var idleTimer *time.Timer
	if s.idle > 0 {
		idleTimer = time.NewTimer(time.Until(time.Unix(0, s.usedAt.Load()).Add(s.idle)))
		defer idleTimer.Stop()
		idle = idleTimer.C
	}
	pingDone := make(chan error, 1)
	pinging := false
	defer func() {
		if pinging {
			_ = s.conn.CloseNow() // ends the ping at once
			<-pingDone
		}
	}()
	for {
		// A condemned socket closes before anything else is written: its queue is full, and
		// the client resumes from what it got (select alone would pick at random).
		select {
		case <-s.slow:
			h.log.V(1).Info("dropping slow socket", "uid", s.uid, "queue", s.queue.max)
			closeWith(CloseTooSlow, "too slow")
			return
		default:
		}
		select {
		case <-ctx.Done():
			if h.ctx.Err() != nil {
				closeWith(websocket.StatusGoingAway, "server shutting down")
			}
			return
		case <-s.slow:
			h.log.V(1).Info("dropping slow socket", "uid", s.uid, "queue", s.queue.max)
			closeWith(CloseTooSlow, "too slow")
			return
		case <-s.evicted:
			h.log.V(1).Info("closing the oldest socket of a user with too many", "uid", s.uid, "max", h.o.MaxSocketsPerUser)
			closeWith(CloseTooManySockets, "too many sockets for this user")
			return
		case <-expired:
			h.log.V(1).Info("closing socket whose token expired", "uid", s.uid)
			closeWith(CloseUnauthorized, "credentials expired")
			return
		case <-idle:
			next, ok := s.idleCheck(ctx)
			if !ok {
				h.log.V(1).Info("closing socket whose session was idle too long", "uid", s.uid, "idle", s.idle)
				closeWith(CloseUnauthorized, "session idle")
				return
			}
			idleTimer.Reset(time.Until(next))
		case <-s.queue.ready:
			for _, f := range s.queue.take() {
				if f.pos != 0 && f.pos <= last {
					continue // replay already sent it
				}
				if s.write(f.data) != nil {
					return
				}
				if f.pos != 0 {
					last = f.pos
					h.delivered.Add(1)
				}
				if f.revoke {
					// Only live: a replayed revocation predates this socket's own login.
					closeWith(CloseUnauthorized, "credentials revoked")
					return
				}
			}
		case <-heartbeat.C:
			if pinging {
				continue
			}
			pinging = true
			go func() {
				// Ping waits for the pong, which the read loop receives; it runs apart so
				// the queue keeps draining meanwhile.
				pctx, cancel := context.WithTimeout(context.Background(), h.o.HeartbeatTimeout)
				defer cancel()
				pingDone <- s.conn.Ping(pctx)
			}()
		case err := <-pingDone:
			pinging = false
			if err != nil {
				if ctx.Err() == nil {
					h.log.V(1).Info("closing socket that missed a heartbeat", "uid", s.uid, "error", err.Error())
				}
				return
			}
		}
	}
}

// replay sends what the client missed since from, or a reset when that is no longer kept
// (or the client is ahead of this log, e.g. after a database restore). It returns the pos
// the queue continues after.
func (s *session) replay(ctx context.Context, from, oldest, newest int64) (int64, error) {
	h := s.h
	if from+1 < oldest || from > newest {
		return newest, s.reset(newest)
	}
	pos, n, size := from, 0, 0
	for {
		evs, err := h.o.Events.EventsSince(ctx, s.uid, pos, h.o.PageSize)
		if err != nil {
			return pos, err
		}
		for _, ev := range evs {
			if n >= h.o.ReplayLimit || size >= h.o.ReplayMaxBytes {
				// Too far behind: the client reloads its lists and continues from now.
				_, now, err := h.o.Events.Horizon(ctx)
				if err != nil {
					return pos, err
				}
				now = max(now, pos)
				return now, s.reset(now)
			}
			data, err := encodeEvent(ev)
			if err != nil {
				return pos, err
			}
			if err := s.write(data); err != nil {
				return pos, err
			}
			pos = ev.Pos
			n++
			size += len(data)
			h.replayed.Add(1)
			h.delivered.Add(1)
		}
		// Only an empty page ends the replay: a store may return fewer than asked for before
		// the end, and stopping early would lose the events between here and the queue.
		if len(evs) == 0 {
			// Pruning that ran during the replay past where it began may have taken events
			// before this replay read them: the client cannot know, so it starts over.
			now, newest, err := h.o.Events.Horizon(ctx)
			if err != nil {
				return pos, err
			}
			if now > oldest && now > from+1 {
				newest = max(newest, pos)
				return newest, s.reset(newest)
			}
			return pos, nil
		}
	}
}

func (s *session) reset(pos int64) error {
	data, _ := json.Marshal(resetFrame{Type: FrameReset, Pos: pos})
	s.h.resets.Add(1)
	return s.write(data)
}

// write sends one frame within the write timeout; a peer that cannot take it is closed (by
// the library, when the deadline passes). The deadline does not derive from the session's
// context: the library closes the socket at once when a write's context ends, so a shutdown
// during a write would drop the socket instead of sending 1001 right after it.
func (s *session) write(data []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), s.h.o.WriteTimeout)
	defer cancel()
	if err := s.conn.Write(ctx, websocket.MessageText, data); err != nil {
		s.h.log.V(1).Info("failed to write to socket", "uid", s.uid, "error", err.Error())
		return err
	}
	return nil
}
