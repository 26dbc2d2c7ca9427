package render

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/protocol/manifest"
	"github.com/agentry-dev/agentry/internal/protocol/manifest/decode"
)

// The runtime pods decode the rendered config without the CRDs' schemas (PrevalidatedEnv):
// for every rendered config that must give exactly what the CRD loader gives.
func TestRenderedConfigDecodesPrevalidatedAsWithTheCRDs(t *testing.T) {
	dir := t.TempDir()
	testutil.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(exposed), 0o600))
	var configs [][]byte
	for _, c := range []struct{ path, agent string }{{"../../config/samples", "chef"}, {"../../config/samples", "weather"}, {dir, "concierge"}} {
		config, err := ConfigYAML(load(t, c.path, c.agent))
		testutil.NoError(t, err)
		configs = append(configs, config)
	}
	full, err := manifest.NewLoader()
	testutil.NoError(t, err)
	ctx := context.Background()
	for _, config := range configs {
		want, got := &manifest.Set{}, &decode.Set{}
		testutil.NoError(t, full.Decode(ctx, ConfigKey, config, want))
		if err := decode.NewLoader(decode.Prevalidated{}).Decode(ctx, ConfigKey, config, got); err != nil {
			t.Fatalf("%v\n%s", err, config)
		}
		if !equality.Semantic.DeepEqual(want.Agents, got.Agents) || !equality.Semantic.DeepEqual(want.Tools, got.Tools) ||
			!equality.Semantic.DeepEqual(want.FrontendActions, got.FrontendActions) {
			t.Errorf("the rendered config decodes differently without the CRDs:\n%s", config)
		}
	}
}
