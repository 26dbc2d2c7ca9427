package hub

import (
	"context"
	"time"

	"github.com/go-logr/logr"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/platform/defaults"
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
	// Sessions, when set, keeps a session with an idle timeout (TokenInfo.Idle) alive while
	// its client sends frames, and closes its socket with 4001 once the session has been idle
	// for that long everywhere (REST and every socket: the store has the last use).
	Sessions Sessions
}

// Sessions is what the hub needs of the store for idle timeouts (store.Tokens has both).
type Sessions interface {
	TouchToken(ctx context.Context, id string) error
	TokenByID(ctx context.Context, id string) (store.TokenInfo, error)
}

func (o *Options) defaults() {
	defaults.Positive(&o.QueueSize, 256)
	defaults.Positive(&o.Heartbeat, 25*time.Second)
	defaults.Positive(&o.HeartbeatTimeout, 10*time.Second)
	defaults.Positive(&o.ReplayLimit, 10000)
	defaults.Positive(&o.ReplayMaxBytes, 4<<20)
	defaults.Positive(&o.MaxReplays, 16)
	defaults.Positive(&o.MaxSocketsPerUser, 20)
	defaults.Positive(&o.PresenceRefresh, model.PresenceRefresh)
	defaults.Positive(&o.PageSize, 500)
	o.PageSize = min(o.PageSize, 1000)
	defaults.Positive(&o.AuthTimeout, 10*time.Second)
	defaults.Positive(&o.WriteTimeout, 10*time.Second)
	defaults.Positive(&o.PollInterval, time.Second)
	defaults.Positive(&o.MaxCachedConversations, 100000)
	defaults.Positive(&o.PruneInterval, max(min(o.Retention/10, time.Hour), time.Second))
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
