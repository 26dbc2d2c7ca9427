package hub

import (
	"encoding/json"

	"github.com/coder/websocket"

	"github.com/agentry-dev/agentry/chat/model"
)

// Close codes beyond RFC 6455's: the 4000–4999 range is for applications. Clients switch on
// them: 4001 means log in again, 4008 means reconnect and resume.
const (
	// CloseUnauthorized: the first frame was not a valid auth frame (or did not come in time).
	CloseUnauthorized websocket.StatusCode = 4001
	// CloseTooSlow: the socket's send queue filled up; resume from the last pos received.
	CloseTooSlow websocket.StatusCode = 4008
	// CloseTooManySockets: the user opened more sockets than Options.MaxSocketsPerUser; the
	// oldest one is closed. A client should not reconnect it on its own.
	CloseTooManySockets websocket.StatusCode = 4009
)

// Frame types. The client sends auth first, then typing and ack; the server sends ready first,
// then reset, event and (as WebSocket pings) heartbeats.
const (
	FrameAuth   = "auth"
	FrameReady  = "ready"
	FrameEvent  = "event"
	FrameReset  = "reset"
	FrameTyping = "typing"
	FrameAck    = "ack"
)

// clientFrame is any frame a client sends; Type says which fields matter.
type clientFrame struct {
	Type           string `json:"type"`
	Token          string `json:"token,omitempty"`
	Resume         *int64 `json:"resume,omitempty"` // nil: start at the newest event, no replay
	ConversationID string `json:"conversationId,omitempty"`
	Started        bool   `json:"started,omitempty"`
	Pos            int64  `json:"pos,omitempty"`
}

type readyFrame struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
	Pos  int64  `json:"pos"`
}

type resetFrame struct {
	Type string `json:"type"`
	Pos  int64  `json:"pos"`
}

type eventFrame struct {
	Type  string      `json:"type"`
	Event model.Event `json:"event"`
}

// outFrame is one encoded server frame in a send queue. Pos is the event's resume offset (0 for
// ephemeral frames such as typing, which are never skipped as already sent).
type outFrame struct {
	pos  int64
	data []byte
	// revoke closes the socket (4001) after the frame: the user's tokens were revoked.
	revoke bool
}

// encodeEvent encodes ev once for every socket it goes to.
func encodeEvent(ev model.Event) ([]byte, error) {
	return json.Marshal(eventFrame{Type: FrameEvent, Event: ev})
}
