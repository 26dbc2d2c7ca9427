//go:build !agentry_runtime

package cmd

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

func TestDevAnswersLoopbackHostsOnly(t *testing.T) {
	e := echo.New()
	withLoopbackHosts(func(e *echo.Echo) {
		e.GET("/app-config.json", func(c echo.Context) error { return c.String(http.StatusOK, "ok") })
	})(e)
	for host, want := range map[string]int{
		"127.0.0.1:4111": 200, "localhost:4111": 200, "[::1]:4111": 200, "app.localhost": 200, "localhost": 200,
		"evil.example.com:4111": 421, "192.168.1.10:4111": 421, "127.0.0.1.nip.io": 421, "": 421,
	} {
		req := httptest.NewRequest(http.MethodGet, "/app-config.json", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %q: %d, want %d", host, rec.Code, want)
		}
	}
	for addr, want := range map[string]bool{"127.0.0.1:4111": true, "localhost:0": true, "[::1]:4111": true, ":4111": false, "0.0.0.0:4111": false, "10.0.0.2:4111": false} {
		if got := loopbackListen(addr); got != want {
			t.Errorf("loopbackListen(%q) = %v", addr, got)
		}
	}
}
