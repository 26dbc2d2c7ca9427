#!/usr/bin/env bash
# make bench: benchmarks that print numbers. Targets are reported, not asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
# The runtime before openai-go (issue 20 replaced its hand-written Chat Completions client):
# checked out in a worktree, its binaries built and measured beside this one's, in the same runs.
BEFORE_OPENAI_GO=472e191bb362cc3e68280964c5435aa86f5eff8f
before_dir="$(mktemp -d)"
before_src=""
before_bin=""
cleanup_before() {
  git worktree remove --force "$before_dir/src" 2>/dev/null || true
  rm -rf "$before_dir"
}
trap cleanup_before EXIT
if git worktree add -q --detach "$before_dir/src" "$BEFORE_OPENAI_GO" 2>/dev/null; then
  before_src="$before_dir/src"
  (cd "$before_src" && CGO_ENABLED=0 go build -o "$before_dir/agentry" .) && before_bin="$before_dir/agentry"
else
  echo "(the commit before openai-go, $BEFORE_OPENAI_GO, is not in this clone: only this version is measured)"
fi
echo "=== make dev: start time until the web app can be opened (warm, and after a change under ui/)"
go run ./test/bench/devstart
echo
echo "=== runtime footprint: one agent pod's binary, memory and start time, beside the runtime before openai-go"
go run ./test/bench/footprint ${before_src:+-before "$before_src"}
echo
echo "=== runtime: generate and AG-UI against the floor, beside the runtime before openai-go"
go run ./test/bench/runtime ${before_bin:+-before "$before_bin"} "$@"
cleanup_before
echo
echo "=== MCP and A2A: what an MCP server's tool call, and asking another agent over A2A, add to a run, against a CEL tool"
go run ./test/bench/mcp
echo
echo "=== operator: 1,000 Agents with 2 Tools each on envtest"
KUBEBUILDER_ASSETS="${KUBEBUILDER_ASSETS:-$(hack/setup-envtest.sh)}" go run ./test/bench/operator
echo
echo "=== operator: memory with 2,000 unrelated 50 KiB Secrets in the cluster"
KUBEBUILDER_ASSETS="${KUBEBUILDER_ASSETS:-$(hack/setup-envtest.sh)}" go run ./test/bench/operator/secrets
echo
echo "=== cluster: a real one-node cluster (kubelet, containerd, runc): install, samples, pods (needs root)"
if [[ $(id -u) -eq 0 ]]; then
  make --no-print-directory images helm >/dev/null
  KUBEBUILDER_ASSETS="${KUBEBUILDER_ASSETS:-$(hack/setup-envtest.sh)}" AGENTRY_CLUSTER_NODE="$(hack/setup-cluster.sh)" \
    AGENTRY_IMAGES="$PWD/bin/images/agentry-images.tar" PATH="$PWD/bin:$PATH" go run ./test/bench/cluster 2>/dev/null
else
  echo "skipped: not root"
fi
echo
echo "=== cluster: helm upgrade rolls the chat (2 replicas on PostgreSQL), the operator and an agent while 20 people chat (the real-cluster test's walk)"
if [[ $(id -u) -eq 0 ]]; then
  hack/test-cluster.sh 2>&1 | sed -n 's/.*rolling-upgrade //p'
else
  echo "skipped: not root"
fi
echo
echo "=== memory: what recall + persist add to generate, per backend"
go test -run '^$' -bench . ./test/bench/memory | sed -n '/^Memory benchmark/,/^goos:/p' | sed '$d'
echo
echo "=== chat: sockets, fan-out, send latency, reconnect storm"
go run ./test/bench/chat
echo
echo "=== bridge: agent runs through the chat service against calling the agent directly"
go run ./test/bench/bridge
echo
echo "=== ui: SDK + UI kit bundle size, first render of 30 messages / 30 groups in chromium, frames while an agent streams"
[[ -d ui/node_modules ]] || (cd ui && npm ci --no-audit --no-fund --loglevel=error)
# The agentry binary the bench starts (agentry chat), unless AGENTRY_BIN names one, and the
# packages, built side by side.
ui_go=""
if [[ -z "${AGENTRY_BIN:-}" ]]; then
  ui_bench="$(mktemp -d)"
  trap 'rm -rf "$ui_bench"; cleanup_before' EXIT
  export AGENTRY_BIN="$ui_bench/agentry"
  CGO_ENABLED=0 nice -n 10 go build -ldflags "-s -w" -o "$AGENTRY_BIN" . &
  ui_go=$!
fi
(cd ui && nice -n 10 npm run build --silent >/dev/null) || { [[ -z "$ui_go" ]] || kill "$ui_go"; exit 1; }
[[ -z "$ui_go" ]] || wait "$ui_go"
(cd ui && AGENTRY_BIN="$(realpath "$AGENTRY_BIN")" npm run bench --silent)
