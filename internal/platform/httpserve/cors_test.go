package httpserve

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

// TestCORSPolicy: origins compare case-insensitively with a trailing "/" ignored; the page's own
// host is always allowed; pre-flights of other origins are refused; RefuseOthers decides
// whether other requests from other origins are refused or served without CORS headers;
// AllowHeaders is fixed or, when empty, echoes the pre-flight's.
func TestCORSPolicy(t *testing.T) {
	serve := func(p CORSPolicy, method, origin string, preflightHeaders string) *httptest.ResponseRecorder {
		p.Origins = func(echo.Context) []string { return []string{"https://App.Example.com/"} }
		p.Refuse = func(c echo.Context) error { return c.NoContent(http.StatusForbidden) }
		e := echo.New()
		e.Any("/x", func(c echo.Context) error { return c.String(http.StatusOK, "served") }, CORS(p))
		req := httptest.NewRequest(method, "http://api.example.com/x", nil)
		req.Header.Set("Origin", origin)
		if preflightHeaders != "" {
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", preflightHeaders)
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec
	}
	lenient := CORSPolicy{AllowMethods: "GET, POST", ExposeHeaders: "Retry-After"}
	strict := lenient
	strict.RefuseOthers, strict.AllowHeaders = true, "Authorization"

	for _, origin := range []string{"https://app.example.com", "HTTPS://APP.EXAMPLE.COM", "http://api.example.com"} {
		if rec := serve(lenient, http.MethodPost, origin, ""); rec.Code != 200 || rec.Header().Get("Access-Control-Allow-Origin") != origin {
			t.Errorf("%s: %d %v", origin, rec.Code, rec.Header())
		}
	}
	rec := serve(lenient, http.MethodOptions, "https://app.example.com", "authorization, x-custom")
	if rec.Code != http.StatusNoContent || rec.Header().Get("Access-Control-Allow-Headers") != "authorization, x-custom" {
		t.Errorf("pre-flight echoes the asked headers: %d %v", rec.Code, rec.Header())
	}
	if rec := serve(strict, http.MethodOptions, "https://app.example.com", "x-custom"); rec.Header().Get("Access-Control-Allow-Headers") != "Authorization" {
		t.Errorf("a fixed AllowHeaders: %v", rec.Header())
	}
	for _, p := range []CORSPolicy{lenient, strict} {
		if rec := serve(p, http.MethodOptions, "https://evil.example", "content-type"); rec.Code != http.StatusForbidden || rec.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("pre-flight of another origin: %d %v", rec.Code, rec.Header())
		}
	}
	if rec := serve(lenient, http.MethodPost, "https://evil.example", ""); rec.Code != 200 || rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("without RefuseOthers another origin is served without CORS headers: %d %v", rec.Code, rec.Header())
	}
	if rec := serve(strict, http.MethodPost, "https://evil.example", ""); rec.Code != http.StatusForbidden || rec.Body.String() == "served" {
		t.Errorf("RefuseOthers refuses another origin's simple request: %d %s", rec.Code, rec.Body)
	}
}
