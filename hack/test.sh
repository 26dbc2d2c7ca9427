#!/usr/bin/env bash
# Everything `make test` runs, on a fresh machine too: installs what the tests need (Go tools,
# envtest binaries, npm packages, ...), checks generated code is current, then runs every suite.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n=== %s\n' "$*"; }

step "tools"
make --no-print-directory controller-gen helm >/dev/null
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "installing Node.js and npm from Debian"
  if [[ $(id -u) -eq 0 ]]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq nodejs npm
fi
# A real kube-apiserver and etcd for the operator's tests (built once, cached outside the repo).
step "envtest binaries (kube-apiserver from the Go module, etcd from Debian)"
KUBEBUILDER_ASSETS="$(hack/setup-envtest.sh)"
export KUBEBUILDER_ASSETS
echo "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS"
# kubectl: the machine's, else the one built next to kube-apiserver.
command -v kubectl >/dev/null 2>&1 || export PATH="$KUBEBUILDER_ASSETS:$PATH"
kubectl version --client 2>/dev/null | sed -n 1p || true
# PostgreSQL for the memory tests: the tests start their own servers on loopback ports with
# their own data directories, and stop them.
if ! compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null; then
  echo "installing PostgreSQL from Debian"
  if [[ $(id -u) -eq 0 ]]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq postgresql
fi
# The AG-UI conformance suite's client, pinned by package-lock.json.
(cd test/conformance && npm ci --no-audit --no-fund --loglevel=error)
# The sign-in tests' OpenID provider (oidc-provider, OpenID Certified), pinned likewise.
(cd test/idp && npm ci --no-audit --no-fund --loglevel=error)
# Chromium for the UI kit's browser tests (driven by playwright-core, which brings no browser).
# sqlite3: a message list test backdates messages in its chat database.
if [[ ! -x /usr/bin/chromium ]] || ! command -v sqlite3 >/dev/null 2>&1; then
  echo "installing Chromium, fonts and sqlite3 from Debian"
  if [[ $(id -u) -eq 0 ]]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium fonts-liberation fonts-noto-color-emoji sqlite3
fi
# The chat SDK's and UI kit's packages, pinned by ui/package-lock.json. The lock lacks some
# other platforms' optional packages (rollup's; the registry it was made from had none), which
# npm ci refuses as out of sync: npm install then installs the same locked versions.
(cd ui && { npm ci --no-audit --no-fund --loglevel=silent 2>/dev/null || {
  echo "npm ci refused ui/package-lock.json: npm install"
  npm install --no-audit --no-fund --loglevel=error
}; })

step "generated code is current (make generate manifests && git diff --exit-code)"
make --no-print-directory verify-generated

step "gofmt and go vet"
unformatted="$(gofmt -l $(git ls-files '*.go'))"
if [[ -n "$unformatted" ]]; then echo "not gofmt'ed:"; echo "$unformatted"; exit 1; fi
go vet ./...
# The runtime pods' build (make build-runtime's tags) leaves out files ./... compiles: build it
# too, and check that the linker's dead-code elimination is on for it: one reachable
# reflect.Value.Method or MethodByName with a name known only at run time (text/template's, say,
# through golang.org/x/net/trace) keeps every exported method of every type, +9 MB.
runtime_tags="$(make --no-print-directory -s print-runtime-tags)"
deps="$(mktemp)"
CGO_ENABLED=0 go build -tags "$runtime_tags" -ldflags=-dumpdep -o /dev/null . >"$deps" 2>&1 || { tail -20 "$deps"; rm -f "$deps"; exit 1; }
if grep -qF '<ReflectMethod>' "$deps"; then
  echo "the runtime build (-tags $runtime_tags) reaches a reflect method call, so the linker keeps every method:"
  grep -F '<ReflectMethod>' "$deps" | head -5
  rm -f "$deps"
  exit 1
fi
rm -f "$deps"

step "go test"
go test -count=1 ./...

# The README's cluster quickstart on a real one-node cluster: the images (make images: make
# build, then the image builder), kubelet, containerd and runc, CoreDNS (test/cluster). It
# installs and builds what it needs (hack/setup-cluster.sh) and removes the cluster it started.
step "cluster test (make test-cluster: images, a real kubelet, the chart and the samples)"
make --no-print-directory test-cluster

# Last, so the output ends with the npm test summary line `N passed, N failed`: the SDK's
# integration tests and the browser tests start real agentry processes from bin/agentry.
# make build (run by make test-cluster's images above) ran make web first, so bin/agentry embeds
# the web app; go vet and go test above need no app (ui/apps/web/embed holds only its README on
# a clean clone).
step "ui tests (typecheck, build, vitest: chat-sdk, ui-kit, browser)"
(cd ui && AGENTRY_BIN="$PWD/../bin/agentry" npm test)
