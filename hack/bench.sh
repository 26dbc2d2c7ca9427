#!/usr/bin/env bash
# make bench: benchmarks that print numbers. Targets are reported, not asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "=== runtime: generate and AG-UI against the floor"
go run ./test/bench/runtime "$@"
echo
echo "=== operator: 1,000 Agents with 2 Tools each on envtest"
KUBEBUILDER_ASSETS="${KUBEBUILDER_ASSETS:-$(hack/setup-envtest.sh)}" go run ./test/bench/operator
echo
echo "=== operator: memory with 2,000 unrelated 50 KiB Secrets in the cluster"
KUBEBUILDER_ASSETS="${KUBEBUILDER_ASSETS:-$(hack/setup-envtest.sh)}" go run ./test/bench/operator/secrets
echo
echo "=== memory: what recall + persist add to generate, per backend"
go test -run '^$' -bench . ./test/bench/memory | sed -n '/^Memory benchmark/,/^goos:/p' | sed '$d'
echo
echo "=== chat: sockets, fan-out, send latency, reconnect storm"
go run ./test/bench/chat
echo
echo "=== bridge: agent runs through the chat service against calling the agent directly"
go run ./test/bench/bridge
