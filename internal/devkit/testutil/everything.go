package testutil

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// EverythingVersion is the reference MCP server the tests run, pinned by
// test/conformance/package-lock.json (installed by `npm ci` there, which make test runs).
const EverythingVersion = "2026.8.31"

// StartEverything starts @modelcontextprotocol/server-everything (the MCP project's reference
// server, written in TypeScript with the official SDK) on a loopback port, over "streamableHttp"
// or "sse", and returns the URL a client connects to (…/mcp or …/sse). It stops with the test.
func StartEverything(t *testing.T, transport string) string {
	t.Helper()
	script, err := everythingScript()
	if err != nil {
		t.Fatal(err)
	}
	// The server takes its port from PORT and listens on every address; clients here connect
	// to loopback only.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	ready := `listening on port (\d+)`
	path := "/mcp"
	if transport == "sse" {
		ready, path = `running on port (\d+)`, "/sse"
	}
	Start(t, "node", filepath.Dir(script), []string{"PORT=" + strconv.Itoa(port)}, ready, script, transport)
	return fmt.Sprintf("http://127.0.0.1:%d%s", port, path)
}

// everythingScript finds server-everything's entry point under the module's test/conformance.
func everythingScript() (string, error) {
	return nodeScript("test/conformance", "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

// nodeScript finds a script of an npm project of the module (dir, from the module's root) and
// says how to install it when it is missing.
func nodeScript(dir, script string) (string, error) {
	root, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			return "", fmt.Errorf("no go.mod above the test's directory")
		}
		root = parent
	}
	path := filepath.Join(root, filepath.FromSlash(dir), filepath.FromSlash(script))
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%s is not installed: run `npm ci` in %s (make test does): %w", script, dir, err)
	}
	return path, nil
}
