package testutil

import "testing"

// NoError stops the test on err, as t.Fatal(err) would. Pass only values of type error: a nil
// *T converted to error is not nil.
func NoError(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
