package testutil

import "testing"

// NoError stops the test on err, as t.Fatal(err) would.
func NoError(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
