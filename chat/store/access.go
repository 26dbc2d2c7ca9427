package store

import (
	"context"
	"slices"

	"github.com/agentry-dev/agentry/chat/model"
)

// AudienceReader is what an audience check reads: the user and a group's members.
type AudienceReader interface {
	GetUser(ctx context.Context, uid string) (model.User, error)
	Members(ctx context.Context, conversationID string) ([]string, error)
}

// MayUseAgent says whether uid may see and use the agent cfg: everyone when its audience is
// empty; else admins (who configure it), the uids it names, the members of its group: entries
// (as they are now) and the holders of its idp: groups (as the provider said at the last
// sign-in).
func MayUseAgent(ctx context.Context, s AudienceReader, uid string, cfg model.AgentConfig) (bool, error) {
	if len(cfg.Audience) == 0 {
		return true, nil
	}
	u, err := s.GetUser(ctx, uid)
	if err != nil {
		return false, err
	}
	if u.Role == "admin" {
		return true, nil
	}
	return model.Allows(cfg.Audience, model.Viewer{UID: uid, ProviderGroups: u.ProviderGroups, MemberOf: func(guid string) (bool, error) {
		members, err := s.Members(ctx, model.ConversationID(model.ReceiverGroup, "", guid))
		return slices.Contains(members, uid), err
	}})
}
