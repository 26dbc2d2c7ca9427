package memlimit

import (
	"cmp"
	"math"
	"runtime/debug"
	"testing"
)

func TestApply(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	for _, tc := range []struct {
		env  map[string]string
		want int64
	}{
		{map[string]string{Env: "134217728"}, 134217728 / 100 * 90},
		{map[string]string{Env: "134217728", "GOMEMLIMIT": "100MiB"}, 0},
		{map[string]string{Env: "128Mi"}, 0},
		{map[string]string{Env: "0"}, 0},
		{map[string]string{}, 0},
	} {
		debug.SetMemoryLimit(math.MaxInt64)
		got := Apply(func(k string) string { return tc.env[k] })
		if got != tc.want {
			t.Errorf("%v: applied %d, want %d", tc.env, got, tc.want)
		}
		want := tc.want
		want = cmp.Or(want, math.MaxInt64)
		if cur := debug.SetMemoryLimit(-1); cur != want {
			t.Errorf("%v: runtime limit %d, want %d", tc.env, cur, want)
		}
	}
}
