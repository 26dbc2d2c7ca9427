package netfail

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestTLS(t *testing.T) {
	for _, c := range []struct {
		err  error
		want TLSKind
	}{
		{fmt.Errorf("get: %w", http.ErrSchemeMismatch), PlainHTTP},
		{fmt.Errorf("get: %w", x509.UnknownAuthorityError{}), Untrusted},
		{fmt.Errorf("get: %w", x509.HostnameError{}), Untrusted},
		{fmt.Errorf("get: %w", tls.RecordHeaderError{}), NoHandshake},
		{fmt.Errorf("get: %w", tls.AlertError(40)), Refused},
		{errors.New("connection refused"), NotTLS},
	} {
		if got := TLS(c.err); got != c.want {
			t.Errorf("%v: %d, want %d", c.err, got, c.want)
		}
	}
	// A real https request to a server whose certificate is not trusted, and to a plain one.
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	if _, err := http.Get(srv.URL); TLS(err) != Untrusted {
		t.Errorf("untrusted certificate: %v → %d", err, TLS(err))
	}
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	if _, err := http.Get("https" + plain.URL[len("http"):]); TLS(err) != PlainHTTP {
		t.Errorf("plain HTTP: %v → %d", err, TLS(err))
	}
}
