package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/agentry-dev/agentry/runtime/secrets"
)

// maxHTTPToolResponse bounds what an HTTP tool may return.
const maxHTTPToolResponse = 1 << 20

type httpExecutor struct {
	url           string
	headersSecret string
	secrets       secrets.Source
	client        *http.Client
}

func (e *httpExecutor) execute(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(input))
	if err != nil {
		return nil, fmt.Errorf("failed to build request to %q: %w", e.url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "agentry-runtime")
	if e.headersSecret != "" {
		if e.secrets == nil {
			return nil, fmt.Errorf("headers secret %q is not available to this runtime", e.headersSecret)
		}
		headers, err := e.secrets.Secret(e.headersSecret)
		if err != nil {
			return nil, err
		}
		for k, v := range headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := e.client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("tool endpoint %q did not answer in time", e.url)
		}
		return nil, fmt.Errorf("failed to call tool endpoint %q: %w", e.url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxHTTPToolResponse+1))
	if err != nil {
		return nil, fmt.Errorf("failed to read response of tool endpoint %q: %w", e.url, err)
	}
	if len(body) > maxHTTPToolResponse {
		return nil, fmt.Errorf("tool endpoint %q answered more than %d bytes", e.url, maxHTTPToolResponse)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("tool endpoint %q answered %d: %s", e.url, resp.StatusCode, snippet(body))
	}
	if !json.Valid(body) {
		return nil, fmt.Errorf("tool endpoint %q answered with a body that is not JSON: %s", e.url, snippet(body))
	}
	return body, nil
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
