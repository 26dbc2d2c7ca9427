// Package store persists the chat service: users, tokens, groups, members, messages, reactions,
// receipts, flags, moderation rules and the event log, behind one interface with one SQL
// implementation over two dialects — SQLite (file:, one replica) and PostgreSQL (postgres://,
// several replicas). Every write that users can observe appends its events in the same
// transaction, so an event exists if and only if its change committed.
//
// Permission rules that must hold under concurrency (a banned user cannot rejoin, only members
// write to a group, only the sender edits) are checked inside the writing transaction, here,
// not by the caller.
package store

import (
	"context"
	"errors"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

// Store is the chat service's persistence. All methods are safe for concurrent use. Errors
// are *model.Error with a catalogue code (ErrUnavailable when the database itself fails).
type Store interface {
	Users
	Tokens
	Invitations
	SigningKeys
	Groups
	Messages
	Events
	Moderation
	Agents
	AgentRuns
	Approvals
	Usage
	// Ping checks the database is reachable.
	Ping(ctx context.Context) error
	// Kind is sqlite or postgres.
	Kind() string
	Close() error
}

// ErrAlreadySent comes with the message stored earlier when a send repeats a muid; nothing
// was written. It is not a *model.Error: callers answer with that message.
var ErrAlreadySent = errors.New("a message with this muid was sent already")

// Page is one page of a listing; Next is the opaque cursor of the following page ("" at the end).
type Page[T any] struct {
	Items []T    `json:"items"`
	Next  string `json:"next,omitempty"`
}

// Users are people and agents.
type Users interface {
	CreateUser(ctx context.Context, u model.User) (model.User, error)
	GetUser(ctx context.Context, uid string) (model.User, error)
	UpdateUser(ctx context.Context, u model.User) (model.User, error)
	// SetPresence records that the users have a socket open (online) or none on the calling
	// replica (offline), as of now.
	SetPresence(ctx context.Context, uids []string, online bool) error
	ListUsers(ctx context.Context, q UserQuery) (Page[model.User], error)
	// SetDeactivated deactivates (revoking every token of the user, one auth.revoked event) or
	// reactivates a person; agents cannot be.
	SetDeactivated(ctx context.Context, uid string, deactivated bool) (model.User, error)
}

// UserQuery filters the user list.
type UserQuery struct {
	Limit         int
	Cursor        string
	SearchKeyword string
	Kind          model.UserKind // "" for all
	// HideDisabledAgents leaves out agent users without an enabled agent configuration
	// (what users, as opposed to admins, may see).
	HideDisabledAgents bool
}

// TokenInfo is a live token: its user, its id (what auth.revoked names) and when it expires
// (zero: never).
type TokenInfo struct {
	UID       string
	ID        string
	ExpiresAt time.Time
	// Idle is a session's idle timeout (zero: none): it ends when UsedAt+Idle passes.
	Idle   time.Duration
	UsedAt time.Time
}

// TouchEvery is how stale a session's recorded use may get before a request or socket frame
// records a new one: one write about once a minute per session, not one per request, and
// often enough for a short idle timeout.
func TouchEvery(idle time.Duration) time.Duration {
	return min(time.Minute, idle/4)
}

// SigningKey is one of the keys the chat signs its users' tokens for agents with: a PKCS #8
// private key, kept sealed with the headers key.
type SigningKey struct {
	ID        string
	Private   []byte
	CreatedAt time.Time
}

// SigningKeys are the chat's signing keys, shared by every replica.
type SigningKeys interface {
	// SigningKeys are the newest n keys, newest first.
	SigningKeys(ctx context.Context, n int) ([]SigningKey, error)
	// AddSigningKey stores a new key (ErrValidation without a headers key to seal it with).
	AddSigningKey(ctx context.Context, k SigningKey) error
}

// Invitations let people set up a password of their own; codes and passwords are stored as
// hashes only.
type Invitations interface {
	// CreateInvitation stores an invitation for inv.UID (a person, not deactivated) with the
	// code's hash; the person's earlier unused invitations stop working.
	CreateInvitation(ctx context.Context, inv model.Invitation, hash []byte) (model.Invitation, error)
	// Invitation is the live invitation with the code's hash (ErrInvitationInvalid when
	// unknown, used, replaced or expired).
	Invitation(ctx context.Context, hash []byte) (model.Invitation, error)
	// AcceptInvitation uses the invitation up and sets its person's password hash, at once:
	// a code works exactly once.
	AcceptInvitation(ctx context.Context, hash []byte, passwordHash string) (model.Invitation, error)
	// UserPasswordHash is the person's bcrypt password hash ("" when they have none).
	UserPasswordHash(ctx context.Context, uid string) (string, error)
}

// Tokens are per-user auth tokens. Only a hash of a token is stored.
type Tokens interface {
	// CreateToken stores a token hash for uid; expires zero means no expiry.
	CreateToken(ctx context.Context, uid string, hash []byte, expires time.Time) (id string, err error)
	// TokenUser returns who a live token belongs to (ErrUnauthenticated when unknown, revoked
	// or expired).
	TokenUser(ctx context.Context, hash []byte) (TokenInfo, error)
	// CreateSession stores a session's token hash: a token that also ends when it has not
	// been used (TouchToken) for idle; idle zero means no idle timeout.
	CreateSession(ctx context.Context, uid string, hash []byte, expires time.Time, idle time.Duration) (id string, err error)
	// TouchToken records that a session was used now (a no-op for a token without an idle
	// timeout). Callers write at most about once a minute per session, not per request.
	TouchToken(ctx context.Context, id string) error
	// TokenByID is TokenUser for a token id (a socket rechecking its session).
	TokenByID(ctx context.Context, id string) (TokenInfo, error)
	// RevokeToken revokes one token of uid; its event (auth.revoked) names the token id, so
	// only sockets authenticated with that token close.
	RevokeToken(ctx context.Context, uid, id string) error
	// RevokeUserTokens revokes every token of uid; its event names tokenId "*" (all sockets).
	RevokeUserTokens(ctx context.Context, uid string) error
}

// Groups are group conversations and their members. Every membership change also stores its
// action message (category action, type groupMember) and its events.
type Groups interface {
	// CreateGroup creates the group with actor as owner and admin, plus members.
	CreateGroup(ctx context.Context, actor string, g model.Group, members []model.Member) (model.Group, error)
	GetGroup(ctx context.Context, viewer, guid string) (model.Group, error)
	UpdateGroup(ctx context.Context, actor, guid string, p GroupPatch) (model.Group, error)
	DeleteGroup(ctx context.Context, actor, guid string) error
	ListGroups(ctx context.Context, viewer string, q GroupQuery) (Page[model.Group], error)

	// PasswordHash returns the stored password hash of a password group ("" for other types):
	// the caller checks a password against it outside any transaction (bcrypt is slow) and
	// passes the hash it verified to JoinGroup. ErrGUIDNotFound when there is no such group.
	PasswordHash(ctx context.Context, guid string) (string, error)
	// JoinGroup joins a public group, or a password group when checkPassword accepts the
	// stored hash. Private groups answer ErrPrivateGroup, banned users ErrBanned.
	// (It runs inside the write transaction, so it must be cheap: compare with a hash verified
	// beforehand, never run bcrypt in it.)
	JoinGroup(ctx context.Context, uid, guid string, checkPassword func(hash string) bool) (model.Group, error)
	LeaveGroup(ctx context.Context, uid, guid string) error
	// AddMembers adds users (admins only); the result maps each uid to its error, nil on success.
	AddMembers(ctx context.Context, actor, guid string, members []model.Member) (map[string]error, error)
	KickMember(ctx context.Context, actor, guid, uid string) error
	BanMember(ctx context.Context, actor, guid, uid string) error
	UnbanMember(ctx context.Context, actor, guid, uid string) error
	ChangeScope(ctx context.Context, actor, guid, uid string, scope model.Scope) error
	TransferOwnership(ctx context.Context, actor, guid, newOwner string) error
	ListMembers(ctx context.Context, viewer, guid string, q MemberQuery) (Page[model.Member], error)
	ListBanned(ctx context.Context, viewer, guid string, q MemberQuery) (Page[model.Member], error)
}

// GroupPatch changes a group; nil fields stay.
type GroupPatch struct {
	Name         *string
	Description  *string
	Icon         *string
	Tags         *[]string
	Type         *model.GroupType
	PasswordHash *string
}

// GroupQuery filters the group directory.
type GroupQuery struct {
	Limit         int // default 30, at most 100
	Cursor        string
	SearchKeyword string
	JoinedOnly    bool
	Tags          []string
	WithTags      bool // include tags in the answer (they are always stored)
}

// MemberQuery pages members.
type MemberQuery struct {
	Limit  int
	Cursor string
	Scopes []model.Scope
}

// Messages are conversation entries and what hangs off them.
type Messages interface {
	// SendMessage stores m from m.Sender to m.ReceiverID; the sender must be a member of a
	// group receiver, and a user receiver must exist. It fills ID, ConversationID and SentAt.
	// A message whose MUID the sender used before is not stored again: SendMessage returns
	// the message stored first and ErrAlreadySent (a retried send whose answer was lost).
	SendMessage(ctx context.Context, m model.Message) (model.Message, error)
	// MessageByMUID returns the message sender sent with muid (ErrMessageNotFound if none).
	MessageByMUID(ctx context.Context, sender, muid string) (model.Message, error)
	// SendMessages stores several messages in one transaction (an agent run's output).
	SendMessages(ctx context.Context, ms []model.Message) ([]model.Message, error)
	EditMessage(ctx context.Context, actor string, id int64, text string, data []byte) (model.Message, error)
	// DeleteMessage leaves a tombstone; the sender, or a group's admins and moderators, may.
	DeleteMessage(ctx context.Context, actor string, id int64) (model.Message, error)
	GetMessage(ctx context.Context, viewer string, id int64) (model.Message, error)
	ListMessages(ctx context.Context, viewer string, q MessageQuery) ([]model.Message, error)
	// SearchMessages finds the messages containing a keyword in every conversation the viewer
	// can read (one-to-one and the groups it is a member of), newest first.
	SearchMessages(ctx context.Context, viewer string, q SearchQuery) ([]model.Message, error)

	AddReaction(ctx context.Context, uid string, id int64, reaction string) (model.Message, error)
	RemoveReaction(ctx context.Context, uid string, id int64, reaction string) (model.Message, error)
	ListReactions(ctx context.Context, viewer string, id int64, reaction string, q MemberQuery) (Page[model.Reaction], error)

	// MarkDelivered and MarkRead move the viewer's watermark forward to id (never back).
	MarkDelivered(ctx context.Context, uid string, id int64) error
	MarkRead(ctx context.Context, uid string, id int64) error
	// MarkUnread moves the read watermark back to just before id.
	MarkUnread(ctx context.Context, uid string, id int64) error
	// MessageInfo lists each other member's receipts for the message.
	MessageInfo(ctx context.Context, viewer string, id int64) ([]ReceiptInfo, error)
	Flag(ctx context.Context, f model.Flag) error
	ListFlags(ctx context.Context, q MemberQuery) (Page[model.Flag], error)

	ListConversations(ctx context.Context, uid string, q ConversationQuery) (Page[model.Conversation], error)
}

// MessageQuery selects messages of one conversation: with the user UID or in group GUID.
// At most one of Before, After and Around is set; none means the newest.
type MessageQuery struct {
	UID, GUID     string
	Limit         int // default 30, at most 100
	Before, After int64
	Around        int64
	ParentID      int64 // replies of a thread
	HideReplies   bool
	Types         []string
	Categories    []string
	// SearchKeyword keeps the messages whose text contains it (case-insensitive), deleted ones
	// never.
	SearchKeyword string
}

// SearchQuery finds messages across the viewer's conversations, newest first.
type SearchQuery struct {
	Keyword string // required, at least 2 characters
	Limit   int    // default 30, at most 100
	Before  int64  // a page: messages with an id below this
}

// ConversationQuery pages the conversation list.
type ConversationQuery struct {
	Limit  int
	Cursor string
	Type   model.ReceiverType // "" for both
}

// ReceiptInfo is one member's receipts of a message.
type ReceiptInfo struct {
	UID         string     `json:"uid"`
	DeliveredAt *time.Time `json:"deliveredAt,omitempty"`
	ReadAt      *time.Time `json:"readAt,omitempty"`
}

// Events is the log every socket is fed from.
type Events interface {
	// EventsSince returns up to limit events after pos that uid may see (conversations it
	// is a member of, and events targeted at it), in Pos order.
	EventsSince(ctx context.Context, uid string, pos int64, limit int) ([]model.Event, error)
	// EventsAfter returns up to limit events after pos, for everyone, in Pos order (the hub's
	// feed; it filters per socket).
	EventsAfter(ctx context.Context, pos int64, limit int) ([]model.Event, error)
	// Horizon is the oldest Pos still kept (a resume from before it gets a reset) and the newest.
	Horizon(ctx context.Context) (oldest, newest int64, err error)
	// PruneEvents deletes the events written before before, oldest first, and returns how
	// many went; Horizon's oldest moves past them.
	PruneEvents(ctx context.Context, before time.Time) (int64, error)
	// Members returns the uids that may see conversation's events now.
	Members(ctx context.Context, conversationID string) ([]string, error)
	// Wake receives a value whenever another process (replica) may have committed events.
	// SQLite, with one process, never sends.
	Wake() <-chan struct{}
	// Broadcast sends an ephemeral payload (at most MaxBroadcast bytes) to every replica's
	// Broadcasts, this one's included; best effort. SQLite, with one process, drops it.
	Broadcast(ctx context.Context, payload []byte) error
	// Broadcasts receives the payloads of Broadcast; nil for SQLite.
	Broadcasts() <-chan []byte
	// BroadcastsDropped counts the payloads of other replicas let go because Broadcasts was
	// full (its reader fell behind); 0 for SQLite.
	BroadcastsDropped() uint64
}

// MaxBroadcast bounds one Broadcast payload (PostgreSQL's NOTIFY takes under 8000 bytes).
const MaxBroadcast = 7900

// Moderation keeps the word and regex rules and decisions.
type Moderation interface {
	Rules(ctx context.Context) ([]Rule, error)
	PutRules(ctx context.Context, rules []Rule) error
	// Moderate sets a message's moderation status (admin route).
	Moderate(ctx context.Context, id int64, status model.ModerationStatus) (model.Message, error)
}

// Rule holds back (pending) or refuses (disapproved) a message whose text matches.
type Rule struct {
	ID      string                 `json:"id"`
	Kind    string                 `json:"kind"` // word or regex
	Pattern string                 `json:"pattern"`
	Action  model.ModerationStatus `json:"action"` // pending or disapproved
}

// Agents are agent configurations and their frontend actions. Saving a configuration also
// creates or updates the agent's user (kind agent, uid = agent id, name, avatar = icon) in the
// same transaction. Headers are write-only: encrypted with the store's headers key (AES-256-GCM,
// a fresh nonce per write) and only decrypted by AgentHeaders. An unknown agent is
// ErrUIDNotFound, an unknown action ErrActionNotFound.
type Agents interface {
	// PutAgent creates or replaces a configuration; headers nil keeps the stored headers, a
	// non-nil map (possibly empty) replaces them. created reports a new agent. Capabilities nil
	// keeps the stored ones (what the agent said of itself is not the admin's to type).
	PutAgent(ctx context.Context, a model.AgentConfig, headers *map[string]string) (out model.AgentConfig, created bool, err error)
	GetAgent(ctx context.Context, agentID string) (model.AgentConfig, error)
	ListAgents(ctx context.Context) ([]model.AgentConfig, error)
	SetAgentEnabled(ctx context.Context, agentID string, enabled bool) (model.AgentConfig, error)
	// DeleteAgent removes the configuration and its actions; the agent's user stays (its
	// messages refer to it) but, without a configuration, is hidden from users.
	DeleteAgent(ctx context.Context, agentID string) error
	// AgentHeaders decrypts the agent's headers, for the bridge (and the connection test) only.
	AgentHeaders(ctx context.Context, agentID string) (map[string]string, error)

	PutAction(ctx context.Context, f model.FrontendAction) (out model.FrontendAction, created bool, err error)
	GetAction(ctx context.Context, agentID, name string) (model.FrontendAction, error)
	ListActions(ctx context.Context, agentID string) ([]model.FrontendAction, error)
	DeleteAction(ctx context.Context, agentID, name string) error
}
