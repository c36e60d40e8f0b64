#!/usr/bin/env bash
# Builds the real kube-apiserver, etcd and kubectl the integration tests run, from the
# pinned module in test/kube, into a cache directory outside the work tree.
# A cold build of kube-apiserver takes about 15 minutes on 2 cores; later runs
# only check that the binaries for this pin already exist.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
k8s_version=$(awk '$1=="k8s.io/kubernetes"{print $2; exit}' "$here/test/kube/go.mod")
etcd_version=$(awk '$1=="go.etcd.io/etcd/server/v3"{print $2; exit}' "$here/test/kube/go.mod")
out=${KUBE_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/glance-hooks/kube-$k8s_version-etcd-$etcd_version}
mkdir -p "$out"
minor=$(echo "$k8s_version" | cut -d. -f2)
pkg=k8s.io/component-base/version
ldflags="-s -w -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor \
 -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
cd "$here/test/kube"
if [ ! -x "$out/etcd" ]; then
  echo "building etcd $etcd_version into $out" >&2
  go build -trimpath -ldflags "-s -w" -o "$out/etcd.tmp" ./cmd/etcd
  mv "$out/etcd.tmp" "$out/etcd"
fi
if [ ! -x "$out/kube-apiserver" ]; then
  echo "building kube-apiserver $k8s_version into $out (a cold build takes minutes)" >&2
  go build -trimpath -ldflags "$ldflags" -o "$out/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
  mv "$out/kube-apiserver.tmp" "$out/kube-apiserver"
fi
if [ ! -x "$out/kubectl" ]; then
  echo "building kubectl $k8s_version into $out" >&2
  go build -trimpath -ldflags "$ldflags" -o "$out/kubectl.tmp" k8s.io/kubernetes/cmd/kubectl
  mv "$out/kubectl.tmp" "$out/kubectl"
fi
echo "$out"
