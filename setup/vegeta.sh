#!/usr/bin/env bash
# Prints the path of the pinned vegeta, the curve's open-model load generator where k6 cannot
# offer a step's rate on the load's CPU (Profile.curveGenerator), building it with `go install`
# into .tools/ the first time. A vegeta already on PATH at exactly the pinned version is used.
set -euo pipefail

version="v12.13.0"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.tools/vegeta-$version/bin"

if command -v vegeta >/dev/null 2>&1 && vegeta -version 2>/dev/null | grep -q "Version: $version"; then
  command -v vegeta
  exit 0
fi
if [ ! -x "$bin/vegeta" ]; then
  command -v go >/dev/null 2>&1 \
    || { echo "vegeta $version is not installed and Go is not on PATH to build it: install Go 1.24 or later, or put vegeta $version on PATH" >&2; exit 1; }
  echo "building vegeta $version with go install into .tools/ (a minute, once)" >&2
  mkdir -p "$bin"
  # Go's caches are k6's (setup/k6.sh): one module cache in .tools/, writable so `rm -rf .tools` works.
  GOBIN="$bin" GOMODCACHE="$root/.tools/go/mod" GOCACHE="$root/.tools/go/cache" GOFLAGS=-modcacherw \
    go install "github.com/tsenart/vegeta/v12@$version" >&2 \
    || { echo "go install github.com/tsenart/vegeta/v12@$version failed; check access to the Go module proxy and run again" >&2; exit 1; }
fi
echo "$bin/vegeta"
