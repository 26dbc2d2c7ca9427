package main

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// ---------------------------------------------------------------------------------------------
// Messages: every message carries "bench <n>" in its text; sendAt[n] is when its POST began.

type message struct {
	n      int
	conv   string // "group:<guid>" or "user:<uid>"
	id     int64
	sendAt int64 // unix nanos
	ackAt  int64
	to     []*sock // the sockets that must receive it
}

type ledger struct {
	mu   sync.Mutex
	msgs []*message
	byN  map[int]*message
}

var sent = &ledger{byN: map[int]*message{}}

var nextN atomic.Int64

// send posts one message from token to receiver and records it; the sockets in to must get it.
func send(base, token, receiver, receiverType string, to []*sock, scheduled time.Time) (time.Duration, error) {
	n := int(nextN.Add(1))
	m := &message{n: n, conv: receiverType + ":" + receiver, sendAt: scheduled.UnixNano(), to: to}
	sent.mu.Lock()
	sent.byN[n] = m
	sent.mu.Unlock()
	var out struct {
		ID int64 `json:"id"`
	}
	err := call("POST", base+"/messages", token, map[string]any{"receiver": receiver, "receiverType": receiverType, "text": "bench " + strconv.Itoa(n)}, &out)
	lat := time.Since(scheduled)
	if err != nil {
		return lat, err
	}
	sent.mu.Lock()
	m.id, m.ackAt = out.ID, time.Now().UnixNano()
	sent.msgs = append(sent.msgs, m)
	sent.mu.Unlock()
	return lat, nil
}

// deliveries collects send-to-receive latencies of the messages n in [lo, hi).
type deliveries struct {
	lo, hi int
	mu     sync.Mutex
	lat    []time.Duration
	last   int64
}

var current atomic.Pointer[deliveries]

func (d *deliveries) add(n int, sendAt, at int64) {
	if n < d.lo || n >= d.hi {
		return
	}
	d.mu.Lock()
	d.lat = append(d.lat, time.Duration(at-sendAt))
	d.last = max(d.last, at)
	d.mu.Unlock()
}

// since lists the acked messages numbered lo or more.
func since(lo int) []*message {
	sent.mu.Lock()
	defer sent.mu.Unlock()
	var out []*message
	for _, m := range sent.msgs {
		if m.n >= lo {
			out = append(out, m)
		}
	}
	return out
}
