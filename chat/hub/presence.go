package hub

import (
	"context"
	"time"
)

// presenceChange is a user's first socket opening on this replica or its last closing.
type presenceChange struct {
	uid    string
	online bool
}

// notePresence queues a change for the presence writer; called under h.mu. A full queue drops
// it: the next refresh says who is here, and an offline user's online flag expires by itself.
func (h *Hub) notePresence(uid string, online bool) {
	if h.o.Presence == nil {
		return
	}
	select {
	case h.presence <- presenceChange{uid, online}:
	default:
	}
}

// writePresence writes presence changes in order, and every PresenceRefresh confirms the users
// with a socket here (so their online flag does not expire), until ctx ends. On the way out
// the users still here are marked offline: this replica no longer serves them.
func (h *Hub) writePresence(ctx context.Context) {
	tick := time.NewTicker(h.o.PresenceRefresh)
	defer tick.Stop()
	write := func(uids []string, online bool) {
		wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := h.o.Presence(wctx, uids, online); err != nil {
			h.log.V(1).Info("failed to record presence", "users", len(uids), "online", online, "error", err.Error())
		}
	}
	here := func() []string {
		h.mu.RLock()
		defer h.mu.RUnlock()
		uids := make([]string, 0, len(h.byUID))
		for uid := range h.byUID {
			uids = append(uids, uid)
		}
		return uids
	}
	for {
		select {
		case <-ctx.Done():
			write(here(), false)
			return
		case c := <-h.presence:
			write([]string{c.uid}, c.online)
		case <-tick.C:
			write(here(), true)
		}
	}
}
