package ids

import (
	"regexp"
	"testing"
)

func TestNew(t *testing.T) {
	form := regexp.MustCompile(`^run_[0-9a-f]{24}$`)
	seen := map[string]bool{}
	for range 1000 {
		id := New("run")
		if !form.MatchString(id) || seen[id] {
			t.Fatalf("id %q: wrong form or repeated", id)
		}
		seen[id] = true
	}
	if h := Hex(8); len(h) != 16 {
		t.Fatalf("Hex(8) = %q", h)
	}
}
