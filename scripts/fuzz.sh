#!/usr/bin/env bash
# Runs every native Go fuzz target in the module for the given time (or,
# as "10000x", count of inputs) each
# (the seed corpora already run as unit tests in every `go test`).
#
# Each package with fuzz targets is compiled once, instrumented for fuzzing
# (go test -c -fuzz), and its binary runs each target in turn from the
# package directory: a failing input lands in that package's
# testdata/fuzz/<target>/ and the corpus of interesting inputs in the same
# cache go test -fuzz uses, exactly as `go test -fuzz` would, without one
# compile and link per target.
set -euo pipefail
fuzztime=${1:-20s}
cd "$(dirname "$0")/.."
bindir=$(mktemp -d)
trap 'rm -rf "$bindir"' EXIT
cache=$(go env GOCACHE)/fuzz
# FUZZ_FRESH_CACHE=1: the corpus of interesting inputs starts empty and is
# thrown away (make test's short pass: its cost does not grow with every
# run's finds; a failing input still lands in testdata/fuzz/).
if [ "${FUZZ_FRESH_CACHE:-}" = 1 ]; then cache=$bindir/cache; fi
found=0
while read -r pkg dir; do
  targets=$(grep -hoE '^func (Fuzz[A-Za-z0-9_]+)\(' "$dir"/*_test.go 2>/dev/null | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/' | sort -u || true)
  [ -n "$targets" ] || continue
  found=1
  bin="$bindir/$(echo "$pkg" | tr / _).test"
  go test -c -fuzz=. -o "$bin" "$pkg"
  for target in $targets; do
    echo "fuzz $pkg $target ($fuzztime)"
    (cd "$dir" && "$bin" -test.run='^$' -test.fuzz="^${target}\$" -test.fuzztime="$fuzztime" -test.timeout=30m -test.fuzzcachedir="$cache/$pkg")
  done
done < <(go list -f '{{.ImportPath}} {{.Dir}}' ./...)
[ "$found" = 1 ] || echo "no fuzz targets"
