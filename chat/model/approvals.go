package model

import (
	"regexp"
	"time"
)

// Approval message types (category agentic, sent by the agent): a request in the conversation
// whose run stopped (and in the one-to-one of each approver who is not a member of it), and the
// decision, stored in that conversation once someone decided or the request expired.
const (
	TypeApprovalRequest  = "approval_request"
	TypeApprovalDecision = "approval_decision"
)

// ApprovalStatus is where an approval request is.
type ApprovalStatus string

const (
	ApprovalPending  ApprovalStatus = "pending"
	ApprovalApproved ApprovalStatus = "approved"
	ApprovalDeclined ApprovalStatus = "declined"
	ApprovalExpired  ApprovalStatus = "expired"
)

// Approval is a tool call an agent run stopped for, waiting for one of its approvers. The first
// decision wins; the run then resumes in ConversationID.
type Approval struct {
	ID             string `json:"id"`
	ConversationID string `json:"conversationId"`
	AgentID        string `json:"agentId"`
	// RunID is the chat run that stopped; InterruptID the agent's interrupt (AG-UI) or run id
	// and tool call (Mastra) the decision answers.
	RunID       string `json:"runId"`
	InterruptID string `json:"interruptId"`
	ToolCallID  string `json:"toolCallId"`
	ToolName    string `json:"toolName"`
	Arguments   string `json:"arguments"` // JSON text
	// RequestedBy is the user whose message started the run.
	RequestedBy string `json:"requestedBy"`
	// Approvers are the users who may decide, resolved when the request was made.
	Approvers  []string       `json:"approvers"`
	Status     ApprovalStatus `json:"status"`
	DecidedBy  string         `json:"decidedBy,omitempty"`
	Reason     string         `json:"reason,omitempty"`
	DecidedAt  *time.Time     `json:"decidedAt,omitempty"`
	CreatedAt  time.Time      `json:"createdAt"`
	ExpiresAt  time.Time      `json:"expiresAt"`
	MessageIDs []int64        `json:"messageIds"`
}

// ApprovalData is the data of approval_request and approval_decision messages: the approval as
// it is when the message is stored (requests are updated in place when it is decided).
type ApprovalData struct {
	Approval
}

// Approvers entries name users (a uid) or a group's admins or moderators
// (group:<guid>:admins, group:<guid>:moderators).
var approverEntry = regexp.MustCompile(`^(?:[A-Za-z0-9_-]{1,100}|group:[A-Za-z0-9_-]{1,100}:(?:admins|moderators))$`)

// MaxApprovers bounds an agent's approver entries.
const MaxApprovers = 20

// ValidateApprovers checks an agent configuration's approvers.
func ValidateApprovers(list []string) error {
	if len(list) > MaxApprovers {
		return Errorf(ErrValidation, "approvers holds more than %d entries", MaxApprovers)
	}
	for i, a := range list {
		if !approverEntry.MatchString(a) {
			return Errorf(ErrValidation, "approvers[%d] must be a uid or group:<guid>:admins or group:<guid>:moderators", i)
		}
	}
	return nil
}
