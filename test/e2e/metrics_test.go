package e2e

import (
	"crypto/tls"
	"net/http"
	"strings"
	"testing"
)

// metricsScrapers hold real ServiceAccount tokens (TokenRequest API) of two scrapers: one bound
// to the chart's metrics-reader ClusterRole, one bound to nothing.
type metricsScrapers struct{ reader, stranger string }

func metricsTokens(t *testing.T, c *cluster) *metricsScrapers {
	t.Helper()
	c.sh(t, "kubectl create serviceaccount metrics-scraper -n agentry-system")
	c.sh(t, "kubectl create serviceaccount stranger -n agentry-system")
	c.sh(t, "kubectl create clusterrolebinding metrics-scraper --clusterrole=agentry-metrics-reader --serviceaccount=agentry-system:metrics-scraper")
	return &metricsScrapers{
		reader:   strings.TrimSpace(c.sh(t, "kubectl create token metrics-scraper -n agentry-system")),
		stranger: strings.TrimSpace(c.sh(t, "kubectl create token stranger -n agentry-system")),
	}
}

// check scrapes the operator's metrics over HTTPS: the operator asks the API server (as the
// chart's ServiceAccount, with the chart's metrics-auth RBAC) who the caller is and whether it
// may GET /metrics.
func (m *metricsScrapers) check(t *testing.T, url string) {
	t.Helper()
	// The operator's certificate is self-signed unless --metrics-cert-dir is given.
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	get := func(token string) (int, string) {
		if token == "" {
			return send(t, hc, http.MethodGet, url, nil, "")
		}
		return send(t, hc, http.MethodGet, url, map[string]string{"Authorization": "Bearer " + token}, "")
	}
	if code, body := get(""); code != http.StatusUnauthorized {
		t.Errorf("an unauthenticated scrape: %d, want 401: %.200s", code, body)
	}
	// controller-runtime's filter answers 500 "Authentication failed" when the TokenReview
	// reports an error, which the API server does for a token it cannot parse: refused either way.
	if code, body := get("not-a-token"); (code != http.StatusUnauthorized && code != http.StatusInternalServerError) || strings.Contains(body, "controller_runtime") {
		t.Errorf("a scrape with a bogus token: %d, want 401 or 500 without metrics: %.200s", code, body)
	}
	if code, body := get(m.stranger); code != http.StatusForbidden {
		t.Errorf("a scrape by a ServiceAccount without the metrics-reader role: %d, want 403: %.200s", code, body)
	}
	code, body := get(m.reader)
	if code != http.StatusOK || !strings.Contains(body, `controller_runtime_reconcile_total{controller="agent",result="success"}`) {
		t.Errorf("a scrape with the metrics-reader token: %d, want 200 with the Agent reconciles: %.300s", code, body)
	}
}
