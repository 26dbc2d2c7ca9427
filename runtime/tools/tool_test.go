package tools

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/protocol/manifest"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

func sampleTools(t *testing.T) map[string]*Tool {
	t.Helper()
	l, err := manifest.NewLoader()
	testutil.Check(t, err)
	set, err := l.LoadPath(context.Background(), "../../config/samples")
	testutil.Check(t, err)
	out := map[string]*Tool{}
	for _, mt := range set.Tools {
		tool, errs := Compile(mt, Options{})
		if len(errs) > 0 {
			t.Fatalf("sample tool %s does not compile: %v", mt.Name, errs)
		}
		out[tool.ID] = tool
	}
	return out
}

func call(t *testing.T, tool *Tool, args string) map[string]any {
	t.Helper()
	out, err := tool.Call(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s(%s): %v", tool.ID, args, err)
	}
	var m map[string]any
	testutil.Check(t, json.Unmarshal(out, &m))
	return m
}

func TestSampleTools(t *testing.T) {
	tools := sampleTools(t)

	got := call(t, tools["suggest-substitute"], `{"ingredient":"BuTTer "}`)
	if !strings.Contains(got["substitute"].(string), "olive oil") || got["reason"] == "" {
		t.Errorf("butter: %v", got)
	}
	// An unknown ingredient: the fixed "no direct match" and one generic reason, whatever it is.
	got = call(t, tools["suggest-substitute"], `{"ingredient":"dragonfruit"}`)
	other := call(t, tools["suggest-substitute"], `{"ingredient":"Yuzu"}`)
	if got["substitute"] != "no direct match" || got["reason"] == "" || other["substitute"] != got["substitute"] || other["reason"] != got["reason"] {
		t.Errorf("unknown ingredients: %v, %v", got, other)
	}

	got = call(t, tools["recipe-from-pantry"], `{"ingredients":["eggs","spinach"]}`)
	steps := got["steps"].([]any)
	if got["title"] != "Pantry Skillet" || len(steps) != 5 || steps[0] != "Prepare the eggs." || !strings.Contains(steps[3].(string), "eggs, spinach") {
		t.Errorf("recipe: %v", got)
	}
	if _, err := tools["recipe-from-pantry"].Call(context.Background(), json.RawMessage(`{"ingredients":[]}`)); err == nil {
		t.Error("empty ingredient list must be rejected")
	} else {
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "/ingredients") {
			t.Errorf("want an InputError naming /ingredients, got %v", err)
		}
	}

	a := call(t, tools["weather"], `{"location":"Paris"}`)
	b := call(t, tools["weather"], `{"location":"Paris"}`)
	if a["location"] != "Paris" || a["temperature"] != b["temperature"] {
		t.Errorf("weather must be deterministic: %v %v", a, b)
	}
	if _, ok := a["temperature"].(float64); !ok {
		t.Errorf("temperature must be a number: %v", a)
	}
}

func celTool(expr, input, output string) *v1alpha1.Tool {
	tool := &v1alpha1.Tool{
		ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "default"},
		Spec: v1alpha1.ToolSpec{
			ID: "t", Description: "d",
			InputSchema: &runtime.RawExtension{Raw: []byte(input)},
			Execute:     v1alpha1.ToolExecute{CEL: expr},
		},
	}
	if output != "" {
		tool.Spec.OutputSchema = &runtime.RawExtension{Raw: []byte(output)}
	}
	return tool
}

func TestCompileErrors(t *testing.T) {
	cases := []struct {
		name string
		tool *v1alpha1.Tool
		want string
	}{
		{"syntax", celTool(`{"a": `, `{"type":"object"}`, ""), "spec.execute.cel"},
		{"undeclared", celTool(`{"a": nope}`, `{"type":"object"}`, ""), "undeclared reference"},
		{"not a map", celTool(`"text"`, `{"type":"object"}`, ""), "must return an object"},
		{"schema not object", celTool(`{}`, `{"type":"string"}`, ""), "spec.inputSchema"},
		{"bad schema", celTool(`{}`, `{"type":"object","properties":{"a":{"type":"nonsense"}}}`, ""), "spec.inputSchema"},
		{"bad output schema", celTool(`{}`, `{"type":"object"}`, `{"minimum":"x"}`), "spec.outputSchema"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := Compile(tc.tool, Options{})
			if len(errs) == 0 {
				t.Fatal("expected a compile error")
			}
			if !strings.Contains(errs.ToAggregate().Error(), tc.want) {
				t.Errorf("error %q does not mention %q", errs.ToAggregate(), tc.want)
			}
		})
	}
}

func TestCELIntegersAndOutputValidation(t *testing.T) {
	tool, errs := Compile(celTool(`{"next": input.n + 1, "half": input.x / 2.0}`,
		`{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"number"}}}`,
		`{"type":"object","required":["next"],"properties":{"next":{"type":"integer"}}}`), Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := call(t, tool, `{"n": 41, "x": 3}`)
	if got["next"] != float64(42) || got["half"] != 1.5 {
		t.Errorf("got %v", got)
	}

	bad, errs := Compile(celTool(`{"next": "not a number"}`, `{"type":"object"}`,
		`{"type":"object","properties":{"next":{"type":"integer"}}}`), Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	_, err := bad.Call(context.Background(), json.RawMessage(`{}`))
	if err == nil || !strings.Contains(err.Error(), "outputSchema") {
		t.Errorf("want an output schema violation, got %v", err)
	}
}

func TestCELCostLimit(t *testing.T) {
	tool, errs := Compile(celTool(`{"n": input.xs.map(a, input.xs.map(b, input.xs.map(c, a + b + c))).size()}`,
		`{"type":"object"}`, ""), Options{CELCostLimit: 10_000})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	xs := make([]int, 200)
	args, _ := json.Marshal(map[string]any{"xs": xs})
	_, err := tool.Call(context.Background(), args)
	if err == nil || !strings.Contains(err.Error(), "cost") {
		t.Errorf("want a cost limit error, got %v", err)
	}
}

func httpTool(url string, timeout time.Duration, headers string) *v1alpha1.Tool {
	tool := &v1alpha1.Tool{
		ObjectMeta: metav1.ObjectMeta{Name: "h", Namespace: "default"},
		Spec: v1alpha1.ToolSpec{
			ID: "h", Description: "d",
			InputSchema:  &runtime.RawExtension{Raw: []byte(`{"type":"object","required":["city"],"properties":{"city":{"type":"string"}}}`)},
			OutputSchema: &runtime.RawExtension{Raw: []byte(`{"type":"object","required":["temp"]}`)},
			Execute: v1alpha1.ToolExecute{
				HTTP:    &v1alpha1.HTTPExecute{URL: url},
				Timeout: &metav1.Duration{Duration: timeout},
			},
		},
	}
	if headers != "" {
		tool.Spec.Execute.HTTP.HeadersSecretRef = &v1alpha1.LocalObjectReference{Name: headers}
	}
	return tool
}

func TestHTTPTool(t *testing.T) {
	var gotAuth, gotBody string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("X-Api-Key")
		var in map[string]any
		_ = json.NewDecoder(r.Body).Decode(&in)
		b, _ := json.Marshal(in)
		gotBody = string(b)
		switch in["city"] {
		case "slow":
			select {
			case <-time.After(30 * time.Second):
			case <-r.Context().Done():
			}
		case "broken":
			http.Error(w, "upstream exploded", http.StatusBadGateway)
		case "wrong":
			_, _ = w.Write([]byte(`{"nope":1}`))
		default:
			_, _ = w.Write([]byte(`{"temp": 21.5}`))
		}
	}))
	defer srv.Close()

	src := secrets.Static{"tool-headers": {"X-Api-Key": "k-123"}}
	// Every call but the slow one must answer within the timeout, on a loaded machine too.
	tool, errs := Compile(httpTool(srv.URL, time.Second, "tool-headers"), Options{Secrets: src})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := call(t, tool, `{"city":"Oslo"}`)
	if got["temp"] != 21.5 || gotAuth != "k-123" || gotBody != `{"city":"Oslo"}` {
		t.Errorf("got %v, header %q, body %q", got, gotAuth, gotBody)
	}

	start := time.Now()
	_, err := tool.Call(context.Background(), json.RawMessage(`{"city":"slow"}`))
	if err == nil || !strings.Contains(err.Error(), "did not answer in time") {
		t.Errorf("want a timeout error, got %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("timeout took %v", d)
	}

	if _, err := tool.Call(context.Background(), json.RawMessage(`{"city":"broken"}`)); err == nil || !strings.Contains(err.Error(), "502") {
		t.Errorf("want the status in the error, got %v", err)
	}
	if _, err := tool.Call(context.Background(), json.RawMessage(`{"city":"wrong"}`)); err == nil || !strings.Contains(err.Error(), "outputSchema") {
		t.Errorf("want an output schema violation, got %v", err)
	}
	if _, err := tool.Call(context.Background(), json.RawMessage(`{"town":"x"}`)); err == nil {
		t.Error("want an input error")
	}
}

func TestServiceURL(t *testing.T) {
	tool := httpTool("", time.Second, "")
	tool.Spec.Execute.HTTP = &v1alpha1.HTTPExecute{Service: &v1alpha1.ServiceReference{Name: "wx", Port: 8080, Path: "/now"}}
	tool.Namespace = "tools"
	got, err := httpURL(tool, "")
	if err != nil || got != "http://wx.tools.svc.cluster.local:8080/now" {
		t.Errorf("got %q, %v", got, err)
	}
}
