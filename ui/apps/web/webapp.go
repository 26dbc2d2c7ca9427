// Package webapp serves Agentry's chat web app, built by Vite into embed/app (make web) and
// embedded in the agentry binary, at the server's root with an SPA fallback, plus the public
// /app-config.json the app reads at start. Without a build (a clean clone, go test) the root
// answers a page that says how to build it.
package webapp

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

//go:embed all:embed
var built embed.FS

// Embedded is the built app in this binary (embed/app; it may hold no index.html).
func Embedded() fs.FS {
	sub, err := fs.Sub(built, "embed/app")
	if err != nil {
		panic(err) // a constant, valid path
	}
	return sub
}

// Built says whether the binary embeds a built app.
func Built() bool { return hasIndex(Embedded()) }

func hasIndex(fsys fs.FS) bool {
	st, err := fs.Stat(fsys, "index.html")
	return err == nil && !st.IsDir()
}

// Config is /app-config.json: where the chat API is and, on development servers, the Auth Key
// login the app offers.
type Config struct {
	ChatPath string    `json:"chatPath"`
	AppID    string    `json:"appId"`
	DevLogin *DevLogin `json:"devLogin,omitempty"`
	// SSO is present when people sign in through an OpenID provider.
	SSO *SSO `json:"sso,omitempty"`
}

// SSO is the provider sign-in the app offers: "Sign in with <Name>" opens URL; after "Log out"
// the app sends the browser to LogoutURL (the provider's RP-initiated logout), when it has one.
type SSO struct {
	Name      string `json:"name"`
	URL       string `json:"url"`
	LogoutURL string `json:"logoutUrl,omitempty"`
}

// DevLogin is present only when the server has a development Auth Key.
type DevLogin struct {
	AuthKey string    `json:"authKey"`
	Users   []DevUser `json:"users"`
}

// DevUser is a user the development login offers.
type DevUser struct {
	UID  string `json:"uid"`
	Name string `json:"name"`
	Role string `json:"role,omitempty"`
}

// Options configure the app's routes.
type Options struct {
	// FS holds the built app (index.html, assets/); default Embedded().
	FS fs.FS
	// Config answers /app-config.json (per request: the dev users may change).
	Config func(ctx context.Context) Config
	// Reserved are path prefixes the app never answers (the API, probes, metrics): a request
	// under one that no route matched is a 404, never index.html.
	Reserved []string
}

// DefaultReserved are the prefixes of agentry's own routes.
var DefaultReserved = []string{"/chat/v1", "/api", "/healthz", "/readyz", "/metrics"}

// App serves the web app.
type App struct {
	fsys     fs.FS
	built    bool
	etags    map[string]string
	config   func(ctx context.Context) Config
	reserved []string
}

// New indexes the app's files (ETags from their content).
func New(opts Options) *App {
	a := &App{fsys: opts.FS, config: opts.Config, reserved: opts.Reserved, etags: map[string]string{}}
	if a.fsys == nil {
		a.fsys = Embedded()
	}
	if a.reserved == nil {
		a.reserved = DefaultReserved
	}
	a.built = hasIndex(a.fsys)
	_ = fs.WalkDir(a.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := fs.ReadFile(a.fsys, p); err == nil {
			sum := sha256.Sum256(b)
			a.etags[p] = `"` + hex.EncodeToString(sum[:12]) + `"`
		}
		return nil
	})
	return a
}

// Built says whether this App has an index.html to serve.
func (a *App) Built() bool { return a.built }

// Register adds GET /app-config.json and the app at / (the lowest-priority route, so every
// route registered on e wins; reserved prefixes answer 404 through e's error handler).
func (a *App) Register(e *echo.Echo) {
	e.GET("/app-config.json", a.appConfig)
	e.HEAD("/app-config.json", a.appConfig)
	// Compressed for browsers that accept it (the bundle is mostly text); ranges stay plain.
	gzip := middleware.GzipWithConfig(middleware.GzipConfig{MinLength: 1024, Skipper: func(c echo.Context) bool {
		return c.Request().Header.Get("Range") != ""
	}})
	e.Any("/*", func(c echo.Context) error {
		r := c.Request()
		if a.isReserved(r.URL.Path) {
			return echo.ErrNotFound
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			return echo.ErrNotFound
		}
		a.ServeHTTP(c.Response(), r)
		return nil
	}, gzip)
}

func (a *App) isReserved(p string) bool {
	for _, pre := range a.reserved {
		if p == pre || strings.HasPrefix(p, pre+"/") {
			return true
		}
	}
	return false
}

func (a *App) appConfig(c echo.Context) error {
	cfg := Config{}
	if a.config != nil {
		cfg = a.config(c.Request().Context())
	}
	if cfg.DevLogin != nil && cfg.DevLogin.Users == nil {
		cfg.DevLogin.Users = []DevUser{}
	}
	h := c.Response().Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	return c.JSON(http.StatusOK, cfg)
}

// contentTypes adds types Go's built-in table may lack (it depends on the system's mime.types).
var contentTypes = map[string]string{
	".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8", ".html": "text/html; charset=utf-8",
	".json": "application/json", ".map": "application/json", ".svg": "image/svg+xml",
	".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".ico": "image/x-icon",
	".png": "image/png", ".webp": "image/webp", ".wasm": "application/wasm",
	".txt": "text/plain; charset=utf-8", ".webmanifest": "application/manifest+json",
}

func contentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// ServeHTTP serves a file of the app, index.html for other paths (client-side routes), and the
// "not built" page when the binary has no app.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	// No other site may frame the app: a framing page could trick an admin into clicking
	// (the Enabled switch acts on one click).
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "frame-ancestors 'none'")
	h.Set("Referrer-Policy", "same-origin")
	p := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	p = cmp.Or(p, "index.html")
	if !a.built {
		if strings.HasPrefix(p, "assets/") {
			http.NotFound(w, r)
			return
		}
		notBuilt(w)
		return
	}
	if p != "index.html" && a.isFile(p) {
		a.serveFile(w, r, p)
		return
	}
	// A missing asset or file name (has an extension) is a 404, not the app: a browser would
	// otherwise parse index.html as a script.
	if strings.HasPrefix(p, "assets/") || (p != "index.html" && path.Ext(p) != "") {
		http.NotFound(w, r)
		return
	}
	a.serveFile(w, r, "index.html")
}

func (a *App) isFile(p string) bool {
	st, err := fs.Stat(a.fsys, p)
	return err == nil && !st.IsDir()
}

func (a *App) serveFile(w http.ResponseWriter, r *http.Request, p string) {
	b, err := fs.ReadFile(a.fsys, p)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", contentType(p))
	switch {
	case strings.HasPrefix(p, "assets/"):
		// Vite puts a content hash in every asset name: a changed file has a new name.
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	case p == "index.html":
		h.Set("Cache-Control", "no-cache")
	default:
		h.Set("Cache-Control", "public, max-age=3600")
	}
	if tag, ok := a.etags[p]; ok {
		h.Set("ETag", tag)
	}
	http.ServeContent(w, r, p, time.Time{}, bytes.NewReader(b))
}

const notBuiltPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Agentry: web app not built</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem}code{background:#f3f3f3;padding:.1rem .3rem}</style>
</head><body>
<h1>The web app is not built into this binary</h1>
<p>This <code>agentry</code> was built without the chat web app. Build it with <code>make web</code>
(Node.js and npm), then rebuild the binary; <code>make dev</code> and <code>make build</code> do both.</p>
<p>The chat API is served under <code>/chat/v1</code> all the same.</p>
</body></html>
`

func notBuilt(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write([]byte(notBuiltPage))
}
