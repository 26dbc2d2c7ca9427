package testutil

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Collector is a real OpenTelemetry Collector (hack/otelcol: the OTLP receiver and the file
// exporter) listening on loopback; Endpoint is its OTLP/HTTP base URL.
type Collector struct {
	Endpoint string
	file     string
	proc     *Proc
}

// CollectorBinary builds hack/otelcol from its own module (cached by its go.sum under
// ~/.cache/agentry) and returns the binary's path.
func CollectorBinary(moduleRoot string) (string, error) {
	src := filepath.Join(moduleRoot, "hack", "otelcol")
	sum, err := os.ReadFile(filepath.Join(src, "go.sum"))
	if err != nil {
		return "", err
	}
	main, err := os.ReadFile(filepath.Join(src, "main.go"))
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(append(sum, main...))
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	bin := filepath.Join(cache, "agentry", "otelcol-"+hex.EncodeToString(h[:6]))
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", err
	}
	build := exec.Command("go", "build", "-trimpath", "-o", bin+".tmp", ".")
	build.Dir = src
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("failed to build the OpenTelemetry Collector (hack/otelcol): %w", err)
	}
	return bin, os.Rename(bin+".tmp", bin)
}

// StartCollector runs the collector with an OTLP/HTTP receiver on a free loopback port and
// the file exporter writing to a temporary file; it stops at the test's cleanup.
func StartCollector(t *testing.T, bin string) *Collector {
	t.Helper()
	dir := t.TempDir()
	port, err := FreePort()
	Check(t, err)
	file := filepath.Join(dir, "traces.jsonl")
	config := CollectorConfig(port, file)
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	p, _ := Start(t, bin, dir, nil, `Everything is ready`, "--config", "file:"+cfg)
	return &Collector{Endpoint: fmt.Sprintf("http://127.0.0.1:%d", port), file: file, proc: p}
}

// CollectorConfig is the collector's configuration: OTLP/HTTP in on a loopback port, the file
// exporter out.
func CollectorConfig(port int, file string) string {
	return fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
exporters:
  file:
    path: %s
    flush_interval: 100ms
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
`, port, file)
}

// Span is a span as the file exporter wrote it (OTLP/JSON), flattened.
type Span struct {
	TraceID, SpanID, ParentSpanID string
	Name                          string
	Kind                          int
	Service                       string
	Attributes                    map[string]any
	StatusCode                    int // 0 unset, 1 ok, 2 error
}

// Spans reads every span exported so far.
func (c *Collector) Spans() ([]Span, error) {
	f, err := os.Open(c.file)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Span
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var data otlpTraces
		if err := json.Unmarshal(sc.Bytes(), &data); err != nil {
			return nil, fmt.Errorf("failed to read the collector's file: %w", err)
		}
		for _, rs := range data.ResourceSpans {
			service := ""
			for _, a := range rs.Resource.Attributes {
				if a.Key == "service.name" {
					service, _ = a.Value.get().(string)
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					attrs := map[string]any{}
					for _, a := range s.Attributes {
						attrs[a.Key] = a.Value.get()
					}
					out = append(out, Span{TraceID: s.TraceID, SpanID: s.SpanID, ParentSpanID: s.ParentSpanID, Name: s.Name, Kind: s.Kind,
						Service: service, Attributes: attrs, StatusCode: s.Status.Code})
				}
			}
		}
	}
	return out, sc.Err()
}

// WaitSpans polls until done accepts the spans exported so far, or fails the test.
func (c *Collector) WaitSpans(t *testing.T, timeout time.Duration, done func([]Span) bool) []Span {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		spans, err := c.Spans()
		if err != nil {
			t.Fatal(err)
		}
		if done(spans) {
			return spans
		}
		if time.Now().After(deadline) {
			var names []string
			for _, s := range spans {
				names = append(names, s.Service+"/"+s.Name)
			}
			t.Fatalf("spans not as expected within %v; got %q\ncollector output:\n%s", timeout, names, c.proc.Output())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

type otlpTraces struct {
	ResourceSpans []struct {
		Resource struct {
			Attributes []otlpKV `json:"attributes"`
		} `json:"resource"`
		ScopeSpans []struct {
			Spans []struct {
				TraceID      string   `json:"traceId"`
				SpanID       string   `json:"spanId"`
				ParentSpanID string   `json:"parentSpanId"`
				Name         string   `json:"name"`
				Kind         int      `json:"kind"`
				Attributes   []otlpKV `json:"attributes"`
				Status       struct {
					Code int `json:"code"`
				} `json:"status"`
			} `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

type otlpKV struct {
	Key   string  `json:"key"`
	Value otlpAny `json:"value"`
}

type otlpAny struct {
	StringValue *string  `json:"stringValue"`
	IntValue    *string  `json:"intValue"` // OTLP/JSON writes 64-bit integers as strings
	BoolValue   *bool    `json:"boolValue"`
	DoubleValue *float64 `json:"doubleValue"`
	ArrayValue  *struct {
		Values []otlpAny `json:"values"`
	} `json:"arrayValue"`
}

// get is the value as a Go value: a string, an integer as its decimal string, a bool, a
// float64 or a []any.
func (v otlpAny) get() any {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.IntValue != nil:
		return *v.IntValue
	case v.BoolValue != nil:
		return *v.BoolValue
	case v.DoubleValue != nil:
		return *v.DoubleValue
	case v.ArrayValue != nil:
		out := make([]any, len(v.ArrayValue.Values))
		for i, e := range v.ArrayValue.Values {
			out[i] = e.get()
		}
		return out
	}
	return nil
}
