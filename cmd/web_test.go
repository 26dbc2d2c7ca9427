//go:build !agentry_runtime

package cmd

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	webapp "github.com/agentry-dev/agentry/ui/apps/web"
)

type webAnswer struct {
	status int
	header http.Header
	body   string
}

func webGet(t *testing.T, srv *httptest.Server, method, path string, hdr ...string) webAnswer {
	t.Helper()
	res, body := httpCall(t, method, srv.URL+path, nil, hdr...)
	return webAnswer{res.StatusCode, res.Header, body}
}

// httpCall sends one request with hdr (name, value, ...) and reads the whole answer; the
// returned response's body is already closed.
func httpCall(t *testing.T, method, url string, body io.Reader, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	testutil.NoError(t, err)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	testutil.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// TestWebAppServes: files with their types and cache headers, the SPA fallback, and the routes
// the app must not shadow.
func TestWebAppServes(t *testing.T) {
	fsys := fstest.MapFS{
		"index.html":            {Data: []byte("<!doctype html><div id=root></div>")},
		"assets/index-abc1.js":  {Data: []byte("console.log(1)")},
		"assets/index-abc1.css": {Data: []byte("body{}")},
		"favicon.svg":           {Data: []byte("<svg/>")},
	}
	e := echo.New()
	e.GET("/healthz", func(c echo.Context) error { return c.String(http.StatusOK, "ok") })
	e.GET("/api/agents", func(c echo.Context) error { return c.String(http.StatusOK, "agents") })
	e.GET("/chat/v1/me", func(c echo.Context) error { return c.String(http.StatusOK, "me") })
	e.POST("/chat/v1/messages", func(c echo.Context) error { return c.String(http.StatusCreated, "sent") })
	webapp.New(webapp.Options{FS: fsys, Config: func(context.Context) webapp.Config { return webapp.Config{ChatPath: "/chat/v1"} }}).Register(e)
	srv := httptest.NewServer(e)
	defer srv.Close()

	for _, tc := range []struct {
		method, path string
		status       int
		ctype, cache string
		body         string
	}{
		{"GET", "/", 200, "text/html; charset=utf-8", "no-cache", "id=root"},
		{"GET", "/index.html", 200, "text/html; charset=utf-8", "no-cache", "id=root"},
		{"GET", "/groups/general", 200, "text/html; charset=utf-8", "no-cache", "id=root"},
		{"GET", "/settings/", 200, "text/html; charset=utf-8", "no-cache", "id=root"},
		{"HEAD", "/login", 200, "text/html; charset=utf-8", "no-cache", ""},
		{"GET", "/assets/index-abc1.js", 200, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", "console.log"},
		{"GET", "/assets/index-abc1.css", 200, "text/css; charset=utf-8", "public, max-age=31536000, immutable", "body{}"},
		{"GET", "/favicon.svg", 200, "image/svg+xml", "public, max-age=3600", "<svg/>"},
		{"GET", "/assets/missing.js", 404, "", "", ""},
		{"GET", "/robots.txt", 404, "", "", ""},
		{"GET", "/healthz", 200, "", "", "ok"},
		{"GET", "/api/agents", 200, "", "", "agents"},
		{"GET", "/api/nope", 404, "", "", ""},
		{"GET", "/metrics", 404, "", "", ""},
		{"GET", "/readyz/x", 404, "", "", ""},
		{"GET", "/chat/v1/me", 200, "", "", "me"},
		{"GET", "/chat/v1/nope", 404, "", "", ""},
		{"POST", "/chat/v1/messages", 201, "", "", "sent"},
		{"POST", "/groups", 404, "", "", ""},
	} {
		a := webGet(t, srv, tc.method, tc.path)
		if a.status != tc.status || (tc.ctype != "" && a.header.Get("Content-Type") != tc.ctype) ||
			(tc.cache != "" && a.header.Get("Cache-Control") != tc.cache) || !strings.Contains(a.body, tc.body) {
			t.Errorf("%s %s: %d %q %q %q", tc.method, tc.path, a.status, a.header.Get("Content-Type"), a.header.Get("Cache-Control"), a.body)
		}
		if tc.ctype != "" && a.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", tc.path)
		}
		if strings.HasPrefix(tc.ctype, "text/html") && (a.header.Get("X-Frame-Options") != "DENY" || a.header.Get("Content-Security-Policy") != "frame-ancestors 'none'") {
			t.Errorf("%s: the app may be framed: %v", tc.path, a.header)
		}
	}
	// Compressed when accepted, and large enough to gain.
	big := fstest.MapFS{"index.html": {Data: []byte("<!doctype html>" + strings.Repeat("<p>hello</p>", 200))}}
	e2 := echo.New()
	webapp.New(webapp.Options{FS: big}).Register(e2)
	srv2 := httptest.NewServer(e2)
	defer srv2.Close()
	req, _ := http.NewRequest("GET", srv2.URL+"/", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	testutil.NoError(t, err)
	res.Body.Close()
	if res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("not compressed: %v", res.Header)
	}
	// ETags revalidate.
	a := webGet(t, srv, "GET", "/")
	if tag := a.header.Get("ETag"); tag == "" || webGet(t, srv, "GET", "/", "If-None-Match", tag).status != http.StatusNotModified {
		t.Fatalf("index.html ETag %q does not revalidate", tag)
	}
}

// TestWebAppNotBuilt: without index.html the root says how to build the app; the API stays.
func TestWebAppNotBuilt(t *testing.T) {
	e := echo.New()
	e.GET("/chat/v1/healthz", func(c echo.Context) error { return c.String(http.StatusOK, "ok") })
	app := webapp.New(webapp.Options{FS: fstest.MapFS{"README.md": {Data: []byte("x")}}})
	if app.Built() {
		t.Fatal("an app without index.html is built")
	}
	app.Register(e)
	srv := httptest.NewServer(e)
	defer srv.Close()
	for _, p := range []string{"/", "/groups/general"} {
		a := webGet(t, srv, "GET", p)
		if a.status != http.StatusServiceUnavailable || !strings.Contains(a.body, "make web") || !strings.HasPrefix(a.header.Get("Content-Type"), "text/html") {
			t.Fatalf("%s without an app: %d %q", p, a.status, a.body)
		}
	}
	if a := webGet(t, srv, "GET", "/assets/x.js"); a.status != http.StatusNotFound {
		t.Fatalf("asset without an app: %d", a.status)
	}
	if a := webGet(t, srv, "GET", "/chat/v1/healthz"); a.status != http.StatusOK {
		t.Fatalf("healthz: %d", a.status)
	}
	if a := webGet(t, srv, "GET", "/app-config.json"); a.status != http.StatusOK || !strings.Contains(a.body, `"chatPath":""`) {
		t.Fatalf("app-config without a Config func: %d %s", a.status, a.body)
	}
}

// TestDevSeedAndAppConfig: agentry dev seeds a store without users once; app-config.json offers
// the development login only with an Auth Key, listing the seeded users that exist.
func TestDevSeedAndAppConfig(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, "file:"+filepath.Join(t.TempDir(), "chat.db"))
	testutil.NoError(t, err)
	defer st.Close()

	cfgOf := func(authKey string, authKeyAdmins ...bool) webapp.Config {
		e := echo.New()
		mountWeb(st, "app1", authKey, len(authKeyAdmins) == 0 || authKeyAdmins[0], nil)(e)
		srv := httptest.NewServer(e)
		defer srv.Close()
		a := webGet(t, srv, "GET", "/app-config.json")
		if a.status != http.StatusOK || a.header.Get("Cache-Control") != "no-store" {
			t.Fatalf("app-config.json: %d %v", a.status, a.header)
		}
		var cfg webapp.Config
		testutil.NoError(t, json.Unmarshal([]byte(a.body), &cfg))
		return cfg
	}
	if cfg := cfgOf("key"); cfg.ChatPath != "/chat/v1" || cfg.AppID != "app1" || cfg.DevLogin == nil || cfg.DevLogin.AuthKey != "key" || len(cfg.DevLogin.Users) != 0 {
		t.Fatalf("before seeding: %+v", cfg)
	}

	if seeded, err := seedDevChat(ctx, st); err != nil || !seeded {
		t.Fatalf("first seed: %v %v", seeded, err)
	}
	g, err := st.GetGroup(ctx, "alice", "general")
	if err != nil || g.MembersCount != 4 || g.Type != model.GroupPublic || g.Name != "General" {
		t.Fatalf("general: %+v %v", g, err)
	}
	admin, _ := st.GetUser(ctx, "admin")
	if admin.Role != "admin" {
		t.Fatalf("admin: %+v", admin)
	}
	// An operator's change survives a restart.
	bob, _ := st.GetUser(ctx, "bob")
	bob.Name = "Robert"
	if _, err := st.UpdateUser(ctx, bob); err != nil {
		t.Fatal(err)
	}
	if seeded, err := seedDevChat(ctx, st); err != nil || seeded {
		t.Fatalf("second seed: %v %v", seeded, err)
	}
	cfg := cfgOf("key")
	want := `[{"uid":"alice","name":"Alice"},{"uid":"bob","name":"Robert"},{"uid":"carol","name":"Carol"},{"uid":"admin","name":"Admin","role":"admin"}]`
	if b, _ := json.Marshal(cfg.DevLogin.Users); string(b) != want {
		t.Fatalf("dev users %s, want %s", b, want)
	}
	if cfg := cfgOf(""); cfg.DevLogin != nil {
		t.Fatalf("devLogin without an Auth Key: %+v", cfg.DevLogin)
	}
	// agentry chat --auth-key: the Auth Key cannot sign admins in, so none is offered.
	cfg = cfgOf("key", false)
	want = `[{"uid":"alice","name":"Alice"},{"uid":"bob","name":"Robert"},{"uid":"carol","name":"Carol"}]`
	if b, _ := json.Marshal(cfg.DevLogin.Users); string(b) != want {
		t.Fatalf("dev users without Auth-Key admins %s, want %s", b, want)
	}
}
