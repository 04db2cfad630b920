#!/usr/bin/env bash
# Prints the path of a Go program its caller pins (setup/k6.sh, setup/vegeta.sh), building it with
# `go install` into .tools/<name>-<version>/bin the first time. One already on PATH that reports
# exactly the pinned version is used as it is.
#
#   setup/go-tool.sh <name> <module> <version> <version flag> <what its version output holds> <how long a build takes>
set -euo pipefail

name="$1" module="$2" version="$3" version_flag="$4" says="$5" takes="$6"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.tools/$name-$version/bin"

if command -v "$name" >/dev/null 2>&1 && "$name" "$version_flag" 2>/dev/null | grep -qF -- "$says"; then
  command -v "$name"
  exit 0
fi
if [ ! -x "$bin/$name" ]; then
  command -v go >/dev/null 2>&1 \
    || { echo "$name $version is not installed and Go is not on PATH to build it: install Go 1.24 or later, or put $name $version on PATH" >&2; exit 1; }
  echo "building $name $version with go install into .tools/ ($takes, once)" >&2
  mkdir -p "$bin"
  # Go's module and build caches stay in .tools/ too, one for every tool, writable so `rm -rf .tools` works.
  GOBIN="$bin" GOMODCACHE="$root/.tools/go/mod" GOCACHE="$root/.tools/go/cache" GOFLAGS=-modcacherw \
    go install "$module@$version" >&2 \
    || { echo "go install $module@$version failed; check access to the Go module proxy and run again" >&2; exit 1; }
fi
echo "$bin/$name"
