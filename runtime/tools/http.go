package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

// maxHTTPToolResponse bounds what an HTTP tool may return.
const maxHTTPToolResponse = 1 << 20

// maxLoggedBody bounds how much of an endpoint's error answer goes to the log.
const maxLoggedBody = 1 << 10

// Public messages of HTTP tool failures: categories, never the URL, address or cause.
const (
	msgUnreachable   = "the tool's endpoint could not be reached"
	msgTimeout       = "the tool's endpoint did not answer in time"
	msgCanceled      = "the tool call was canceled"
	msgCredentials   = "the tool's credentials could not be read"
	msgNotJSON       = "the tool's endpoint answered with a body that is not JSON"
	msgTooLarge      = "the tool's endpoint answered more than 1 MiB"
	msgMisconfigured = "the tool is misconfigured"
)

type httpExecutor struct {
	url           string
	headersSecret string
	identity      *v1alpha1.CallerIdentity
	secrets       secrets.Source
	client        *http.Client
	// allowLinkLocal turns off the refusal of link-local and metadata hosts in the URL (the
	// client's dialer does the same for resolved addresses).
	allowLinkLocal bool
}

func (e *httpExecutor) execute(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	u, err := url.Parse(e.url)
	if err != nil {
		return nil, callError(msgMisconfigured, fmt.Errorf("failed to parse url: %w", err))
	}
	if !e.allowLinkLocal && refusedHost(u.Hostname()) {
		return nil, callError(msgUnreachable, &EgressRefusedError{Addr: u.Hostname()})
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(input))
	if err != nil {
		return nil, callError(msgMisconfigured, fmt.Errorf("failed to build request to %q: %w", redactURL(u), err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "agentry-runtime")
	var secretValues []string
	if e.headersSecret != "" {
		if e.secrets == nil {
			return nil, callError(msgCredentials, fmt.Errorf("headers Secret %q is not available to this runtime", e.headersSecret))
		}
		headers, err := e.secrets.Secret(e.headersSecret)
		if err != nil {
			return nil, callError(msgCredentials, fmt.Errorf("failed to read headers Secret %q: %w", e.headersSecret, err))
		}
		for k, v := range headers {
			req.Header.Set(k, v)
			secretValues = append(secretValues, v)
		}
	}
	setCallerIdentity(ctx, req.Header, e.identity)
	resp, err := e.client.Do(req)
	if err != nil {
		return nil, e.transportError(ctx, u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		loc := "none"
		if l, err := resp.Location(); err == nil {
			loc = redactURL(l)
		}
		return nil, callError(fmt.Sprintf("the tool's endpoint answered a redirect (%d); redirects are not followed", resp.StatusCode),
			fmt.Errorf("endpoint %q answered %d to Location %q", redactURL(u), resp.StatusCode, loc))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// The error page can hold internal detail (stack traces, hosts): log it, don't return it.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxLoggedBody))
		return nil, callError(fmt.Sprintf("the tool's endpoint answered %d", resp.StatusCode),
			fmt.Errorf("endpoint %q answered %d with body %q", redactURL(u), resp.StatusCode, redact(body, secretValues)))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxHTTPToolResponse+1))
	if err != nil {
		return nil, e.transportError(ctx, u, fmt.Errorf("failed to read the answer: %w", err))
	}
	if len(body) > maxHTTPToolResponse {
		return nil, callError(msgTooLarge, fmt.Errorf("endpoint %q answered more than %d bytes", redactURL(u), maxHTTPToolResponse))
	}
	if !json.Valid(body) {
		return nil, callError(msgNotJSON, fmt.Errorf("endpoint %q answered %q", redactURL(u), redact(body[:min(len(body), maxLoggedBody)], secretValues)))
	}
	return body, nil
}

// transportError turns a failed exchange into its public category, keeping the cause (which
// names the URL, the address and the resolver's answer) for the log.
func (e *httpExecutor) transportError(ctx context.Context, u *url.URL, err error) error {
	// url.Error repeats the whole URL, query included; the redacted one is enough.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	cause := fmt.Errorf("failed to call endpoint %q: %w", redactURL(u), err)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return callError(msgTimeout, cause)
	case ctx.Err() != nil:
		return callError(msgCanceled, cause)
	default:
		return callError(msgUnreachable, cause)
	}
}

// redactURL is u for the log: no user info and no query, which can carry credentials.
func redactURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	return c.String()
}

// redact replaces the tool's Secret header values in an endpoint's answer (some error pages
// echo the request's headers) before it is logged.
func redact(body []byte, secretValues []string) string {
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	for _, v := range secretValues {
		if v != "" {
			s = strings.ReplaceAll(s, v, "[redacted]")
		}
	}
	return s
}
