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
	pre := func(origin, path string) *http.Response {
		req, _ := http.NewRequest(http.MethodOptions, e.srv.URL+Prefix+path, nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	for _, path := range []string{"/messages", "/groups/g1/join", "/users/alice"} {
		res := pre("https://app.example.com", path)
		if res.StatusCode != http.StatusNoContent || res.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" ||
			res.Header.Get("Access-Control-Allow-Headers") != "Authorization, Content-Type" {
			t.Errorf("pre-flight %s from an allowed origin: %d %v", path, res.StatusCode, res.Header)
		}
		if res := pre("https://evil.example", path); res.StatusCode != http.StatusForbidden || res.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("pre-flight %s from another origin: %d %v", path, res.StatusCode, res.Header)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+Prefix+"/healthz", nil)
	req.Header.Set("Origin", "https://app.example.com")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" || res.Header.Get("Access-Control-Expose-Headers") != "X-Agent-Run, Retry-After" {
		t.Errorf("simple request from an allowed origin: %v", res.Header)
	}
	// Without configured origins, nothing is allowed.
	e2 := newStubEnv(t, Options{})
	req, _ = http.NewRequest(http.MethodOptions, e2.srv.URL+Prefix+"/messages", nil)
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Access-Control-Request-Method", "POST")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("pre-flight without configured origins: %d %v", res.StatusCode, res.Header)
	}
}
