package oidc

import (
	"errors"
	"slices"
	"strings"

	"golang.org/x/oauth2"
)

// redactExchange keeps the provider's error code of a failed code exchange and drops its
// body, which a provider may fill with request details.
func redactExchange(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return errors.New("the provider answered " + re.ErrorCode)
		}
		if re.Response != nil {
			return errors.New("the provider answered " + re.Response.Status)
		}
	}
	return err
}

// stringList reads a groups claim: a list of strings, or one string (some providers send a
// single group that way).
func stringList(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func intersects(have, want []string) bool {
	return slices.ContainsFunc(have, func(g string) bool { return slices.Contains(want, g) })
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
