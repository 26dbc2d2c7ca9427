package api

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-logr/logr"
	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestMount mounts the API on another server's echo (as agentry dev does beside the runtime):
// the API answers in its own error shape and leaves the host's routes and errors alone.
func TestMount(t *testing.T) {
	host := echo.New()
	host.HTTPErrorHandler = func(err error, c echo.Context) { _ = c.String(599, "host error") }
	host.GET("/api/agents", func(c echo.Context) error { return c.String(http.StatusOK, "agents") })
	hub := &fakeHub{}
	Mount(host, Options{Store: &stubStore{users: map[string]model.User{}, tokens: map[string]string{}}, Hub: hub, APIKey: testAPIKey, Logger: logr.Discard()})
	srv := httptest.NewServer(host)
	defer srv.Close()

	get := func(path string) (int, string) {
		res, err := http.Get(srv.URL + path)
		testutil.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, _ := get("/api/agents"); code != http.StatusOK {
		t.Fatalf("host route: %d", code)
	}
	if code, _ := get("/elsewhere"); code != 599 {
		t.Fatalf("host 404 went through %d, not the host's error handler", code)
	}
	code, raw := get(Prefix + "/me")
	var body errorBody
	_ = json.Unmarshal([]byte(raw), &body)
	if code != http.StatusUnauthorized || body.Error.Code != "ERR_AUTH_TOKEN_INVALID" {
		t.Fatalf("mounted API answered %d %+v", code, body)
	}
	code, raw = get(Prefix + "/no-such-route")
	_ = json.Unmarshal([]byte(raw), &body)
	if code != http.StatusNotFound || body.Error.Code != "ERR_NOT_FOUND" {
		t.Fatalf("unknown chat route answered %d %+v", code, body)
	}
	if code, _ := get(Prefix + "/ws"); code != http.StatusTeapot {
		t.Fatalf("/ws was not handed to the hub: %d", code)
	}
}
