package cmd

import (
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

func TestChatFlagsValidate(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	testutil.NoError(t, os.WriteFile(keyFile, []byte("  0123456789abcdef-key\n"), 0o600))
	empty := filepath.Join(dir, "empty")
	_ = os.WriteFile(empty, nil, 0o600)
	for _, tc := range []struct {
		args []string
		env  map[string]string
		key  string
		err  string
	}{
		{[]string{"--api-key-file=" + keyFile}, nil, "0123456789abcdef-key", ""},
		{nil, map[string]string{"AGENTRY_CHAT_API_KEY": "env-key-0123456789"}, "env-key-0123456789", ""},
		{[]string{"--auth-key=dev-auth-key-0123456"}, nil, "", ""},
		{nil, nil, "", "no credentials"},
		{[]string{"--api-key-file=" + empty}, nil, "", "is empty"},
		{[]string{"--api-key-file=" + filepath.Join(dir, "missing")}, nil, "", "failed to read API key file"},
		{nil, map[string]string{"AGENTRY_CHAT_API_KEY": "short"}, "", "shorter than 16"},
		{[]string{"--auth-key=dev-auth-key-0123456", "--replicas=2"}, nil, "", "one replica only"},
		{[]string{"--auth-key=dev-auth-key-0123456", "--replicas-hint=3"}, nil, "", "one replica only"},
		{[]string{"--auth-key=dev-auth-key-0123456", "--replicas=2", "--storage=postgres://u@db/chat", "--media-dir=/srv/media"}, nil, "", ""},
		{[]string{"--auth-key=dev-auth-key-0123456", "--storage=postgres://u:secret@db/chat"}, nil, "", "--media-dir is required with PostgreSQL"},
		{[]string{"--auth-key=dev-auth-key-0123456", "--storage=mysql://x"}, nil, "", "unsupported --storage"},
		{[]string{"--auth-key=dev-auth-key-0123456", "--storage=postgres://u:secret@db/chat", "--media-dir=/srv/media", "--replicas=0"}, nil, "", "at least 1"},
		{[]string{"--auth-key=dev-auth-key-0123456", "--rate-limit=-1"}, nil, "", "--rate-limit must not be negative"},
		{[]string{"--auth-key=dev-auth-key-0123456", "--rate-burst=0"}, nil, "", "--rate-burst must be at least 1"},
		{[]string{"--auth-key=dev-auth-key-0123456", "--rate-limit=0"}, nil, "", ""},
		{[]string{"--auth-key=k"}, nil, "", "--auth-key is shorter than 16"},
		{[]string{"--auth-key=dev-auth-key-0123456", "--agent-allow-networks=10.0.0.0/33"}, nil, "", "invalid --agent-allow-networks"},
		{[]string{"--auth-key=dev-auth-key-0123456", "--agent-allow-networks=127.0.0.0/8,::1"}, nil, "", ""},
	} {
		cmd, o := chatCommand(&globalFlags{})
		testutil.NoError(t, cmd.ParseFlags(tc.args))
		key, err := o.resolve(func(k string) string { return tc.env[k] })
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Fatalf("%v %v: error %v, want %q", tc.args, tc.env, err, tc.err)
		}
		if err == nil && key != tc.key {
			t.Fatalf("%v: key %q, want %q", tc.args, key, tc.key)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Fatalf("an error shows the storage password: %v", err)
		}
	}
}

// TestAgentEgressPolicy: allowed networks open internal addresses; the cluster's API server
// (KUBERNETES_SERVICE_HOST) stays refused even inside an allowed network; metadata always.
func TestAgentEgressPolicy(t *testing.T) {
	p, err := agentEgress([]string{"10.96.0.0/12", "127.0.0.1"}, func(k string) string {
		return map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1"}[k]
	})
	testutil.NoError(t, err)
	for addr, allowed := range map[string]bool{"10.96.4.2": true, "127.0.0.1": true, "127.0.0.2": false, "10.96.0.1": false,
		"169.254.169.254": false, "192.168.1.1": false, "93.184.216.34": true} {
		if err := p.Check(netip.MustParseAddr(addr)); (err == nil) != allowed {
			t.Errorf("%s: %v, want allowed=%v", addr, err, allowed)
		}
	}
}

// TestChatMediaBesideTheDatabase: with SQLite, uploads default to chat-media beside the
// database file; a set --media-dir wins.
func TestChatMediaBesideTheDatabase(t *testing.T) {
	for args, want := range map[string]string{
		"--storage=file:/srv/chat/chat.db?_pragma=x": "/srv/chat/chat-media",
		"--storage=file:chat.db":                     "chat-media",
		"--media-dir=/elsewhere":                     "/elsewhere",
	} {
		cmd, o := chatCommand(&globalFlags{})
		testutil.NoError(t, cmd.ParseFlags([]string{"--auth-key=dev-auth-key-0123456", args}))
		if _, err := o.resolve(func(string) string { return "" }); err != nil || o.mediaDir != want {
			t.Errorf("%s: media %q (%v), want %q", args, o.mediaDir, err, want)
		}
	}
}

// TestChatReplicasFromEnv: the chart sets AGENTRY_CHAT_REPLICAS; SQLite must refuse it.
func TestChatReplicasFromEnv(t *testing.T) {
	t.Setenv("AGENTRY_CHAT_REPLICAS", "2")
	cmd, o := chatCommand(&globalFlags{})
	testutil.NoError(t, cmd.ParseFlags([]string{"--auth-key=dev-auth-key-0123456"}))
	if _, err := o.resolve(os.Getenv); err == nil || !strings.Contains(err.Error(), "one replica only") {
		t.Fatalf("SQLite with AGENTRY_CHAT_REPLICAS=2: %v", err)
	}
}

// TestChatDurations: --login-token-ttl (default 720h) and --event-retention (default 168h)
// come from their environment variables (0: forever), the flag wins, and a bad or negative
// value is an error naming it.
func TestChatDurations(t *testing.T) {
	for _, d := range []struct {
		env, flag string
		def       time.Duration
		got       func(*chatOptions) time.Duration
	}{
		{"AGENTRY_CHAT_LOGIN_TOKEN_TTL", "login-token-ttl", 720 * time.Hour, func(o *chatOptions) time.Duration { return o.loginTokenTTL }},
		{"AGENTRY_CHAT_EVENT_RETENTION", "event-retention", 168 * time.Hour, func(o *chatOptions) time.Duration { return o.eventRetention }},
	} {
		for _, tc := range []struct {
			env  string
			args []string
			want time.Duration
			err  string
		}{
			{"", nil, d.def, ""},
			{"24h", nil, 24 * time.Hour, ""},
			{"0", nil, 0, ""},
			{"24h", []string{"--" + d.flag + "=1h"}, time.Hour, ""},
			{"soon", nil, 0, d.env},
			{"", []string{"--" + d.flag + "=-1h"}, 0, "--" + d.flag + " must not be negative"},
		} {
			t.Setenv(d.env, tc.env)
			cmd, o := chatCommand(&globalFlags{})
			testutil.NoError(t, cmd.ParseFlags(append([]string{"--auth-key=dev-auth-key-0123456"}, tc.args...)))
			_, err := o.resolve(func(string) string { return "" })
			if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("%s=%q %v: error %v, want %q", d.env, tc.env, tc.args, err, tc.err)
			}
			if err == nil && d.got(o) != tc.want {
				t.Fatalf("%s=%q %v: %v, want %v", d.env, tc.env, tc.args, d.got(o), tc.want)
			}
		}
	}
}

// TestChatServes runs the command's server on SQLite: the API answers, and the process stops
// cleanly when its context ends.
func TestChatServes(t *testing.T) {
	addr := freeAddr(t)
	dir := t.TempDir()
	o := &chatOptions{addr: addr, storage: "file:" + filepath.Join(dir, "chat.db"), replicas: 1, mediaDir: filepath.Join(dir, "media"), maxMediaBytes: 1 << 20}
	stop := serveChat(o, "0123456789abcdef-key")
	waitOK(t, "http://"+addr+"/chat/v1/healthz", "the chat service did not come up")
	if res, _ := jsonCall(t, http.MethodPost, "http://"+addr+"/chat/v1/users", `{"uid":"u1","name":"U"}`, "apikey", "0123456789abcdef-key"); res.StatusCode != http.StatusCreated {
		t.Fatalf("creating a user answered %d", res.StatusCode)
	}
	if err := stop(); err != nil {
		t.Fatalf("runChat: %v", err)
	}
}
