package api

import (
	"net/http"
	"testing"
)

// TestCORS: configured origins may call the API from a browser (pre-flight and the real
// request); others get no CORS headers and a refused pre-flight; the apikey header is never
// allowed cross-origin.
func TestCORS(t *testing.T) {
	e := newStubEnv(t, Options{CORSOrigins: []string{"https://app.example.com"}})
	pre := func(origin, path string) resp {
		return e.do(http.MethodOptions, path, "", nil, "Origin", origin, "Access-Control-Request-Method", "POST",
			"Access-Control-Request-Headers", "authorization, content-type")
	}
	for _, path := range []string{"/messages", "/groups/g1/join", "/users/alice"} {
		res := pre("https://app.example.com", path)
		if res.status != http.StatusNoContent || res.header.Get("Access-Control-Allow-Origin") != "https://app.example.com" ||
			res.header.Get("Access-Control-Allow-Headers") != "Authorization, Content-Type" {
			t.Errorf("pre-flight %s from an allowed origin: %d %v", path, res.status, res.header)
		}
		if res := pre("https://evil.example", path); res.status != http.StatusForbidden || res.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("pre-flight %s from another origin: %d %v", path, res.status, res.header)
		}
	}
	res := e.do(http.MethodGet, "/healthz", "", nil, "Origin", "https://app.example.com")
	if res.header.Get("Access-Control-Allow-Origin") != "https://app.example.com" || res.header.Get("Access-Control-Expose-Headers") != "X-Agent-Run, Retry-After" {
		t.Errorf("simple request from an allowed origin: %v", res.header)
	}
	// Without configured origins, nothing is allowed.
	e2 := newStubEnv(t, Options{})
	res = e2.do(http.MethodOptions, "/messages", "", nil, "Origin", "https://app.example.com", "Access-Control-Request-Method", "POST")
	if res.status != http.StatusForbidden || res.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("pre-flight without configured origins: %d %v", res.status, res.header)
	}
}
