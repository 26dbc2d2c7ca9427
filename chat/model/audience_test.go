package model

import (
	"errors"
	"testing"
)

func TestAllows(t *testing.T) {
	groups := map[string][]string{"cooks": {"alice"}}
	memberOf := func(uid string) func(string) (bool, error) {
		return func(guid string) (bool, error) {
			if guid == "broken" {
				return false, errors.New("store down")
			}
			for _, m := range groups[guid] {
				if m == uid {
					return true, nil
				}
			}
			return false, nil
		}
	}
	audience := []string{"group:cooks", "dave", "idp:eng"}
	for _, tc := range []struct {
		v    Viewer
		want bool
	}{
		{Viewer{UID: "alice", MemberOf: memberOf("alice")}, true},
		{Viewer{UID: "dave", MemberOf: memberOf("dave")}, true},
		{Viewer{UID: "erin", ProviderGroups: []string{"eng"}, MemberOf: memberOf("erin")}, true},
		{Viewer{UID: "bob", ProviderGroups: []string{"sales"}, MemberOf: memberOf("bob")}, false},
		{Viewer{UID: "group:cooks", MemberOf: memberOf("x")}, false}, // an entry's text is not a uid
	} {
		if got, err := Allows(audience, tc.v); got != tc.want || err != nil {
			t.Errorf("%s: %v %v, want %v", tc.v.UID, got, err, tc.want)
		}
	}
	if ok, _ := Allows(nil, Viewer{UID: "anyone"}); !ok {
		t.Error("an empty audience is everyone")
	}
	if _, err := Allows([]string{"group:broken"}, Viewer{UID: "bob", MemberOf: memberOf("bob")}); err == nil {
		t.Error("a failed membership read must not read as no")
	}
	for _, bad := range [][]string{{"group:"}, {"idp:"}, {"a b"}, make([]string, MaxAudience+1)} {
		if ValidateAudience(bad) == nil {
			t.Errorf("audience %q accepted", bad)
		}
	}
	if err := ValidateAudience(audience); err != nil {
		t.Error(err)
	}
}
