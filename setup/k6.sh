#!/usr/bin/env bash
# Prints the path of the pinned k6, building it with `go install` into .tools/ the first
# time. A k6 already on PATH at exactly the pinned version is used as it is.
set -euo pipefail

version="v1.8.1"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.tools/k6-$version/bin"

if command -v k6 >/dev/null 2>&1 && k6 version 2>/dev/null | grep -q "k6 $version "; then
  command -v k6
  exit 0
fi
if [ ! -x "$bin/k6" ]; then
  command -v go >/dev/null 2>&1 \
    || { echo "k6 $version is not installed and Go is not on PATH to build it: install Go 1.24 or later, or put k6 $version on PATH" >&2; exit 1; }
  echo "building k6 $version with go install into .tools/ (a few minutes, once)" >&2
  mkdir -p "$bin"
  # Go's module and build caches stay in .tools/ too, writable so `rm -rf .tools` works.
  GOBIN="$bin" GOMODCACHE="$root/.tools/go/mod" GOCACHE="$root/.tools/go/cache" GOFLAGS=-modcacherw \
    go install "go.k6.io/k6@$version" >&2 \
    || { echo "go install go.k6.io/k6@$version failed; check access to the Go module proxy and run again" >&2; exit 1; }
fi
echo "$bin/k6"
