package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// ---------------------------------------------------------------------------------------------
// A user's WebSocket: logged in with the first frame; a reader goroutine stamps each frame as
// it arrives and hands it on, so decoding never delays the next read.

type wsFrame struct {
	at   int64
	data []byte
}

type socket struct {
	uid, token string
	conn       *websocket.Conn
	frames     chan wsFrame // closed when the connection ends
}

func (c *chatService) connect(uid, token string) (*socket, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(c.base, "http")+"/ws", nil)
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(4 << 20)
	auth, _ := json.Marshal(map[string]string{"type": "auth", "token": token})
	if err := conn.Write(ctx, websocket.MessageText, auth); err != nil {
		_ = conn.CloseNow()
		return nil, err
	}
	if _, data, err := conn.Read(ctx); err != nil || !bytes.Contains(data, []byte(`"ready"`)) {
		_ = conn.CloseNow()
		return nil, fmt.Errorf("socket of %s: want ready, got %q %v", uid, data, err)
	}
	s := &socket{uid: uid, token: token, conn: conn, frames: make(chan wsFrame, 8192)}
	go func() {
		defer close(s.frames)
		for {
			_, data, err := conn.Read(context.Background())
			at := now()
			if err != nil {
				if st := websocket.CloseStatus(err); st != -1 && st != websocket.StatusNormalClosure && st != websocket.StatusGoingAway {
					socketCloses.Add(1)
				}
				return
			}
			s.frames <- wsFrame{at, data}
		}
	}()
	cleanups.Add(func() { _ = conn.CloseNow() })
	return s, nil
}

// frame is what a socket receives: agent frames (an AG-UI event of a run, relayed live) and
// event frames (the event log; message.created carries the stored message).
type frame struct {
	Type  string `json:"type"`
	RunID string `json:"runId"`
	Event struct {
		contentEvent
		Data json.RawMessage `json:"data"`
	} `json:"event"`
}

type storedMessage struct {
	Sender   string `json:"sender"`
	Category string `json:"category"`
	Type     string `json:"type"`
	Text     string `json:"text"`
	Data     struct {
		RunID string `json:"runId"`
		Code  string `json:"code"`
	} `json:"data"`
}

var (
	busyRetries  atomic.Int64 // ERR_AGENT_BUSY answers, each followed by a retry
	socketCloses atomic.Int64 // sockets the server closed with an error status
)

var (
	errBusyTooLong  = errors.New("the conversation stayed busy (ERR_AGENT_BUSY) for 10 s")
	errSocketClosed = errors.New("socket closed")
)

// run sends text to agent and follows the run on the socket until the agent's answer is stored
// (message.created, category agentic, type assistant). The clock starts with the request that
// the service took: a message refused with ERR_AGENT_BUSY (the previous run of the conversation
// not yet released) is sent again 1 ms later and counted.
func (s *socket) run(c *chatService, agent, text string, want int) (sample, error) {
	var sp sampler
	var runID string
	give := time.Now().Add(10 * time.Second)
	for {
		sp = sampler{t0: now(), s: sample{busy: sp.s.busy}}
		h, err := c.call(http.MethodPost, "/messages", s.token, map[string]any{"receiver": agent, "receiverType": "user", "text": text}, nil)
		var ae *apiError
		if errors.As(err, &ae) && ae.code == "ERR_AGENT_BUSY" && time.Now().Before(give) {
			sp.s.busy++
			busyRetries.Add(1)
			time.Sleep(time.Millisecond)
			continue
		}
		if err != nil {
			if errors.As(err, &ae) && ae.code == "ERR_AGENT_BUSY" {
				return sp.s, errBusyTooLong
			}
			return sp.s, err
		}
		if runID = h.Get("X-Agent-Run"); runID == "" {
			return sp.s, fmt.Errorf("message to %s started no run (no X-Agent-Run)", agent)
		}
		break
	}
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		var wf wsFrame
		var ok bool
		select {
		case wf, ok = <-s.frames:
			if !ok {
				return sp.s, fmt.Errorf("%w: %s, during run %s", errSocketClosed, s.uid, runID)
			}
		case <-timeout.C:
			return sp.s, fmt.Errorf("run %s: no stored answer within 30 s (%d deltas seen)", runID, sp.n)
		}
		var f frame
		if err := json.Unmarshal(wf.data, &f); err != nil {
			return sp.s, fmt.Errorf("undecodable frame %q: %w", wf.data, err)
		}
		switch {
		case f.Type == "agent" && f.RunID == runID:
			if f.Event.Type == "RUN_ERROR" {
				return sp.s, fmt.Errorf("run %s failed: %s", runID, wf.data)
			}
			sp.event(wf.at, f.Event.contentEvent)
		case f.Type == "event" && f.Event.Type == "message.created":
			var m storedMessage
			if json.Unmarshal(f.Event.Data, &m) != nil || m.Sender != agent || m.Category != "agentic" || m.Data.RunID != runID {
				continue
			}
			switch m.Type {
			case "assistant":
				return sp.done(wf.at, want)
			case "agent_error":
				return sp.s, fmt.Errorf("run %s failed (%s): %s", runID, m.Data.Code, m.Text)
			}
		}
	}
}
