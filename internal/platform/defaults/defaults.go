// Package defaults fills in option fields left unset.
package defaults

// Positive sets *v to def unless *v is above zero: zero (unset) and negative values take the
// default.
func Positive[T ~int | ~int64 | ~float64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}
