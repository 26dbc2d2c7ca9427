#!/usr/bin/env bash
# Prepares a KUBEBUILDER_ASSETS folder (kube-apiserver + etcd) without downloading prebuilt
# binaries: kube-apiserver is built from the k8s.io/kubernetes Go module, etcd comes from
# Debian's etcd-server package. When the machine has no kubectl, one is built from the same
# module into the folder too. The result is cached outside the repository and reused.
# Prints the assets folder on stdout; everything else goes to stderr.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.37.1}"
CACHE_ROOT="${AGENTRY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentry}"
ASSETS="$CACHE_ROOT/envtest/k8s-$K8S_VERSION"
MODULE="$CACHE_ROOT/envtest/module-$K8S_VERSION"
log() { echo "setup-envtest: $*" >&2; }
if [[ $(id -u) -eq 0 ]]; then SUDO=""; else SUDO="sudo"; fi

mkdir -p "$ASSETS"

if [[ ! -x "$ASSETS/etcd" ]]; then
  if ! command -v etcd >/dev/null 2>&1 && [[ ! -x /usr/bin/etcd ]]; then
    log "installing Debian etcd-server"
    $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || true
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq etcd-server >&2
  fi
  ln -sf "$(command -v etcd || echo /usr/bin/etcd)" "$ASSETS/etcd"
fi

# prepare_module writes a throwaway module that requires k8s.io/kubernetes and replaces every
# staging module it replaces with a local path by its published v0.X version.
prepare_module() {
  [[ -f "$MODULE/go.sum" ]] && return 0
  rm -rf "$MODULE" && mkdir -p "$MODULE"
  (
    cd "$MODULE"
    go mod init agentry.dev/envtest-build >/dev/null 2>&1
    go mod edit -require "k8s.io/kubernetes@v$K8S_VERSION"
    info="$(go mod download -json "k8s.io/kubernetes@v$K8S_VERSION")"
    if grep -q '"Error"' <<<"$info"; then log "cannot download k8s.io/kubernetes@v$K8S_VERSION: $info"; exit 1; fi
    modfile="$(sed -n 's/.*"GoMod": "\(.*\)".*/\1/p' <<<"$info")"
    for mod in $(sed -n 's#^\s*\(k8s.io/[a-z0-9./-]*\) => ./staging/.*#\1#p' "$modfile"); do
      go mod edit -replace "$mod=$mod@v0.${K8S_VERSION#*.}"
    done
    cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
    GOFLAGS=-mod=mod go mod tidy >&2
  ) || { rm -rf "$MODULE"; return 1; }
}

build() { # build <package> <output>
  prepare_module
  log "building $1 v$K8S_VERSION from the Go module (several minutes the first time)"
  (cd "$MODULE" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$2.tmp" "$1" >&2)
  mv "$2.tmp" "$2"
}

[[ -x "$ASSETS/kube-apiserver" ]] || build k8s.io/kubernetes/cmd/kube-apiserver "$ASSETS/kube-apiserver"
if ! command -v kubectl >/dev/null 2>&1 && [[ ! -x "$ASSETS/kubectl" ]]; then
  build k8s.io/kubernetes/cmd/kubectl "$ASSETS/kubectl"
fi

echo "$ASSETS"
