#!/usr/bin/env bash
# Builds the helm CLI at a pinned version with `go install` into a cache
# directory outside the work tree and prints the binary's path on stdout.
# Idempotent: a binary already built for this pin is reused.
# A cold build takes a few minutes on 2 cores (module download included).
#
# Env: HELM_VERSION overrides the pin; HELM_BIN_DIR the output dir.
set -euo pipefail
version=${HELM_VERSION:-v3.19.0}
# The Kubernetes version helm assumes for `helm template` and `helm lint`
# without a cluster; helm's own release builds set it the same way (v3.19 is
# built against Kubernetes 1.34 client libraries).
kube_minor=${HELM_KUBE_MINOR:-34}
bindir=${HELM_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/glance-hooks/bin}
bin="$bindir/helm-$version"
if [ ! -x "$bin" ]; then
  echo "building helm $version into $bindir" >&2
  mkdir -p "$bindir"
  tmp=$(mktemp -d "$bindir/.gobin.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # Run outside any module so the project's go.mod plays no part. Without
  # these ldflags helm reports a dev version and assumes Kubernetes 1.20.
  ld="-s -w -X helm.sh/helm/v3/internal/version.version=$version"
  for pkg in helm.sh/helm/v3/pkg/chartutil helm.sh/helm/v3/pkg/lint/rules; do
    ld="$ld -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$kube_minor"
  done
  (cd "$tmp" && GOBIN="$tmp" GOFLAGS="${GOFLAGS:-} -trimpath" CGO_ENABLED=0 \
    go install -ldflags "$ld" "helm.sh/helm/v3/cmd/helm@$version")
  mv "$tmp/helm" "$bin"
fi
# A stable name too, for callers that don't care about the version.
ln -sfn "helm-$version" "$bindir/helm"
echo "$bin"
