#!/usr/bin/env bash
# make bench: benchmarks that print numbers. Targets are reported, not asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "=== runtime: generate and AG-UI against the floor"
go run ./test/bench/runtime "$@"
