package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
)

// membership caches who may see each conversation's events, so fan-out costs no store read
// per event. An entry is loaded with Members on first sight and then kept current by the
// membership events the feed passes through, in log order. Only the feed goroutine writes;
// Typing reads from request goroutines.
type membership struct {
	events store.Events
	max    int

	mu    sync.RWMutex
	convs map[string]*convMembers
}

type convMembers struct {
	set  map[string]struct{}
	list []string // immutable snapshot of set, rebuilt on change; shared with readers
}

func (m *membership) init(ev store.Events, max int) {
	m.events = ev
	m.max = max
	m.convs = map[string]*convMembers{}
}

func newConvMembers(uids []string) *convMembers {
	c := &convMembers{set: make(map[string]struct{}, len(uids))}
	for _, u := range uids {
		c.set[u] = struct{}{}
	}
	c.rebuild()
	return c
}

func (c *convMembers) rebuild() {
	list := make([]string, 0, len(c.set))
	for u := range c.set {
		list = append(list, u)
	}
	// Clipped so a caller's append copies instead of writing into the shared array.
	c.list = slices.Clip(list)
}

// load reads a conversation's members from the store and caches them (feed goroutine only).
func (m *membership) load(ctx context.Context, conversation string) (*convMembers, error) {
	uids, err := m.events.Members(ctx, conversation)
	if err != nil {
		return nil, fmt.Errorf("failed to load members of %q: %w", conversation, err)
	}
	c := newConvMembers(uids)
	m.mu.Lock()
	if len(m.convs) >= m.max {
		// Dropping everything is crude but always correct: entries reload on demand.
		m.convs = map[string]*convMembers{}
	}
	m.convs[conversation] = c
	m.mu.Unlock()
	return c, nil
}

// list is the cached member list of conversation, for readers outside the feed goroutine.
func (m *membership) list(conversation string) ([]string, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if c := m.convs[conversation]; c != nil {
		return c.list, true
	}
	return nil, false
}

func (m *membership) cached(conversation string) *convMembers {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.convs[conversation]
}

// recipients returns who may see ev, applying ev to the cache if it changes membership: a
// joiner is added before (it sees its own join), a leaver removed after (it sees its own
// removal). Feed goroutine only. The returned slice must not be modified.
func (m *membership) recipients(ctx context.Context, ev model.Event) ([]string, error) {
	c := m.cached(ev.ConversationID)
	if c == nil {
		var err error
		if c, err = m.load(ctx, ev.ConversationID); err != nil {
			return nil, err
		}
	}
	switch ev.Type {
	case model.EventMemberJoined, model.EventMemberAdded:
		uid, ok := memberUID(ev)
		if !ok {
			// Cannot tell who joined: the store knows (possibly a little ahead of the log).
			return m.reloadList(ctx, ev.ConversationID)
		}
		if _, in := c.set[uid]; !in {
			m.mu.Lock()
			c.set[uid] = struct{}{}
			c.rebuild()
			m.mu.Unlock()
		}
	case model.EventMemberLeft, model.EventMemberKicked, model.EventMemberBanned:
		list := c.list
		uid, ok := memberUID(ev)
		m.mu.Lock()
		if ok {
			if _, in := c.set[uid]; in {
				delete(c.set, uid)
				c.rebuild()
			}
		} else {
			delete(m.convs, ev.ConversationID) // reload on next sight
		}
		m.mu.Unlock()
		return list, nil
	case model.EventGroupCreated:
		// A guid can be reused after a deletion: never trust an entry from before.
		return m.reloadList(ctx, ev.ConversationID)
	case model.EventGroupDeleted:
		m.forget(ev.ConversationID)
	}
	return c.list, nil
}

func (m *membership) forget(conversation string) {
	m.mu.Lock()
	delete(m.convs, conversation)
	m.mu.Unlock()
}

// groupDeleted drops a deleted group's entry when the deletion comes as events targeted at
// the former members (no conversation id, {"guid":…} in the data).
func (m *membership) groupDeleted(ev model.Event) {
	var d struct {
		GUID string `json:"guid"`
	}
	if json.Unmarshal(ev.Data, &d) == nil && d.GUID != "" {
		m.forget(model.ConversationID(model.ReceiverGroup, "", d.GUID))
	}
}

func (m *membership) reloadList(ctx context.Context, conversation string) ([]string, error) {
	c, err := m.load(ctx, conversation)
	if err != nil {
		return nil, err
	}
	return c.list, nil
}

// memberUID finds the user a membership event is about: its target, or a uid in its data
// ({"on":…}, as the SQL store writes it, {"uid":…}, {"member":{"uid":…}} or {"user":{"uid":…}}).
func memberUID(ev model.Event) (string, bool) {
	if ev.TargetUID != "" {
		return ev.TargetUID, true
	}
	var d struct {
		On     string `json:"on"`
		UID    string `json:"uid"`
		Member struct {
			UID string `json:"uid"`
		} `json:"member"`
		User struct {
			UID string `json:"uid"`
		} `json:"user"`
	}
	if json.Unmarshal(ev.Data, &d) != nil {
		return "", false
	}
	for _, u := range []string{d.On, d.UID, d.Member.UID, d.User.UID} {
		if u != "" {
			return u, true
		}
	}
	return "", false
}

// Typing relays an ephemeral typing event from uid to the other members of conversation, on
// this replica's sockets and, through the store's broadcast, on the other replicas'. Typing is
// best effort: clients time indicators out by themselves.
func (h *Hub) Typing(uid, conversation string, started bool) {
	members, ok := h.membersOf(conversation)
	if ok && len(members) == 0 {
		// A one-to-one conversation exists once its first message does; typing may come
		// first. Its id names both users, which is unambiguous once one of them is known.
		members = pair(conversation, uid)
	}
	if !ok || !slices.Contains(members, uid) {
		return
	}
	typ := model.EventTypingEnded
	if started {
		typ = model.EventTypingStarted
	}
	data, _ := json.Marshal(map[string]string{"uid": uid, "conversationId": conversation})
	frame, err := encodeEvent(model.Event{ConversationID: conversation, Type: typ, Data: data, At: time.Now().UTC()})
	if err != nil {
		return
	}
	h.deliverTo(members, uid, frame, &h.typing)
	h.broadcast(envelope{Conversation: conversation, Exclude: uid, Frame: frame, Typing: true, Members: members})
}

// Publish queues an ephemeral frame (already encoded, e.g. an agent run's live event) to the
// sockets of the conversation's members, here and on the other replicas. Like typing it is not
// stored: what matters of an agent run is persisted as messages when the run ends.
func (h *Hub) Publish(conversation string, frame []byte) {
	h.deliver(conversation, "", frame, &h.published)
	h.broadcast(envelope{Conversation: conversation, Frame: frame})
}

// PublishAll queues an ephemeral frame to every connected socket, here and on the other
// replicas (e.g. agents.changed, after an admin changed which agents users see). Like Publish
// it is not stored and never blocks: a socket whose queue is full is closed as too slow.
func (h *Hub) PublishAll(frame []byte) {
	h.deliverAll(frame, &h.published)
	h.broadcast(envelope{All: true, Frame: frame})
}

// membersOf returns the conversation's members from the cache, or else from the store without
// caching (only the feed writes the cache, so it stays in log order).
func (h *Hub) membersOf(conversation string) ([]string, bool) {
	if members, ok := h.members.list(conversation); ok {
		return members, true
	}
	ctx, cancel := context.WithTimeout(h.ctx, 5*time.Second)
	defer cancel()
	uids, err := h.o.Events.Members(ctx, conversation)
	if err != nil {
		h.log.V(1).Info("failed to load members for an ephemeral frame", "conversation", conversation, "error", err.Error())
		return nil, false
	}
	return uids, true
}

// deliver queues frame to this process's sockets of the conversation's members but exclude.
func (h *Hub) deliver(conversation, exclude string, frame []byte, counter *atomic.Uint64) {
	if members, ok := h.membersOf(conversation); ok {
		h.deliverTo(members, exclude, frame, counter)
	}
}

func (h *Hub) deliverTo(members []string, exclude string, frame []byte, counter *atomic.Uint64) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, member := range members {
		if member == exclude {
			continue
		}
		for s := range h.byUID[member] {
			s.enqueue(outFrame{data: frame})
			counter.Add(1)
		}
	}
}

// deliverAll queues frame to every socket of this process.
func (h *Hub) deliverAll(frame []byte, counter *atomic.Uint64) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, socks := range h.byUID {
		for s := range socks {
			s.enqueue(outFrame{data: frame})
			counter.Add(1)
		}
	}
}

// Observe registers fn to see every stored event the feed reads, after it was queued to the
// sockets (the agent bridge waits for frontend action results this way, whichever replica
// stored them). fn must not block.
func (h *Hub) Observe(fn func(model.Event)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.observers = append(h.observers, fn)
}

// pair returns the two users of one-to-one conversation id when uid is one of them.
func pair(conversation, uid string) []string {
	if other, ok := strings.CutPrefix(conversation, "user_"+uid+"_user_"); ok && other != "" {
		return []string{uid, other}
	}
	if rest, ok := strings.CutSuffix(conversation, "_user_"+uid); ok {
		if other, ok := strings.CutPrefix(rest, "user_"); ok && other != "" {
			return []string{other, uid}
		}
	}
	return nil
}
