#!/usr/bin/env bash
# Prepares what the one-node cluster of `make test-cluster` runs, without downloading prebuilt
# binaries or images: containerd, runc, the CNI plugins, iptables and conntrack from Debian;
# kubelet, kube-controller-manager, kube-scheduler and kube-proxy built from the
# k8s.io/kubernetes Go module (beside kube-apiserver, see setup-envtest.sh); CoreDNS built from
# its Go module. Versions are pinned; binaries are cached outside the repository and reused.
# Prints the folder holding the node binaries on stdout; everything else goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

K8S_VERSION="${K8S_VERSION:-1.37.1}"
COREDNS_VERSION="${COREDNS_VERSION:-1.14.7}"
CACHE_ROOT="${AGENTRY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentry}"
NODE="$CACHE_ROOT/cluster/k8s-$K8S_VERSION"
MODULE="$CACHE_ROOT/envtest/module-$K8S_VERSION"
log() { echo "setup-cluster: $*" >&2; }
if [[ $(id -u) -eq 0 ]]; then SUDO=""; else SUDO="sudo"; fi

# apt waits for another install's dpkg lock instead of failing (a fresh machine may be running
# one as it boots).
apt_install() {
  local missing=()
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p"); done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  log "installing ${missing[*]} from Debian"
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || true
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >&2
}
apt_install containerd runc containernetworking-plugins iptables conntrack iproute2 ca-certificates

# kube-apiserver (and the module it is built from) first.
hack/setup-envtest.sh >/dev/null
mkdir -p "$NODE"

# The module setup-envtest.sh prepared lists kube-apiserver and kubectl; the node's components
# need their own dependencies in its go.sum.
if ! grep -q 'cmd/kubelet' "$MODULE/tools.go" 2>/dev/null; then
  log "adding the node components to the Kubernetes build module"
  cat > "$MODULE/tools.go" <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
GO
  (cd "$MODULE" && GOFLAGS=-mod=mod go mod tidy >&2)
fi

# Built binaries would report v0.0.0-master, which kubectl and helm cannot parse.
minor="${K8S_VERSION#*.}"; minor="${minor%%.*}"
VERSION_FLAGS="-X k8s.io/component-base/version.gitVersion=v$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
for cmd in kubelet kube-controller-manager kube-scheduler kube-proxy; do
  [[ -x "$NODE/$cmd" ]] && continue
  log "building $cmd v$K8S_VERSION from the Go module (minutes the first time)"
  (cd "$MODULE" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $VERSION_FLAGS" -o "$NODE/$cmd.tmp" "k8s.io/kubernetes/cmd/$cmd" >&2)
  mv "$NODE/$cmd.tmp" "$NODE/$cmd"
done

# CoreDNS, from a throwaway module that requires it.
if [[ ! -x "$NODE/coredns" ]]; then
  dns="$CACHE_ROOT/cluster/coredns-module-$COREDNS_VERSION"
  if [[ ! -f "$dns/go.sum" ]]; then
    rm -rf "$dns" && mkdir -p "$dns"
    (cd "$dns" && go mod init agentry.dev/coredns-build >/dev/null 2>&1 && GOFLAGS=-mod=mod go get "github.com/coredns/coredns@v$COREDNS_VERSION" >&2) || { rm -rf "$dns"; exit 1; }
  fi
  log "building CoreDNS v$COREDNS_VERSION from the Go module (minutes the first time)"
  (cd "$dns" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$NODE/coredns.tmp" github.com/coredns/coredns >&2)
  mv "$NODE/coredns.tmp" "$NODE/coredns"
fi

echo "$NODE"
