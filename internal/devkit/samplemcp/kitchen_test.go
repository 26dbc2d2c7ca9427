package samplemcp

import "testing"

func TestConvert(t *testing.T) {
	for _, c := range []struct {
		in   ConvertInput
		want string
		err  bool
	}{
		{ConvertInput{2, "cups", "ml"}, "2 cups is 473.18 ml", false},
		{ConvertInput{1, "cup", "ml"}, "1 cup is 236.59 ml", false},
		{ConvertInput{473.18, "ml", "cup"}, "473.18 ml is 2 cups", false},
		{ConvertInput{1, "lb", "kg"}, "1 lb is 0.45 kg", false},
		{ConvertInput{3, "tsp", "tbsp"}, "3 tsp is 1 tbsp", false},
		{ConvertInput{2, "cup", "g"}, "", true},   // needs a density
		{ConvertInput{1, "pinch", "g"}, "", true}, // unknown unit
		{ConvertInput{-1, "g", "kg"}, "", true},
	} {
		out, err := Convert(c.in)
		if (err != nil) != c.err || out.Text != c.want {
			t.Errorf("%+v: %q %v", c.in, out.Text, err)
		}
	}
}
