#!/usr/bin/env bash
# Runs every native Go fuzz target in the module for the given time each.
set -euo pipefail
fuzztime=${1:-20s}
cd "$(dirname "$0")/.."
found=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -hoE '^func (Fuzz[A-Za-z0-9_]+)\(' "$dir"/*_test.go 2>/dev/null | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/' | sort -u); do
    found=1
    echo "fuzz $pkg $target ($fuzztime)"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg"
  done
done
[ "$found" = 1 ] || echo "no fuzz targets"
