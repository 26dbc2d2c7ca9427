package testutil

import (
	"path/filepath"
	"testing"
)

// StartRemoteAgent runs test/conformance/remote-agent.mjs: an A2A agent served by the official
// JavaScript SDK (@a2a-js/sdk), on loopback. It returns the process and its base URL (ending in
// a slash; the card is at .well-known/agent-card.json under it, POST /control/card changes it).
func StartRemoteAgent(t *testing.T) (*Proc, string) {
	t.Helper()
	script, err := nodeScript("test/conformance", "remote-agent.mjs")
	if err == nil {
		for _, pkg := range []string{"node_modules/@a2a-js/sdk/package.json", "node_modules/express/package.json"} {
			if _, err = nodeScript("test/conformance", pkg); err != nil {
				break
			}
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return Start(t, "node", filepath.Dir(script), nil, `remote agent listening on (http://127\.0\.0\.1:\d+/)`, script)
}
