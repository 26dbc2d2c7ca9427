package cmd

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/agentry-dev/agentry/controllers/render"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// The operator's defaults for the runtime pods are the chart's and render's defaults, and bad
// quantities stop the operator at start instead of reaching every Deployment.
func TestRuntimeResourcesFlags(t *testing.T) {
	cmd := newOperatorCommand(&globalFlags{})
	get := func(name string) string { return cmd.Flags().Lookup(name).DefValue }
	r, err := runtimeResources(get("runtime-cpu-request"), get("runtime-memory-request"), get("runtime-memory-limit"))
	testutil.NoError(t, err)
	want := render.DefaultResources()
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if got, w := r.Requests[name], want.Requests[name]; got.Cmp(w) != 0 {
			t.Errorf("request %s: %s, want %s", name, got.String(), w.String())
		}
	}
	if got, w := r.Limits[corev1.ResourceMemory], want.Limits[corev1.ResourceMemory]; got.Cmp(w) != 0 || len(r.Limits) != 1 {
		t.Errorf("limits %v, want %v", r.Limits, want.Limits)
	}

	if r, err := runtimeResources("", "32Mi", ""); err != nil || len(r.Requests) != 1 || len(r.Limits) != 0 {
		t.Errorf("empty values set nothing: %v %v", r, err)
	}
	for _, tc := range []struct{ cpu, req, lim, err string }{
		{"fifty", "48Mi", "192Mi", "--runtime-cpu-request"},
		{"50m", "-1Mi", "192Mi", "--runtime-memory-request"},
		{"50m", "48Mi", "0", "--runtime-memory-limit"},
		{"50m", "256Mi", "192Mi", "exceeds"},
	} {
		if _, err := runtimeResources(tc.cpu, tc.req, tc.lim); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v: error %v, want %q", tc, err, tc.err)
		}
	}
}

func TestDefaultImageIsTheRuntimeImage(t *testing.T) {
	if got := DefaultImage(); got != "ghcr.io/agentry-dev/agentry-runtime:latest" {
		t.Errorf("DefaultImage() = %q", got)
	}
}
