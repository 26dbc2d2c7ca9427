package model

import (
	"regexp"
	"strings"
)

// MaxAudience bounds an agent's audience list.
const MaxAudience = 50

// audienceEntry is a uid, group:<guid> (the chat group's members) or idp:<group> (holders of
// the identity provider's group).
var audienceEntry = regexp.MustCompile(`^(group:[A-Za-z0-9_.@-]{1,100}|idp:[^\s]{1,200}|[A-Za-z0-9_.@-]{1,100})$`)

// ValidateAudience checks an agent's audience: empty is everyone.
func ValidateAudience(list []string) error {
	if len(list) > MaxAudience {
		return Errorf(ErrValidation, "audience holds more than %d entries", MaxAudience)
	}
	for i, a := range list {
		if !audienceEntry.MatchString(a) {
			return Errorf(ErrValidation, "audience[%d] must be a uid, group:<guid> or idp:<provider group>", i)
		}
	}
	return nil
}

// Viewer is who asks to use an agent: the uid, the identity provider's groups from the last
// sign-in, and whether the user is a member of a chat group (asked only for group: entries).
type Viewer struct {
	UID            string
	ProviderGroups []string
	MemberOf       func(guid string) (bool, error)
}

// Allows says whether audience (empty: everyone) lets v use the agent.
func Allows(audience []string, v Viewer) (bool, error) {
	if len(audience) == 0 {
		return true, nil
	}
	for _, a := range audience {
		switch {
		case strings.HasPrefix(a, "group:"):
			if v.MemberOf == nil {
				continue
			}
			ok, err := v.MemberOf(strings.TrimPrefix(a, "group:"))
			if err != nil || ok {
				return ok, err
			}
		case strings.HasPrefix(a, "idp:"):
			for _, g := range v.ProviderGroups {
				if g == strings.TrimPrefix(a, "idp:") {
					return true, nil
				}
			}
		case a == v.UID:
			return true, nil
		}
	}
	return false, nil
}
