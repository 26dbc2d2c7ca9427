package cidr

import "testing"

// TestParse: CIDRs are masked to their network, single addresses are their own /32 or /128,
// blanks are skipped, and anything else is refused.
func TestParse(t *testing.T) {
	got, err := Parse([]string{" 10.96.0.0/12 ", "::1", "", "192.168.1.7/24", "192.0.2.7", " fd00::/8 "})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.96.0.0/12", "::1/128", "192.168.1.0/24", "192.0.2.7/32", "fd00::/8"}
	if len(got) != len(want) {
		t.Fatalf("Parse = %v, want %v", got, want)
	}
	for i, p := range got {
		if p.String() != want[i] {
			t.Errorf("entry %d: %s, want %s", i, p, want[i])
		}
	}
	for _, bad := range []string{"ten", "10.0.0.0/33", "300.1.1.1"} {
		if _, err := Parse([]string{bad}); err == nil {
			t.Errorf("%q must be refused", bad)
		}
	}
	if n := IPNets(got); len(n) != len(got) || n[0].String() != "10.96.0.0/12" || n[3].String() != "192.0.2.7/32" || n[1].String() != "::1/128" {
		t.Errorf("IPNets = %v", n)
	}
}
