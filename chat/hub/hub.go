// Package hub is the chat service's WebSocket side: it authenticates sockets by their first
// frame, replays missed events from the store on resume, and fans the event log out to the
// sockets this process holds.
//
// The store's event log is the only source of truth (as in Centrifugo's history + offset
// resume): the feed loop reads EventsAfter(last pos) whenever it is woken — by a local commit
// (Notify), by another replica (the store's Wake, e.g. PostgreSQL NOTIFY) or by a 1 s poll in
// case a wake-up was lost — so a notification carries no data and losing one delays, never
// loses. Like Mattermost's hub, each socket has a bounded send queue and one writer goroutine;
// a socket whose queue is full is disconnected (4008) instead of slowing the loop down.
package hub

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/platform/ids"
)

// Hub holds this process's sockets and feeds them from the event log.
type Hub struct {
	o   Options
	log logr.Logger

	notify  chan struct{} // Notify's wake-up, buffered 1 so bursts coalesce
	started chan struct{} // closed once Run knows its start position
	ctx     context.Context
	cancel  context.CancelFunc

	mu       sync.RWMutex
	byUID    map[string]map[*session]struct{}
	sockets  int
	closed   bool
	sessions sync.WaitGroup

	// replays holds a token per running replay (MaxReplays); replaying the users with one.
	replays   chan struct{}
	replaying map[string]chan struct{} // closed when that user's replay ends
	opened    uint64                   // sockets registered so far: a session's order

	members   membership
	observers []func(model.Event)
	replayers []func(conversation string, send func(frame []byte))

	id string        // this replica, to skip its own broadcasts
	bq chan envelope // ephemeral frames for the other replicas

	presence chan presenceChange // for the presence writer, in order

	dropped, delivered, replayed, resets, typing, published, broadcastDropped, pruned, evicted atomic.Uint64
}

// New makes a hub; start its feed with Run and mount it as an http.Handler. It panics without
// Events or Authenticate, a wiring mistake that must not reach production.
func New(o Options) *Hub {
	if o.Events == nil || o.Authenticate == nil {
		panic("hub.New: Options.Events and Options.Authenticate are required")
	}
	o.defaults()
	ctx, cancel := context.WithCancel(context.Background())
	h := &Hub{
		o:       o,
		log:     o.Logger.WithName("chat-hub"),
		notify:  make(chan struct{}, 1),
		started: make(chan struct{}),
		ctx:     ctx,
		cancel:  cancel,
		byUID:   map[string]map[*session]struct{}{},
		id:      replicaID(),
		bq:      make(chan envelope, 4096),

		presence: make(chan presenceChange, 4096),
		replays:  make(chan struct{}, o.MaxReplays),

		replaying: map[string]chan struct{}{},
	}
	h.members.init(o.Events, o.MaxCachedConversations)
	return h
}

func replicaID() string { return ids.Hex(8) }

// Notify wakes the feed after a local commit so delivery does not wait for the poll. It never
// blocks.
func (h *Hub) Notify() {
	select {
	case h.notify <- struct{}{}:
	default:
	}
}

// Run feeds the sockets until ctx ends, then closes every socket (1001 going away) and waits
// for their goroutines. Sockets are refused until Run has read the log's newest position,
// because a socket registered before the feed knows where it starts could miss events.
func (h *Hub) Run(ctx context.Context) error {
	defer h.shutdown()
	poll := time.NewTicker(h.o.PollInterval)
	defer poll.Stop()

	var last int64
	for {
		_, newest, err := h.o.Events.Horizon(ctx)
		if err == nil {
			last = newest
			break
		}
		h.log.Error(err, "failed to read the event horizon; retrying")
		select {
		case <-ctx.Done():
			return nil
		case <-poll.C:
		}
	}
	close(h.started)
	if h.o.Presence != nil {
		go h.writePresence(ctx)
	}
	if h.o.Retention > 0 {
		go h.pruneEvents(ctx)
	}
	if h.o.Events.Broadcasts() != nil {
		go h.sendBroadcasts(ctx)
		go h.receiveBroadcasts(ctx)
	}

	wake := h.o.Events.Wake() // nil for SQLite: never ready
	for {
		last = h.feed(ctx, last)
		select {
		case <-ctx.Done():
			return nil
		case <-h.notify:
		case <-wake:
		case <-poll.C:
		}
	}
}

// pruneEvents deletes the events older than Retention now and every PruneInterval. Every
// replica runs it: a batch another replica already deleted deletes nothing.
func (h *Hub) pruneEvents(ctx context.Context) {
	tick := time.NewTicker(h.o.PruneInterval)
	defer tick.Stop()
	for {
		n, err := h.o.Events.PruneEvents(ctx, time.Now().Add(-h.o.Retention))
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			h.log.Error(err, "failed to prune events; the next pass retries", "retention", h.o.Retention.String())
		case n > 0:
			h.pruned.Add(uint64(n))
			h.log.V(1).Info("pruned events", "count", n, "retention", h.o.Retention.String())
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// feed reads and dispatches every event after last, returning the new position. On a store
// error it stops where it got to; the next wake-up or poll retries.
func (h *Hub) feed(ctx context.Context, last int64) int64 {
	for ctx.Err() == nil {
		evs, err := h.o.Events.EventsAfter(ctx, last, h.o.PageSize)
		if err != nil {
			if ctx.Err() == nil {
				h.log.Error(err, "failed to read events", "after", last)
			}
			return last
		}
		for _, ev := range evs {
			if err := h.dispatch(ctx, ev); err != nil {
				if ctx.Err() == nil {
					h.log.Error(err, "failed to dispatch event", "pos", ev.Pos, "conversation", ev.ConversationID)
				}
				return last
			}
			last = ev.Pos
			h.observe(ev)
		}
		if len(evs) < h.o.PageSize {
			return last
		}
	}
	return last
}

// dispatch queues ev to the local sockets of everyone who may see it: the conversation's
// members (as EventsSince defines visibility) and the event's target. Membership events
// update the cache so a joiner sees its own join and a removed member still gets its removal.
func (h *Hub) dispatch(ctx context.Context, ev model.Event) error {
	var recipients []string
	if ev.ConversationID == "" && ev.Type == model.EventGroupDeleted {
		h.members.groupDeleted(ev)
	}
	if ev.ConversationID != "" {
		var err error
		recipients, err = h.members.recipients(ctx, ev)
		if err != nil {
			return err
		}
	}
	if ev.TargetUID != "" && !slices.Contains(recipients, ev.TargetUID) {
		recipients = append(recipients, ev.TargetUID)
	}
	if len(recipients) == 0 {
		return nil
	}
	var data []byte
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, uid := range recipients {
		socks := h.byUID[uid]
		if len(socks) == 0 {
			continue
		}
		if data == nil {
			var err error
			if data, err = encodeEvent(ev); err != nil {
				return err
			}
		}
		revoke, tokenID := false, ""
		if ev.Type == model.EventTokensRevoked && uid == ev.TargetUID {
			revoke, tokenID = true, revokedTokenID(ev)
		}
		for s := range socks {
			// Every socket of the user gets the event (its pos); only those opened with a
			// revoked token close.
			s.enqueue(outFrame{pos: ev.Pos, data: data, revoke: revoke && (tokenID == "" || tokenID == s.tokenID)})
		}
	}
	return nil
}

// revokedTokenID is the token id an auth.revoked event names; "" when it names none or "*"
// (every token of the user: RevokeUserTokens).
func revokedTokenID(ev model.Event) string {
	var d struct {
		TokenID string `json:"tokenId"`
	}
	if json.Unmarshal(ev.Data, &d) != nil || d.TokenID == "*" {
		return ""
	}
	return d.TokenID
}

func (h *Hub) observe(ev model.Event) {
	h.mu.RLock()
	obs := h.observers
	h.mu.RUnlock()
	for _, fn := range obs {
		fn(ev)
	}
}

// register adds s to the sockets fed live events; false once the hub is shutting down.
func (h *Hub) register(s *session) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	socks := h.byUID[s.uid]
	if socks == nil {
		socks = map[*session]struct{}{}
		h.byUID[s.uid] = socks
		h.notePresence(s.uid, true)
	}
	for len(socks) >= h.o.MaxSocketsPerUser {
		// The user's oldest socket goes (a forgotten tab); it stops getting events now.
		var oldest *session
		for o := range socks {
			if oldest == nil || o.order < oldest.order {
				oldest = o
			}
		}
		delete(socks, oldest)
		h.sockets--
		h.evicted.Add(1)
		oldest.evict()
	}
	h.opened++
	s.order = h.opened
	socks[s] = struct{}{}
	h.sockets++
	return true
}

// replaySlot waits for a replay slot: one of MaxReplays, and the user's own (one replay per
// user at a time). release gives both back; ok is false when ctx ended first.
func (h *Hub) replaySlot(ctx context.Context, uid string) (release func(), ok bool) {
	for {
		h.mu.Lock()
		busy, mine := h.replaying[uid]
		if !mine {
			done := make(chan struct{})
			h.replaying[uid] = done
			h.mu.Unlock()
			select {
			case h.replays <- struct{}{}:
				return func() {
					<-h.replays
					h.mu.Lock()
					delete(h.replaying, uid)
					h.mu.Unlock()
					close(done)
				}, true
			case <-ctx.Done():
				h.mu.Lock()
				delete(h.replaying, uid)
				h.mu.Unlock()
				close(done)
				return nil, false
			}
		}
		h.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, false
		}
	}
}

func (h *Hub) unregister(s *session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	socks := h.byUID[s.uid]
	if _, ok := socks[s]; !ok {
		return
	}
	delete(socks, s)
	if len(socks) == 0 {
		delete(h.byUID, s.uid)
		h.notePresence(s.uid, false)
	}
	h.sockets--
}

// begin counts a session in, unless the hub is shutting down; sessions.Add must never race
// shutdown's Wait.
func (h *Hub) begin() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.sessions.Add(1)
	return true
}

func (h *Hub) shutdown() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cancel()
	h.sessions.Wait()
}
