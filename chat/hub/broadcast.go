package hub

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentry-dev/agentry/chat/store"
)

// envelope is one ephemeral frame on its way to the other replicas. Frames are packed into
// one notification while they fit, so a fast agent stream costs few round trips, and sent by
// one goroutine, so they arrive in the order they were published.
type envelope struct {
	Replica      string          `json:"r"`
	Conversation string          `json:"c"`
	Exclude      string          `json:"x,omitempty"`
	Typing       bool            `json:"t,omitempty"`
	All          bool            `json:"a,omitempty"` // every socket (PublishAll), not a conversation's members
	Members      []string        `json:"m,omitempty"` // when the sender knew them better than the store (typing before a first message)
	Frame        json.RawMessage `json:"f"`
	// Replay asks the replica bridging the conversation's agent run to send it to To; a frame
	// with To goes to that socket only.
	Replay bool       `json:"p,omitempty"`
	To     *socketRef `json:"s,omitempty"`
}

// broadcast queues env for the other replicas; a full queue drops it (ephemeral frames are
// best effort, and the stored messages carry what must not be lost).
func (h *Hub) broadcast(env envelope) {
	if h.o.Events.Broadcasts() == nil {
		return // one process: nobody to tell
	}
	env.Replica = h.id
	select {
	case h.bq <- env:
	default:
		h.broadcastDropped.Add(1)
	}
}

// sendBroadcasts packs queued envelopes into notifications until ctx ends.
func (h *Hub) sendBroadcasts(ctx context.Context) {
	var pending *envelope
	for {
		var first envelope
		if pending != nil {
			first, pending = *pending, nil
		} else {
			select {
			case <-ctx.Done():
				return
			case first = <-h.bq:
			}
		}
		batch := []envelope{first}
		size := len(first.Frame) + 64
	fill:
		for size < store.MaxBroadcast {
			select {
			case env := <-h.bq:
				if size+len(env.Frame)+64 > store.MaxBroadcast {
					pending = &env
					break fill
				}
				batch = append(batch, env)
				size += len(env.Frame) + 64
			default:
				break fill
			}
		}
		payload, err := json.Marshal(batch)
		if err != nil || len(payload) > store.MaxBroadcast {
			h.broadcastDropped.Add(uint64(len(batch)))
			continue // a frame too large for a notification reaches local sockets only
		}
		sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		if err := h.o.Events.Broadcast(sctx, payload); err != nil && ctx.Err() == nil {
			h.broadcastDropped.Add(uint64(len(batch)))
			h.log.V(1).Info("failed to broadcast ephemeral frames", "error", err.Error())
		}
		cancel()
	}
}

// receiveBroadcasts delivers other replicas' ephemeral frames to this process's sockets.
func (h *Hub) receiveBroadcasts(ctx context.Context) {
	in := h.o.Events.Broadcasts()
	for {
		select {
		case <-ctx.Done():
			return
		case payload := <-in:
			var batch []envelope
			if json.Unmarshal(payload, &batch) != nil {
				continue
			}
			for _, env := range batch {
				if env.Replica == h.id {
					continue
				}
				counter := &h.published
				if env.Typing {
					counter = &h.typing
				}
				if env.Replay && env.To != nil {
					h.replayFor(env.Conversation, *env.To)
					continue
				}
				if env.To != nil {
					if env.To.Replica == h.id {
						h.deliverToSocket(*env.To, env.Frame)
					}
					continue
				}
				if env.All {
					h.deliverAll(env.Frame, counter)
				} else if len(env.Members) > 0 {
					h.deliverTo(env.Members, env.Exclude, env.Frame, counter)
				} else {
					h.deliver(env.Conversation, env.Exclude, env.Frame, counter)
				}
			}
		}
	}
}
