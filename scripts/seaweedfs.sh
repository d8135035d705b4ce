#!/usr/bin/env bash
# Builds the SeaweedFS server (weed) the sync tests run against, at the
# version tools/seaweedfs/go.mod pins, through the Go module proxy, into a
# cache directory kept between runs (CI included: it runs on the same
# machine), and prints the binary's path. A binary already there is
# reused: the build takes minutes.
set -euo pipefail
cd "$(dirname "$0")/../tools/seaweedfs"
version=$(go list -m -f '{{.Version}}' github.com/seaweedfs/seaweedfs)
cache="${CLAWDCODE_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/clawdcode-tools}"
out="$cache/seaweedfs-$version/weed"
if [ ! -x "$out" ]; then
  mkdir -p "$(dirname "$out")"
  echo "seaweedfs: building weed $version (once; cached in $(dirname "$out"))" >&2
  start=$(date +%s)
  CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$out.tmp" github.com/seaweedfs/seaweedfs/weed
  mv "$out.tmp" "$out"
  echo "seaweedfs: built in $(( $(date +%s) - start )) s, $(du -h "$out" | cut -f1)" >&2
fi
echo "$out"
