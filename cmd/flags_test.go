package cmd

import (
	"strings"
	"testing"
)

// agentry dev spends the developer's model key: it must not listen beyond loopback unless told.
func TestDevListensOnLoopbackByDefault(t *testing.T) {
	cmd := newDevCommand(&globalFlags{})
	if got := cmd.Flags().Lookup("addr").DefValue; got != "127.0.0.1:4111" {
		t.Fatalf("agentry dev --addr defaults to %q, want 127.0.0.1:4111", got)
	}
}

func TestHTTPFlagsValidate(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--trusted-proxies=10.0.0.0/8,192.0.2.1"}, ""},
		{[]string{"--trusted-proxies=10.0.0.0/99"}, "invalid --trusted-proxies"},
		{[]string{"--cors-origins=https://chat.example.com,*"}, ""},
		{[]string{"--cors-origins=chat.example.com"}, "invalid --cors-origins"},
	} {
		cmd := newServeCommand(&globalFlags{})
		if err := cmd.ParseFlags(tc.args); err != nil {
			t.Fatal(err)
		}
		var f httpFlags
		f.corsOrigins, _ = cmd.Flags().GetStringSlice("cors-origins")
		f.trustedProxies, _ = cmd.Flags().GetStringSlice("trusted-proxies")
		_, err := f.options()
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Fatalf("%v: error %v, want %q", tc.args, err, tc.err)
		}
	}
}
