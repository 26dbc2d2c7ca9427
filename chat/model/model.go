// Package model holds the chat service's domain types: users, groups, members, conversations,
// messages, reactions, receipts and events, and the error catalogue every layer answers with.
// It has no behaviour beyond validation helpers, so the store, the hub and the API share it
// without depending on each other.
package model

import (
	"encoding/json"
	"strings"
	"time"
)

// UserKind tells people from agents (an agent is a user of kind agent).
type UserKind string

const (
	UserKindUser  UserKind = "user"
	UserKindAgent UserKind = "agent"
)

// User is a person or an agent on the platform.
type User struct {
	UID       string          `json:"uid"`
	Name      string          `json:"name"`
	Avatar    string          `json:"avatar,omitempty"`
	Role      string          `json:"role,omitempty"`
	Kind      UserKind        `json:"kind"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	CreatedAt time.Time       `json:"createdAt"`
	// Status is "online" while the user has a socket open on some replica, else "offline";
	// LastActiveAt is when it last had one (absent: never).
	Status       string     `json:"status,omitempty"`
	LastActiveAt *time.Time `json:"lastActiveAt,omitempty"`
	// Deactivated users cannot sign in; their sessions ended when an admin deactivated them.
	Deactivated bool `json:"deactivated,omitempty"`
	// ProviderGroups are the identity provider's groups at the user's last sign-in (agent
	// audiences' idp: entries); never sent to clients.
	ProviderGroups []string `json:"-"`
	// ProviderIssuer and ProviderSubject name the identity provider's account a user signed in
	// with (the chat's signed tokens carry them as idp_iss and idp_sub); never sent to clients.
	ProviderIssuer  string `json:"-"`
	ProviderSubject string `json:"-"`
}

// Invitation lets a person set up their own sign-in (a password) on a chat without an identity
// provider. Its code is shown once to the admin who made it; only a hash is kept.
type Invitation struct {
	ID        string    `json:"id"`
	UID       string    `json:"uid"`
	CreatedBy string    `json:"createdBy,omitempty"`
	ExpiresAt time.Time `json:"expiresAt"`
	CreatedAt time.Time `json:"createdAt"`
}

// Presence: a user counts as online while a replica says so and has confirmed it within
// PresenceTTL (replicas confirm every PresenceRefresh), so a replica that died without saying
// its users left lets them go offline by themselves.
const (
	PresenceRefresh = 60 * time.Second
	PresenceTTL     = 150 * time.Second
)

// GroupType is public (anyone joins), private (an admin adds members) or password.
type GroupType string

const (
	GroupPublic   GroupType = "public"
	GroupPrivate  GroupType = "private"
	GroupPassword GroupType = "password"
)

// Scope is a member's role in a group.
type Scope string

const (
	ScopeAdmin       Scope = "admin"
	ScopeModerator   Scope = "moderator"
	ScopeParticipant Scope = "participant"
)

// Group is a group conversation's directory entry. HasJoined and Scope are the viewer's.
type Group struct {
	GUID         string    `json:"guid"`
	Name         string    `json:"name"`
	Type         GroupType `json:"type"`
	Description  string    `json:"description,omitempty"`
	Icon         string    `json:"icon,omitempty"`
	Tags         []string  `json:"tags,omitempty"`
	Owner        string    `json:"owner"`
	MembersCount int       `json:"membersCount"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
	HasJoined    bool      `json:"hasJoined"`
	Scope        Scope     `json:"scope,omitempty"`
	// PasswordHash is the bcrypt/argon2id hash of a password group's password; never serialised.
	PasswordHash string `json:"-"`
}

// Member is a user's membership of a group.
type Member struct {
	GUID     string    `json:"guid"`
	UID      string    `json:"uid"`
	Scope    Scope     `json:"scope"`
	JoinedAt time.Time `json:"joinedAt"`
}

// ReceiverType says whether a message goes to a user (one-to-one) or a group.
type ReceiverType string

const (
	ReceiverUser  ReceiverType = "user"
	ReceiverGroup ReceiverType = "group"
)

// ConversationID names the conversation of a group or of two users; the same two users always
// share one id, whoever writes first.
func ConversationID(t ReceiverType, a, b string) string {
	if t == ReceiverGroup {
		return "group_" + b
	}
	if a > b {
		a, b = b, a
	}
	return "user_" + a + "_user_" + b
}

// GroupOf is the guid of a group conversation's id (ConversationID's inverse for groups).
func GroupOf(conversationID string) (string, bool) {
	return strings.CutPrefix(conversationID, "group_")
}

// Message categories and types, as the specification's SDK names them.
const (
	CategoryMessage = "message"
	CategoryAction  = "action"
	CategoryCustom  = "custom"
	CategoryAgentic = "agentic" // agent run output (assistant text, tool calls); see the agents issue

	TypeText   = "text"
	TypeImage  = "image"
	TypeVideo  = "video"
	TypeAudio  = "audio"
	TypeFile   = "file"
	TypeMember = "groupMember" // action messages about membership
)

// ModerationStatus of a message under the moderation rules.
type ModerationStatus string

const (
	ModerationApproved    ModerationStatus = "approved"
	ModerationPending     ModerationStatus = "pending"
	ModerationDisapproved ModerationStatus = "disapproved"
)

// Attachment is the media of a media message.
type Attachment struct {
	URL      string `json:"url"`
	Name     string `json:"name"`
	MimeType string `json:"mimeType"`
	Size     int64  `json:"size"`
}

// Message is one entry of a conversation. Ids increase in the order messages are stored, so
// they double as cursors. Reactions, DeliveredAt and ReadAt are the viewer's view.
type Message struct {
	ID int64 `json:"id"`
	// MUID is the client's id for the message: a retried send with the same MUID stores
	// nothing new (see store.ErrAlreadySent).
	MUID           string          `json:"muid,omitempty"`
	ConversationID string          `json:"conversationId"`
	Sender         string          `json:"sender"`
	ReceiverID     string          `json:"receiver"`
	ReceiverType   ReceiverType    `json:"receiverType"`
	Category       string          `json:"category"`
	Type           string          `json:"type"`
	Text           string          `json:"text,omitempty"`
	Data           json.RawMessage `json:"data,omitempty"` // custom data, action details, agent run details
	Attachment     *Attachment     `json:"attachment,omitempty"`
	Metadata       json.RawMessage `json:"metadata,omitempty"`
	ParentID       int64           `json:"parentId,omitempty"`
	// QuotedMessageID is the message a quote reply answers (same conversation); QuotedMessage
	// is that message as the viewer sees it (a tombstone once deleted), without its own quote.
	QuotedMessageID int64            `json:"quotedMessageId,omitempty"`
	QuotedMessage   *Message         `json:"quotedMessage,omitempty"`
	ReplyCount      int              `json:"replyCount,omitempty"`
	Moderation      ModerationStatus `json:"moderationStatus,omitempty"`
	SentAt          time.Time        `json:"sentAt"`
	EditedAt        *time.Time       `json:"editedAt,omitempty"`
	EditedBy        string           `json:"editedBy,omitempty"`
	DeletedAt       *time.Time       `json:"deletedAt,omitempty"` // a tombstone: text, data and attachment are cleared
	DeletedBy       string           `json:"deletedBy,omitempty"`
	Reactions       []ReactionCount  `json:"reactions,omitempty"`
	DeliveredAt     *time.Time       `json:"deliveredAt,omitempty"`
	ReadAt          *time.Time       `json:"readAt,omitempty"`
}

// ReactionCount is one reaction on a message with how many reacted and whether the viewer did.
type ReactionCount struct {
	Reaction    string `json:"reaction"`
	Count       int    `json:"count"`
	ReactedByMe bool   `json:"reactedByMe"`
}

// Reaction is one user's reaction.
type Reaction struct {
	MessageID int64     `json:"messageId"`
	UID       string    `json:"uid"`
	Reaction  string    `json:"reaction"`
	ReactedAt time.Time `json:"reactedAt"`
}

// Receipt is a member's delivered or read watermark in a conversation: every message with an
// id up to MessageID counts as delivered (read).
type Receipt struct {
	ConversationID string    `json:"conversationId"`
	UID            string    `json:"uid"`
	MessageID      int64     `json:"messageId"`
	At             time.Time `json:"at"`
}

// Conversation is a viewer's entry in the conversation list.
type Conversation struct {
	ID           string       `json:"conversationId"`
	Type         ReceiverType `json:"conversationType"`
	With         string       `json:"conversationWith"` // the other uid, or the guid
	LastMessage  *Message     `json:"lastMessage,omitempty"`
	UnreadCount  int          `json:"unreadMessageCount"`
	UpdatedAt    time.Time    `json:"updatedAt"`
	LastReadID   int64        `json:"lastReadMessageId,omitempty"`
	LastDelivery int64        `json:"lastDeliveredMessageId,omitempty"`
}

// Flag is a report of a message.
type Flag struct {
	MessageID int64     `json:"messageId"`
	UID       string    `json:"uid"`
	Reason    string    `json:"reason"`
	Remark    string    `json:"remark,omitempty"`
	At        time.Time `json:"at"`
}

// Event is one persisted change, as sockets receive it. Pos orders all events by commit (the
// resume offset); Seq orders the events of one conversation without gaps. Events addressed to
// one user whatever their membership (e.g. "you were kicked") carry TargetUID.
type Event struct {
	Pos            int64           `json:"pos"`
	ConversationID string          `json:"conversationId,omitempty"`
	Seq            int64           `json:"seq,omitempty"`
	Type           string          `json:"type"`
	TargetUID      string          `json:"targetUid,omitempty"`
	Data           json.RawMessage `json:"data"`
	At             time.Time       `json:"at"`
}

// Event types. Typing events are ephemeral: relayed, never stored, no Pos.
const (
	EventMessageCreated      = "message.created"
	EventMessageEdited       = "message.edited"
	EventMessageDeleted      = "message.deleted"
	EventMessageModerated    = "message.moderated"
	EventReactionAdded       = "reaction.added"
	EventReactionRemoved     = "reaction.removed"
	EventReceiptDelivered    = "receipt.delivered"
	EventReceiptRead         = "receipt.read"
	EventReceiptDeliveredAll = "receipt.delivered_to_all"
	EventReceiptReadAll      = "receipt.read_to_all"
	EventTypingStarted       = "typing.started"
	EventTypingEnded         = "typing.ended"
	EventMemberJoined        = "member.joined"
	EventMemberLeft          = "member.left"
	EventMemberKicked        = "member.kicked"
	EventMemberBanned        = "member.banned"
	EventMemberUnbanned      = "member.unbanned"
	EventMemberAdded         = "member.added"
	EventMemberScopeChanged  = "member.scope_changed"
	EventOwnershipChanged    = "group.ownership_changed"
	EventGroupCreated        = "group.created"
	EventGroupUpdated        = "group.updated"
	EventGroupDeleted        = "group.deleted"
	// EventTokensRevoked tells a user's sockets that tokens were revoked; its data names the
	// token ({"tokenId":"<id>"}) or all of them ({"tokenId":"*"}). Every socket of the user gets
	// it; those opened with a revoked token are closed (4001) and must log in again, and one
	// holding another valid token just does.
	EventTokensRevoked = "auth.revoked"
)
