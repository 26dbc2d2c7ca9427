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
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
)

// DefaultRetention is how long `agentry chat` keeps events for resuming clients unless told
// otherwise: a client away for longer reloads its lists, which costs it one page each.
const DefaultRetention = 7 * 24 * time.Hour

// Options configure a Hub. Events and Authenticate are required.
type Options struct {
	Events store.Events
	// Authenticate maps a token from the auth frame to its user, its id (the id an
	// auth.revoked event names, so revoking one token closes only the sockets it opened) and
	// its expiry (the socket closes with 4001 then). An error whose model code is
	// ErrUnavailable closes the socket with 1013 (try again later) instead of 4001.
	Authenticate func(ctx context.Context, token string) (store.TokenInfo, error)
	Logger       logr.Logger

	// QueueSize bounds each socket's send queue (default 256 frames); a full queue disconnects.
	QueueSize int
	// Heartbeat is the ping interval (default 25 s, under common 30–60 s proxy idle timeouts);
	// HeartbeatTimeout is how long a pong may take before the peer counts as dead (default 10 s).
	Heartbeat        time.Duration
	HeartbeatTimeout time.Duration
	// ReplayLimit is the most events one resume replays (default 10,000), ReplayMaxBytes the
	// most bytes (default 4 MiB); a client further behind gets a reset, as reloading its lists
	// is cheaper than streaming the backlog.
	ReplayLimit    int
	ReplayMaxBytes int
	// MaxReplays is how many replays run at once on this replica (default 16); each user has
	// at most one at a time, so one user's sockets cannot take every slot. A socket waits for
	// its slot at most AuthTimeout, then closes with 1013 (try again later).
	MaxReplays int
	// MaxSocketsPerUser bounds a user's sockets on this replica (default 20): a new one
	// closes the user's oldest with 4009.
	MaxSocketsPerUser int
	// PageSize is how many events one store read asks for, for replay and the feed (default
	// 500, at most 1000: the SQL store's cap).
	PageSize int
	// AuthTimeout is how long the auth frame may take (default 10 s).
	AuthTimeout time.Duration
	// WriteTimeout bounds one frame write (default 10 s); a peer that cannot take a frame in
	// that long is closed.
	WriteTimeout time.Duration
	// PollInterval is the feed's fallback poll (default 1 s).
	PollInterval time.Duration
	// OriginPatterns restricts browser origins (coder/websocket patterns). Empty accepts any
	// origin: sockets carry no ambient credentials (the token comes in the first frame, never
	// from a cookie), so a foreign page gains nothing it could not do with its own token.
	OriginPatterns []string
	// MaxCachedConversations bounds the membership cache (default 100,000); past it the cache
	// is dropped and reloaded on demand.
	MaxCachedConversations int
	// Retention is how long events are kept for resuming clients (0: forever). Older ones are
	// pruned every PruneInterval (default Retention/10, between a second and an hour); a
	// client resuming from before what is kept gets a reset, as one too far behind does.
	// Messages, groups and receipts are not events and are never pruned.
	Retention     time.Duration
	PruneInterval time.Duration
	// Presence, when set, records users as online when their first socket opens on this
	// replica and offline when their last closes, and confirms the connected ones every
	// PresenceRefresh (default model.PresenceRefresh).
	Presence        func(ctx context.Context, uids []string, online bool) error
	PresenceRefresh time.Duration
}

func (o *Options) defaults() {
	if o.QueueSize <= 0 {
		o.QueueSize = 256
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 25 * time.Second
	}
	if o.HeartbeatTimeout <= 0 {
		o.HeartbeatTimeout = 10 * time.Second
	}
	if o.ReplayLimit <= 0 {
		o.ReplayLimit = 10000
	}
	if o.ReplayMaxBytes <= 0 {
		o.ReplayMaxBytes = 4 << 20
	}
	if o.MaxReplays <= 0 {
		o.MaxReplays = 16
	}
	if o.MaxSocketsPerUser <= 0 {
		o.MaxSocketsPerUser = 20
	}
	if o.PresenceRefresh <= 0 {
		o.PresenceRefresh = model.PresenceRefresh
	}
	if o.PageSize <= 0 {
		o.PageSize = 500
	}
	o.PageSize = min(o.PageSize, 1000)
	if o.AuthTimeout <= 0 {
		o.AuthTimeout = 10 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 10 * time.Second
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	if o.MaxCachedConversations <= 0 {
		o.MaxCachedConversations = 100000
	}
	if o.PruneInterval <= 0 {
		o.PruneInterval = max(min(o.Retention/10, time.Hour), time.Second)
	}
}

// Stats are the hub's counters for metrics.
type Stats struct {
	Sockets   int    // open, authenticated sockets
	Dropped   uint64 // sockets closed because their queue filled (slow consumers)
	Delivered uint64 // event frames written to sockets (replayed and live)
	Replayed  uint64 // of which replayed on resume
	Resets    uint64 // reset frames sent
	Evicted   uint64 // sockets closed because their user opened more than MaxSocketsPerUser
	Typing    uint64 // typing frames queued
	Published uint64 // ephemeral frames (agent run events) queued
	// BroadcastDropped counts ephemeral frames not relayed between replicas: not sent (queue
	// full, too large, or the store failed) or, arriving from another replica, let go because
	// this one's receiving buffer was full.
	BroadcastDropped uint64
	Pruned           uint64 // events this replica deleted as older than Retention
}

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

func replicaID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Notify wakes the feed after a local commit so delivery does not wait for the poll. It never
// blocks.
func (h *Hub) Notify() {
	select {
	case h.notify <- struct{}{}:
	default:
	}
}

// Stats returns the current counters.
func (h *Hub) Stats() Stats {
	h.mu.RLock()
	n := h.sockets
	h.mu.RUnlock()
	return Stats{
		Sockets:          n,
		Dropped:          h.dropped.Load(),
		Delivered:        h.delivered.Load(),
		Replayed:         h.replayed.Load(),
		Resets:           h.resets.Load(),
		Evicted:          h.evicted.Load(),
		Typing:           h.typing.Load(),
		Published:        h.published.Load(),
		BroadcastDropped: h.broadcastDropped.Load() + h.o.Events.BroadcastsDropped(),
		Pruned:           h.pruned.Load(),
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
