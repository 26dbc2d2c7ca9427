package manifest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/protocol/manifest/decode"
)

// The runtime pods decode their config with decode.Prevalidated: the objects the API server
// validated and defaulted, written out by the operator. Whatever the CRD loader accepts,
// written out the same way, must decode to the very same objects without the schemas.
func TestPrevalidatedDecodesWhatTheCRDLoaderAccepted(t *testing.T) {
	full, err := NewLoader()
	testutil.NoError(t, err)
	var inputs [][]byte
	for _, pattern := range []string{"../../../config/samples/*.yaml", "../../../test/conformance/manifests/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		if len(files) == 0 {
			t.Fatalf("no manifests match %s", pattern)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			testutil.NoError(t, err)
			inputs = append(inputs, b)
		}
	}
	inputs = append(inputs, []byte(validTool), []byte(`apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: full, namespace: prod}
spec:
  agentId: full-v1
  model: {name: m, baseURL: "https://llm.example/v1", temperature: "0.2", maxRetries: 0}
  memory: {url: "postgres://agentry@db:5432/agentry", lastMessages: 5}
  endpoint:
    rateLimit: {requestsPerMinute: 0}
    corsOrigins: ["https://chat.example.com"]
  runtime: {replicas: 2, env: [{name: X, value: "1"}]}
`))
	ctx := context.Background()
	for i, in := range inputs {
		set := &Set{}
		if err := full.Decode(ctx, "in.yaml", in, set); err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
		var out [][]byte
		for _, objs := range [][]any{anySlice(set.Agents), anySlice(set.Tools), anySlice(set.FrontendActions)} {
			for _, o := range objs {
				b, err := yaml.Marshal(o)
				testutil.NoError(t, err)
				out = append(out, b)
			}
		}
		again := &Set{}
		if err := decode.NewLoader(decode.Prevalidated{}).Decode(ctx, "out.yaml", bytes.Join(out, []byte("---\n")), again); err != nil {
			t.Fatalf("input %d written out does not decode: %v\n%s", i, err, bytes.Join(out, []byte("---\n")))
		}
		if !equality.Semantic.DeepEqual(set.Agents, again.Agents) || !equality.Semantic.DeepEqual(set.Tools, again.Tools) ||
			!equality.Semantic.DeepEqual(set.FrontendActions, again.FrontendActions) {
			t.Fatalf("input %d decodes differently:\n%s", i, bytes.Join(out, []byte("---\n")))
		}
	}
}

func anySlice[T any](s []T) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
