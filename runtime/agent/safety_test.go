package agent

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/metrics"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// series are a collector's series by their label values (sorted by label name) joined with
// "/", with their values.
// (prometheus/testutil would do, but needs a module this repository does not require.)
func series(c prometheus.Collector) map[string]float64 {
	ch := make(chan prometheus.Metric)
	go func() { c.Collect(ch); close(ch) }()
	out := map[string]float64{}
	for m := range ch {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			panic(err)
		}
		var labels []string
		for _, l := range d.GetLabel() {
			labels = append(labels, l.GetValue())
		}
		out[strings.Join(labels, "/")] = d.GetCounter().GetValue()
	}
	return out
}

func TestClientToolNamesDoNotCreateMetricSeries(t *testing.T) {
	const n = 1000
	var calls []llm.ToolCall
	var clientTools []tools.Definition
	var madeUp []llm.ToolCall
	for i := range n {
		name := fmt.Sprintf("client-tool-%d", i)
		clientTools = append(clientTools, tools.Definition{Name: name, Description: "d"})
		calls = append(calls, llm.ToolCall{ID: fmt.Sprintf("c%d", i), Name: name, Arguments: `{}`})
		madeUp = append(madeUp, llm.ToolCall{ID: fmt.Sprintf("u%d", i), Name: fmt.Sprintf("made-up-%d", i), Arguments: `{}`})
	}
	calls = append(calls, llm.ToolCall{ID: "fa", Name: "show-card", Arguments: `{}`})
	client := &scriptedClient{steps: []llm.Response{
		{ToolCalls: madeUp, FinishReason: "tool_calls"},
		{ToolCalls: calls, FinishReason: "tool_calls"},
	}}
	a := &Agent{ID: "labels", Model: client, FrontendActions: []FrontendAction{{Name: "show-card", Description: "card"}}}

	before := len(series(metrics.ToolCalls))
	res, err := a.Run(context.Background(), Input{Messages: []llm.Message{{Role: "user", Content: "x"}}, ClientTools: clientTools}, nil)
	testutil.Check(t, err)
	if len(res.PendingToolCalls) != n+1 {
		t.Fatalf("want %d pending calls, got %d", n+1, len(res.PendingToolCalls))
	}
	// Three series at most: the configured action by name, "client" and "unknown".
	if added := len(series(metrics.ToolCalls)) - before; added != 3 {
		t.Errorf("%d client tool names and %d unknown names added %d series, want 3", n, n, added)
	}
	for _, c := range []struct {
		tool, outcome string
		want          float64
	}{{"show-card", "frontend", 1}, {"client", "frontend", n}, {"unknown", "error", n}} {
		if got := series(metrics.ToolCalls)["labels/"+c.outcome+"/"+c.tool]; got != c.want {
			t.Errorf("tool=%s outcome=%s: got %v, want %v", c.tool, c.outcome, got, c.want)
		}
	}
}

func TestHTTPToolFailuresReachTheModelAsCategories(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
			return
		}
		http.Error(w, "panic: nil map at /srv/app/main.go:42 (host db-7.internal)", http.StatusInternalServerError)
	}))
	defer srv.Close()
	httpTool := func(id, url string) *tools.Tool {
		tool, errs := tools.Compile(&v1alpha1.Tool{
			ObjectMeta: metav1.ObjectMeta{Name: id},
			Spec: v1alpha1.ToolSpec{
				ID: id, Description: "d",
				InputSchema: &runtime.RawExtension{Raw: []byte(`{"type":"object"}`)},
				Execute:     v1alpha1.ToolExecute{HTTP: &v1alpha1.HTTPExecute{URL: url}, Timeout: &metav1.Duration{Duration: 2 * time.Second}},
			},
		}, tools.Options{})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		return tool
	}
	client := &scriptedClient{steps: []llm.Response{
		{ToolCalls: []llm.ToolCall{
			{ID: "c1", Name: "broken", Arguments: `{}`},
			{ID: "c2", Name: "redirect", Arguments: `{}`},
			{ID: "c3", Name: "metadata", Arguments: `{}`},
		}, FinishReason: "tool_calls"},
		{Text: "sorry", FinishReason: "stop"},
	}}
	a := &Agent{ID: "cats", Model: client, ToolKeys: []string{"broken", "redirect", "metadata"}, Tools: map[string]*tools.Tool{
		"broken":   httpTool("broken", srv.URL+"/err"),
		"redirect": httpTool("redirect", srv.URL+"/redirect"),
		"metadata": httpTool("metadata", "http://169.254.169.254/latest/meta-data/"),
	}}
	res, err := a.Run(context.Background(), Input{Messages: []llm.Message{{Role: "user", Content: "x"}}}, nil)
	testutil.Check(t, err)
	want := []string{
		`{"error":"the tool's endpoint answered 500"}`,
		`{"error":"the tool's endpoint answered a redirect (302); redirects are not followed"}`,
		`{"error":"the tool's endpoint could not be reached"}`,
	}
	for i, r := range res.ToolResults() {
		if string(r.Result) != want[i] || !r.IsError {
			t.Errorf("%s: got %s, want %s", r.ToolName, r.Result, want[i])
		}
	}
	for _, m := range client.seen[1].Messages {
		if strings.Contains(m.Content, "127.0.0.1") || strings.Contains(m.Content, "db-7") || strings.Contains(m.Content, "169.254") {
			t.Errorf("an internal detail reached the model: %q", m.Content)
		}
	}
}
