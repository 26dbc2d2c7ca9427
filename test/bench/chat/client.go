package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// ---------------------------------------------------------------------------------------------
// WebSocket clients: reconnect at once after a drop and resume from the last pos, as the SDK.

var (
	closes4008 atomic.Int64
	closes1013 atomic.Int64 // store unavailable (e.g. auth timed out): the client retries
	// serverErrors counts the ERROR lines the chat processes logged (the first few are shown).
	serverErrors atomic.Int64
	resets       atomic.Int64
	dupes        atomic.Int64
	dropAt       atomic.Int64 // unix nanos of the storm's drop; 0 before it
)

type sock struct {
	u *user

	mu          sync.Mutex
	base        string
	last        int64
	got         map[int64]int64 // message id → first receipt (unix nanos)
	convs       map[string]bool // conversations whose messages this socket must get (message.conv)
	conn        *websocket.Conn
	connected   bool
	readyAfter  int64 // first ready after dropAt
	firstReady  chan struct{}
	readyClosed bool
	cancel      context.CancelFunc
	done        chan struct{}
}

func newSock(u *user, base string) *sock {
	s := &sock{u: u, base: base, got: map[int64]int64{}, convs: map[string]bool{"user:" + u.uid: true}, firstReady: make(chan struct{}), done: make(chan struct{})}
	u.socks = append(u.socks, s)
	return s
}

func (s *sock) start() {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go s.run(ctx)
}

func (s *sock) stop() {
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
}

func (s *sock) run(ctx context.Context) {
	defer close(s.done)
	failures := 0
	for ctx.Err() == nil {
		ok := s.session(ctx)
		if ok {
			failures = 0
			continue // reconnect at once after a connection that got ready
		}
		failures++
		d := time.Duration(min(failures, 10)) * 100 * time.Millisecond
		select {
		case <-ctx.Done():
		case <-time.After(d/2 + time.Duration(rand.Int63n(int64(d)))):
		}
	}
}

// session runs one connection; it reports whether the connection got ready.
func (s *sock) session(ctx context.Context) bool {
	url := "ws" + strings.TrimPrefix(s.base, "http") + "/ws"
	dctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	conn, _, err := websocket.Dial(dctx, url, nil)
	cancel()
	if err != nil {
		return false
	}
	defer func() { _ = conn.CloseNow() }()
	conn.SetReadLimit(1 << 20)
	s.mu.Lock()
	auth := map[string]any{"type": "auth", "token": s.u.token}
	if s.last > 0 {
		auth["resume"] = s.last
	}
	s.conn = conn
	s.mu.Unlock()
	b, _ := json.Marshal(auth)
	if err := conn.Write(ctx, websocket.MessageText, b); err != nil {
		return false
	}
	ready := false
	defer func() {
		s.mu.Lock()
		s.connected = false
		s.mu.Unlock()
	}()
	for {
		_, data, err := conn.Read(ctx)
		at := time.Now().UnixNano()
		if err != nil {
			switch websocket.CloseStatus(err) {
			case 4008:
				closes4008.Add(1)
			case websocket.StatusTryAgainLater:
				closes1013.Add(1)
			}
			return ready
		}
		var f struct {
			Type  string `json:"type"`
			Pos   int64  `json:"pos"`
			Event struct {
				Pos  int64           `json:"pos"`
				Type string          `json:"type"`
				Data json.RawMessage `json:"data"`
			} `json:"event"`
		}
		if json.Unmarshal(data, &f) != nil {
			continue
		}
		switch f.Type {
		case "ready":
			ready = true
			s.mu.Lock()
			s.connected = true
			s.last = cmp.Or(s.last, f.Pos) // live events follow ready.pos
			if d := dropAt.Load(); d > 0 && s.readyAfter == 0 && at > d {
				s.readyAfter = at
			}
			if !s.readyClosed {
				s.readyClosed = true
				close(s.firstReady)
			}
			s.mu.Unlock()
		case "reset":
			resets.Add(1)
			s.mu.Lock()
			s.last = f.Pos
			s.mu.Unlock()
		case "event":
			s.receive(f.Event.Pos, f.Event.Type, f.Event.Data, at)
		}
	}
}

func (s *sock) receive(pos int64, typ string, data json.RawMessage, at int64) {
	s.mu.Lock()
	if pos <= s.last && pos > 0 {
		s.mu.Unlock()
		dupes.Add(1)
		return
	}
	if pos > 0 {
		s.last = pos
	}
	s.mu.Unlock()
	if typ != "message.created" {
		return
	}
	var m struct {
		ID   int64  `json:"id"`
		Text string `json:"text"`
	}
	if json.Unmarshal(data, &m) != nil || !strings.HasPrefix(m.Text, "bench ") {
		return
	}
	n, _ := strconv.Atoi(m.Text[len("bench "):])
	s.mu.Lock()
	if _, ok := s.got[m.ID]; ok {
		s.mu.Unlock()
		dupes.Add(1)
		return
	}
	s.got[m.ID] = at
	s.mu.Unlock()
	if d := current.Load(); d != nil {
		sent.mu.Lock()
		msg := sent.byN[n]
		sent.mu.Unlock()
		if msg != nil {
			d.add(n, msg.sendAt, at)
		}
	}
}

func (s *sock) drop() {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	if conn != nil {
		_ = conn.CloseNow()
	}
}

// missing counts the messages among msgs addressed to s that it has not received.
func missing(msgs []*message) (lost int) {
	for _, m := range msgs {
		for _, s := range m.to {
			s.mu.Lock()
			_, ok := s.got[m.id]
			s.mu.Unlock()
			if !ok {
				lost++
			}
		}
	}
	return lost
}

// waitDelivered waits until every message of msgs reached its sockets or the timeout passes.
func waitDelivered(msgs []*message, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	for {
		lost := missing(msgs)
		if lost == 0 || time.Now().After(deadline) {
			return lost
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// connect starts the sockets, 100 dials at a time, and waits until each got ready.
func connect(socks []*sock) error {
	sem := make(chan struct{}, 100)
	for _, s := range socks {
		sem <- struct{}{}
		s.start()
		go func(s *sock) {
			select {
			case <-s.firstReady:
			case <-time.After(60 * time.Second):
			}
			<-sem
		}(s)
	}
	for _, s := range socks {
		select {
		case <-s.firstReady:
		case <-time.After(60 * time.Second):
			return fmt.Errorf("socket of %s did not get ready within 60 s", s.u.uid)
		}
	}
	return nil
}
