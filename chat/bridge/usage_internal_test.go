package bridge

import (
	"reflect"
	"testing"

	"github.com/agentry-dev/agentry/internal/protocol/agui"
)

// TestGenerateUsage: a Mastra generate answer's usage in either AI SDK's names; none when it
// reports none or zeros.
func TestGenerateUsage(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []agui.TokenUsage
	}{
		{`{"text":"hi","usage":{"promptTokens":12,"completionTokens":3,"totalTokens":15}}`, []agui.TokenUsage{{InputTokens: 12, OutputTokens: 3, TotalTokens: 15}}},
		{`{"text":"hi","usage":{"inputTokens":7,"outputTokens":2}}`, []agui.TokenUsage{{InputTokens: 7, OutputTokens: 2, TotalTokens: 9}}},
		{`{"text":"hi","usage":{"promptTokens":0,"completionTokens":0}}`, nil},
		{`{"text":"hi"}`, nil},
		{`not json`, nil},
	} {
		if got := generateUsage([]byte(tc.body)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("generateUsage(%s) = %+v, want %+v", tc.body, got, tc.want)
		}
	}
}
