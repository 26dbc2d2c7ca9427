package a2awire

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
)

func TestText(t *testing.T) {
	parts := a2a.ContentParts{a2a.TextPart{Text: "Sunny "}, a2a.DataPart{Data: map[string]any{"x": 1}}, &a2a.TextPart{Text: "in Lima."}}
	if got := Text(parts); got != "Sunny in Lima." {
		t.Errorf("Text: %q", got)
	}
}

// TestClientSendsHeaders: every request carries the headers; the caller's own are kept.
func TestClientSendsHeaders(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.Header.Clone() }))
	defer srv.Close()
	c := Client(srv.Client(), http.Header{"Authorization": {"Bearer s3cr3t"}})
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("X-Own", "yes")
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if got.Get("Authorization") != "Bearer s3cr3t" || got.Get("X-Own") != "yes" {
		t.Errorf("headers: %v", got)
	}
	if req.Header.Get("Authorization") != "" {
		t.Error("the caller's request was changed")
	}
}
