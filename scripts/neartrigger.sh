#!/usr/bin/env bash
# Side by side on the turns near the trigger: runs
# BenchmarkContinuedTurnNearTrigger (-benchtime 3x) for each clawdcode
# binary given, in turn, ROUNDS times, and prints each binary's medians:
# CPU of an ordinary turn, of the slowest turn before the compacting one
# and of the compacting one (and their ratios to the ordinary), and the
# three peak RSS. Build the binaries as the bench does (-trimpath -ldflags
# '-s -w', CGO_ENABLED=0 unless you mean to measure a dynamic build).
#
#   scripts/neartrigger.sh 12 /tmp/base-clawdcode /tmp/head-clawdcode
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 ROUNDS BINARY..." >&2; exit 2; }
rounds=$1; shift
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/perf.test" ./internal/perf/
metric() { grep -o "[0-9.]* $1" <<<"$2" | cut -d' ' -f1; }
for _ in $(seq "$rounds"); do
  for b in "$@"; do
    out=$(cd internal/perf && CLAWDCODE_TEST_BINARY=$b "$dir/perf.test" -test.run '^$' -test.bench ContinuedTurnNearTrigger -test.benchtime 3x 2>&1)
    echo "$b $(metric ordinary-cpu-ms "$out") $(metric near-max-cpu-ms "$out") $(metric compacting-cpu-ms "$out") $(metric ordinary-peak-MiB "$out") $(metric near-peak-MiB "$out") $(metric compacting-peak-MiB "$out")"
  done
done >"$dir/runs"
python3 - "$dir/runs" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    runs[f[0]].append([float(x) for x in f[1:]])
print("%-32s %7s %7s %7s %6s %6s | %7s %7s %7s" % ("binary", "ord ms", "near ms", "comp ms", "near×", "comp×", "ord MiB", "near", "comp"))
for b, rows in runs.items():
    m = [statistics.median(c) for c in zip(*rows)]
    print("%-32s %7.2f %7.2f %7.2f %6.2f %6.2f | %7.2f %7.2f %7.2f" % (b, m[0], m[1], m[2], m[1] / m[0], m[2] / m[0], m[3], m[4], m[5]))
PY
