package hub

import (
	"slices"
)

// FrameReplay: a client asks for the agent run in flight in a conversation, from its call's
// first event ({"type":"replay","conversationId"}), after it (re)opened the conversation: a
// page that reloaded, or a socket that moved to another replica, missed the frames before.
const FrameReplay = "replay"

// ReplaysPer10s is how many replay frames a socket may send in any ten seconds; the rest are
// dropped (each one makes the run's replica send the answer so far).
const ReplaysPer10s = TypingPerSecond

// socketRef names one socket among the replicas: a replay goes to the socket that asked only.
type socketRef struct {
	Replica string `json:"r"`
	UID     string `json:"u"`
	Order   uint64 `json:"o"`
}

// OnReplay registers fn, which sends through send the frames of the conversation's agent run
// when this replica bridges it (the bridge's Replay). fn must not block for long.
func (h *Hub) OnReplay(fn func(conversation string, send func(frame []byte))) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.replayers = append(h.replayers, fn)
}

// replay asks this replica and the others for the conversation's agent run, for s alone; s's
// user must be a member of the conversation.
func (h *Hub) replay(s *session, conversation string) {
	members, ok := h.membersOf(conversation)
	if ok && len(members) == 0 {
		members = pair(conversation, s.uid) // a one-to-one conversation: its id names both users
	}
	if !ok || !slices.Contains(members, s.uid) {
		return
	}
	h.replayHere(conversation, func(frame []byte) {
		s.enqueue(outFrame{data: frame})
		h.published.Add(1)
	})
	h.broadcast(envelope{Conversation: conversation, Replay: true, To: &socketRef{Replica: h.id, UID: s.uid, Order: s.order}})
}

// replayHere runs the replayers of this replica.
func (h *Hub) replayHere(conversation string, send func(frame []byte)) {
	h.mu.RLock()
	fns := slices.Clone(h.replayers)
	h.mu.RUnlock()
	for _, fn := range fns {
		fn(conversation, send)
	}
}

// replayFor answers another replica's replay request: the frames travel back to its socket.
func (h *Hub) replayFor(conversation string, to socketRef) {
	h.replayHere(conversation, func(frame []byte) {
		h.broadcast(envelope{Conversation: conversation, To: &to, Frame: frame})
	})
}

// deliverToSocket queues frame to one socket of this replica, if it is still open.
func (h *Hub) deliverToSocket(to socketRef, frame []byte) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for s := range h.byUID[to.UID] {
		if s.order == to.Order {
			s.enqueue(outFrame{data: frame})
			h.published.Add(1)
		}
	}
}
