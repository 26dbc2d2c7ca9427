package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/protocol/manifest"
	"github.com/agentry-dev/agentry/runtime/registry"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

// env is a runtime listening on loopback with a scripted model behind it.
type env struct {
	t       *testing.T
	base    string
	model   *scriptedmodel.Server
	reg     *registry.Registry
	warning []registry.Warning
}

type envOptions struct {
	// manifests are extra YAML documents; the samples are always loaded.
	manifests string
	// getenv replaces the environment (default: nothing set).
	getenv func(string) string
	// noOverride leaves the agents' model endpoint alone (baseURL from manifest or getenv).
	noOverride bool
	logger     logr.Logger
	// server adjusts the server's options.
	server func(*Options)
	// secretsDir holds local Secrets (<dir>/<secret>/<key>).
	secretsDir string
}

func startEnv(t *testing.T, responder scriptedmodel.Responder, o envOptions) *env {
	t.Helper()
	sm, err := scriptedmodel.Start("127.0.0.1:0", responder, scriptedmodel.Options{})
	testutil.NoError(t, err)
	t.Cleanup(func() { _ = sm.Close() })

	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../config/samples")); err != nil {
		t.Fatalf("no samples: %v", err)
	}
	if o.manifests != "" {
		testutil.NoError(t, os.WriteFile(filepath.Join(dir, "zz-extra.yaml"), []byte(o.manifests), 0o600))
	}
	loader, err := manifest.NewLoader()
	testutil.NoError(t, err)
	set, err := loader.LoadPath(context.Background(), dir)
	testutil.NoError(t, err)
	opts := registry.Options{Getenv: o.getenv, DiscoverMCP: true, Secrets: secrets.Dir(o.secretsDir)}
	if !o.noOverride {
		opts.ModelOverride = &registry.ModelOverride{BaseURL: sm.URL()}
	}
	reg, warnings, err := registry.Build(context.Background(), set, opts)
	testutil.NoError(t, err)
	t.Cleanup(func() { _ = reg.Close() })
	log := o.logger
	if log.GetSink() == nil {
		log = testr.New(t)
	}
	srvOpts := Options{Registry: reg, Logger: log, MaxBodyBytes: 64 << 10}
	if o.server != nil {
		o.server(&srvOpts)
	}
	srv := New(srvOpts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testutil.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	return &env{t: t, base: "http://" + ln.Addr().String(), model: sm, reg: reg, warning: warnings}
}

// do sends a request and returns the status and decoded JSON body.
func (e *env) do(method, path, body string) (int, map[string]any) {
	e.t.Helper()
	status, raw := e.raw(method, path, body)
	var out map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			e.t.Fatalf("%s %s: body is not a JSON object: %q", method, path, raw)
		}
	}
	return status, out
}

func (e *env) raw(method, path, body string) (int, []byte) {
	e.t.Helper()
	return e.rawWith(method, path, body, nil)
}

// doWith is do with extra request headers.
func (e *env) doWith(method, path, body string, header map[string]string) (int, []byte) {
	e.t.Helper()
	return e.rawWith(method, path, body, header)
}

func (e *env) rawWith(method, path, body string, header map[string]string) (int, []byte) {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = bytes.NewBufferString(body)
	}
	req, err := http.NewRequest(method, e.base+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.StatusCode, raw
}

func userMessage(text string) string {
	b, _ := json.Marshal(map[string]any{"messages": []map[string]string{{"role": "user", "content": text}}})
	return string(b)
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testutil.NoError(t, err)
	return ln
}

// counter is a series' value on the runtime's /metrics (0 when it has none yet).
func (e *env) counter(t *testing.T, series string) float64 {
	t.Helper()
	_, raw := e.raw("GET", "/metrics", "")
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	return 0
}
