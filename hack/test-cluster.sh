#!/usr/bin/env bash
# make test-cluster: the README's cluster quickstart on a real one-node cluster (test/cluster):
# kube-apiserver and etcd (setup-envtest.sh), kubelet, kube-controller-manager, kube-scheduler,
# kube-proxy, CoreDNS, containerd and runc (setup-cluster.sh), the images of make images. The
# cluster is started and removed by the test itself, on failure too. Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $(id -u) -ne 0 ]]; then
  echo "test-cluster: needs root (containerd, kubelet, iptables, network links); run it as root or skip it" >&2
  exit 1
fi
KUBEBUILDER_ASSETS="$(hack/setup-envtest.sh)"
AGENTRY_CLUSTER_NODE="$(hack/setup-cluster.sh)"
export KUBEBUILDER_ASSETS AGENTRY_CLUSTER_NODE
export AGENTRY_IMAGES="${AGENTRY_IMAGES:-$PWD/bin/images/agentry-images.tar}"
[[ -f "$AGENTRY_IMAGES" ]] || { echo "test-cluster: no $AGENTRY_IMAGES: run make images first" >&2; exit 1; }
export PATH="$PWD/bin:$PATH"   # helm (make helm)
command -v kubectl >/dev/null 2>&1 || export PATH="$KUBEBUILDER_ASSETS:$PATH"
AGENTRY_CLUSTER_TEST=1 go test -count=1 -timeout 25m -v ./test/cluster/ 2>&1 | grep -v '^=== \(RUN\|PAUSE\|CONT\)'
