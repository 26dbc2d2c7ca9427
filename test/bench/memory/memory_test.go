// Package memory measures what conversation memory adds to a generate request on each
// backend: recall of the last 20 messages of a 1,000-message thread and persisting the turn,
// beside the same request without memory. Run by `make bench`:
//
//	go test -run '^$' -bench . ./test/bench/memory
package memory

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/protocol/manifest"
	mem "github.com/agentry-dev/agentry/runtime/memory"
	"github.com/agentry-dev/agentry/runtime/registry"
	"github.com/agentry-dev/agentry/runtime/server"
)

const threadSize = 1000

type result struct {
	name     string
	p50, p99 time.Duration
}

func BenchmarkMemoryOverhead(b *testing.B) {
	if b.N > 1 {
		return // one measured pass is the benchmark; the table is its output
	}
	ctx := context.Background()
	model, err := scriptedmodel.Start("127.0.0.1:0", scriptedmodel.Sequence(scriptedmodel.Reply{Text: "A short answer of a few words."}), scriptedmodel.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer model.Close()
	pg := testutil.StartPostgres(b)
	backends := []struct{ name, url string }{
		{"none", ""},
		{"memory", "memory://"},
		{"sqlite", "file:" + filepath.Join(b.TempDir(), "bench.db")},
		{"postgres", pg.URL},
	}
	var results []result
	for _, be := range backends {
		base, stop := serve(b, ctx, model.URL(), be.url)
		if be.url != "" {
			fill(b, ctx, be.url)
		}
		body := `{"messages":"one more question"}`
		if be.url != "" {
			body = `{"messages":"one more question","memory":{"thread":"big","resource":"bench"}}`
		}
		for i := 0; i < 50; i++ { // warm up
			post(b, base, body)
		}
		var lat []time.Duration
		for i := 0; i < 400; i++ {
			t0 := time.Now()
			post(b, base, body)
			lat = append(lat, time.Since(t0))
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		results = append(results, result{be.name, lat[len(lat)/2], lat[len(lat)*99/100]})
		stop()
	}
	fmt.Printf("\nMemory benchmark: generate at c=1, scripted model with zero delay, thread of %d+ messages, recall 20\n\n", threadSize)
	fmt.Printf("| backend | p50 | p99 | added p50 (recall + persist) |\n|---|---|---|---|\n")
	for _, r := range results {
		fmt.Printf("| %s | %.2f ms | %.2f ms | %+.2f ms |\n", r.name, ms(r.p50), ms(r.p99), ms(r.p50)-ms(results[0].p50))
	}
	fmt.Println()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// fill stores a thread of threadSize messages directly.
func fill(b *testing.B, ctx context.Context, url string) {
	s, err := mem.Open(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	batch := make([]mem.Message, 0, 100)
	for i := 0; i < threadSize; i++ {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		batch = append(batch, mem.Message{ID: fmt.Sprintf("fill-%d", i), Role: role, Content: strings.Repeat("word ", 40)})
		if len(batch) == cap(batch) {
			if err := s.Save(ctx, "bench", "big", "bench", batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}

func serve(b *testing.B, ctx context.Context, modelURL, memoryURL string) (string, func()) {
	doc := `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: bench}
spec:
  model: {name: m, maxRetries: 0}
  endpoint: {rateLimit: {requestsPerMinute: 0}}
`
	if memoryURL != "" {
		doc += fmt.Sprintf("  memory: {url: %q, lastMessages: 20}\n", memoryURL)
	}
	loader, err := manifest.NewLoader()
	if err != nil {
		b.Fatal(err)
	}
	set := &manifest.Set{}
	if err := loader.Decode(ctx, "bench.yaml", []byte(doc), set); err != nil {
		b.Fatal(err)
	}
	reg, _, err := registry.Build(ctx, set, registry.Options{ModelOverride: &registry.ModelOverride{BaseURL: modelURL}})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		_ = server.New(server.Options{Registry: reg, Logger: logr.Discard()}).Serve(sctx, ln)
		close(done)
	}()
	return "http://" + ln.Addr().String(), func() { cancel(); <-done; _ = reg.Close() }
}

func post(b *testing.B, base, body string) {
	resp, err := http.Post(base+"/api/agents/bench/generate", "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Fatalf("status %d", resp.StatusCode)
	}
}
