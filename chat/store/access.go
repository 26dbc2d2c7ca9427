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

// MayUseAgent says whether uid may see and use an agent with these audiences (its own, and for
// an agent registered by reference its manifest's): each must let uid in. An empty audience is
// everyone; admins (who configure agents) pass every one; else the uids it names, the members
// of its group: entries (as they are now) and the holders of its idp: groups (as the provider
// said at the last sign-in).
func MayUseAgent(ctx context.Context, s AudienceReader, uid string, audiences ...[]string) (bool, error) {
	if !slices.ContainsFunc(audiences, func(a []string) bool { return len(a) > 0 }) {
		return true, nil
	}
	u, err := s.GetUser(ctx, uid)
	if err != nil {
		return false, err
	}
	if u.Role == "admin" {
		return true, nil
	}
	v := model.Viewer{UID: uid, ProviderGroups: u.ProviderGroups, MemberOf: func(guid string) (bool, error) {
		members, err := s.Members(ctx, model.ConversationID(model.ReceiverGroup, "", guid))
		return slices.Contains(members, uid), err
	}}
	for _, a := range audiences {
		if ok, err := model.Allows(a, v); !ok || err != nil {
			return false, err
		}
	}
	return true, nil
}
