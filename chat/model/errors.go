package model

import (
	"errors"
	"fmt"
	"net/http"
)

// Error is a failure with a stable code from the catalogue below. The API answers
// {"error":{"code":…,"message":…}} with Status; the SDK's ChatException carries code and
// message. Messages are for people and never hold internal causes (SQL, hosts).
type Error struct {
	Code    string
	Message string
	Status  int
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf makes an Error with the catalogue status of code.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Status: statusOf(code)}
}

// CodeOf returns err's code, or ERR_INTERNAL.
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ErrInternal
}

// The error catalogue. Codes are stable: clients switch on them.
const (
	ErrValidation         = "ERR_VALIDATION"             // a field is missing or malformed; the message names it
	ErrBadCursor          = "ERR_BAD_CURSOR"             // a paging cursor that was not issued by this server
	ErrUnauthenticated    = "ERR_AUTH_TOKEN_INVALID"     // missing, unknown, expired or revoked credentials
	ErrAuthKeyDisabled    = "ERR_AUTH_KEY_DISABLED"      // login with the Auth Key while it is off
	ErrAPIKeyInvalid      = "ERR_API_KEY_INVALID"        // a server route without the REST API key
	ErrPermissionDenied   = "ERR_PERMISSION_DENIED"      // authenticated, but not allowed
	ErrUIDNotFound        = "ERR_UID_NOT_FOUND"          // no such user
	ErrUserDeactivated    = "ERR_USER_DEACTIVATED"       // signing in, or minting a token, for a deactivated user
	ErrBadCredentials     = "ERR_INVALID_CREDENTIALS"    // a user id and password that do not match (which one is wrong is not said)
	ErrInvitationInvalid  = "ERR_INVITATION_INVALID"     // an invitation code that is unknown, used, replaced or expired
	ErrUIDExists          = "ERR_UID_ALREADY_EXISTS"     // creating a user whose uid is taken
	ErrGUIDNotFound       = "ERR_GUID_NOT_FOUND"         // no such group
	ErrGUIDExists         = "ERR_GUID_ALREADY_EXISTS"    // creating a group whose guid is taken
	ErrNotAMember         = "ERR_NOT_A_MEMBER"           // reading or writing a group one has not joined
	ErrAlreadyJoined      = "ERR_ALREADY_JOINED"         // joining twice
	ErrWrongGroupPassword = "ERR_WRONG_GROUP_PASSWORD"   // joining a password group with a wrong password
	ErrBanned             = "ERR_BANNED"                 // a banned user joining or being added
	ErrPrivateGroup       = "ERR_GROUP_JOIN_NOT_ALLOWED" // private groups need an admin to add you
	ErrMessageNotFound    = "ERR_MESSAGE_NOT_FOUND"      // no such message (or not visible to you)
	ErrMessageDeleted     = "ERR_MESSAGE_DELETED"        // editing or reacting to a tombstone
	ErrOwnerCannotLeave   = "ERR_OWNER_CANNOT_LEAVE"     // the owner must transfer ownership first
	ErrTooLarge           = "ERR_TOO_LARGE"              // media over the size limit
	ErrUnsupportedMedia   = "ERR_UNSUPPORTED_MEDIA_TYPE" // media whose content is not the type it claims
	ErrRateLimited        = "ERR_RATE_LIMITED"
	ErrActionNotFound     = "ERR_ACTION_NOT_FOUND"    // no such frontend action on the agent
	ErrAgentDisabled      = "ERR_AGENT_DISABLED"      // a message to an agent that is not configured and enabled
	ErrAgentBusy          = "ERR_AGENT_BUSY"          // the agent is still answering in this conversation
	ErrActionNotPending   = "ERR_ACTION_NOT_PENDING"  // a result for a frontend action call that is not waiting (answered or timed out)
	ErrAIDisabled         = "ERR_AI_DISABLED"         // an AI feature while no assistant agent is configured
	ErrApprovalNotFound   = "ERR_APPROVAL_NOT_FOUND"  // no such approval request (or not visible to you)
	ErrApprovalDecided    = "ERR_APPROVAL_DECIDED"    // deciding an approval that was decided or expired already
	ErrAgentFailed        = "ERR_AGENT_FAILED"        // the assistant agent did not answer; the message says why
	ErrNotFound           = "ERR_NOT_FOUND"           // unknown route
	ErrRequestTimeout     = "ERR_REQUEST_TIMEOUT"     // the request body did not arrive in time
	ErrUnavailable        = "ERR_SERVICE_UNAVAILABLE" // the store is down; retry
	ErrInternal           = "ERR_INTERNAL"
)

func statusOf(code string) int {
	switch code {
	case ErrValidation, ErrBadCursor:
		return http.StatusBadRequest
	case ErrUnauthenticated, ErrAPIKeyInvalid, ErrBadCredentials:
		return http.StatusUnauthorized
	case ErrPermissionDenied, ErrUserDeactivated, ErrAgentDisabled, ErrNotAMember, ErrBanned, ErrPrivateGroup, ErrWrongGroupPassword, ErrAuthKeyDisabled, ErrOwnerCannotLeave:
		return http.StatusForbidden
	case ErrUIDNotFound, ErrActionNotFound, ErrGUIDNotFound, ErrMessageNotFound, ErrNotFound, ErrApprovalNotFound, ErrInvitationInvalid:
		return http.StatusNotFound
	case ErrUIDExists, ErrGUIDExists, ErrAlreadyJoined, ErrMessageDeleted, ErrAgentBusy, ErrActionNotPending, ErrAIDisabled, ErrApprovalDecided:
		return http.StatusConflict
	case ErrTooLarge:
		return http.StatusRequestEntityTooLarge
	case ErrUnsupportedMedia:
		return http.StatusUnsupportedMediaType
	case ErrRateLimited:
		return http.StatusTooManyRequests
	case ErrRequestTimeout:
		return http.StatusRequestTimeout
	case ErrUnavailable:
		return http.StatusServiceUnavailable
	case ErrAgentFailed:
		return http.StatusBadGateway
	default:
		return http.StatusInternalServerError
	}
}
