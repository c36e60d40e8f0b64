#!/usr/bin/env bash
# Renders the chart's CompositeControllers with the chart's defaults into plain
# YAML, one file per controller: the files in metacontroller/ are this output.
# The chart's templates are the single source; a test re-runs this script and
# fails when metacontroller/ differs.
#
# usage: render-metacontroller.sh HELM OUTDIR
set -euo pipefail
helm=$1
out=$2
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
for tpl in "$here"/charts/glance-hooks/templates/metacontroller/*.yaml; do
  name=$(basename "$tpl")
  {
    echo "# Generated from charts/glance-hooks (templates/metacontroller/$name) by"
    echo "# \`make metacontroller\`: edit the template, not this file. These defaults"
    echo "# point at the chart's default Service, glance-hooks in namespace glance-hooks."
    "$helm" template glance-hooks "$here/charts/glance-hooks" --namespace glance-hooks \
      --show-only "templates/metacontroller/$name" | grep -v '^# Source: '
  } >"$out/$name.tmp"
  mv "$out/$name.tmp" "$out/$name"
done
