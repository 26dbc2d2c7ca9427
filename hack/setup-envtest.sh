#!/usr/bin/env bash
# Prepares a KUBEBUILDER_ASSETS folder (kube-apiserver + etcd) without downloading prebuilt
# binaries: kube-apiserver is built from the k8s.io/kubernetes Go module, etcd comes from
# Debian's etcd-server package. The result is cached outside the repository and reused.
# Prints the assets folder on stdout; everything else goes to stderr.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.37.1}"
CACHE_ROOT="${AGENTRY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentry}"
ASSETS="$CACHE_ROOT/envtest/k8s-$K8S_VERSION"
log() { echo "setup-envtest: $*" >&2; }

mkdir -p "$ASSETS"

if [[ ! -x "$ASSETS/etcd" ]]; then
  if ! command -v etcd >/dev/null 2>&1 && [[ ! -x /usr/bin/etcd ]]; then
    log "installing Debian etcd-server"
    if [[ $(id -u) -eq 0 ]]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq >&2 || true
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq etcd-server >&2
  fi
  ln -sf "$(command -v etcd || echo /usr/bin/etcd)" "$ASSETS/etcd"
fi

if [[ ! -x "$ASSETS/kube-apiserver" ]]; then
  log "building kube-apiserver v$K8S_VERSION from the Go module (takes several minutes the first time)"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  minor="${K8S_VERSION#*.}"                 # 37.2
  staging_version="v0.${minor}"            # v0.37.2
  (
    cd "$work"
    go mod init agentry.dev/envtest-build >/dev/null 2>&1
    go mod edit -require "k8s.io/kubernetes@v$K8S_VERSION"
    info="$(go mod download -json "k8s.io/kubernetes@v$K8S_VERSION")"
    if grep -q '"Error"' <<<"$info"; then log "cannot download k8s.io/kubernetes@v$K8S_VERSION: $info"; exit 1; fi
    modfile="$(sed -n 's/.*"GoMod": "\(.*\)".*/\1/p' <<<"$info")"
    # Every staging module that k8s.io/kubernetes replaces with a local path gets its published version.
    for mod in $(sed -n 's#^\s*\(k8s.io/[a-z0-9./-]*\) => ./staging/.*#\1#p' "$modfile"); do
      go mod edit -replace "$mod=$mod@$staging_version"
    done
    cat > tools.go <<'GO'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GO
    GOFLAGS=-mod=mod go mod tidy >&2
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$ASSETS/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver >&2
  )
  mv "$ASSETS/kube-apiserver.tmp" "$ASSETS/kube-apiserver"
fi

echo "$ASSETS"
