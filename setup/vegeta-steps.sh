#!/usr/bin/env bash
# Prints the path of the lab's vegeta-steps (loadtests/vegeta-steps): the curve's open-model load generator, vegeta's attacker
# at the version its go.mod pins, one pass's steps on one connection pool (lab.bench.load.VegetaCurve). Builds it with `go build`
# into .tools/ the first time, and again whenever its source changes: the folder's name holds a hash of main.go, go.mod and go.sum.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
src="$root/loadtests/vegeta-steps"
vegeta_version=$(awk '$1 == "require" && $2 == "github.com/tsenart/vegeta/v12" { print $3 }' "$src/go.mod")
source_hash=$(cat "$src/main.go" "$src/go.mod" "$src/go.sum" | sha256sum | cut -c1-12)
bin="$root/.tools/vegeta-steps-$vegeta_version-$source_hash/bin"

if [ ! -x "$bin/vegeta-steps" ]; then
  command -v go >/dev/null 2>&1 \
    || { echo "vegeta-steps is not built and Go is not on PATH to build it: install Go 1.22 or later" >&2; exit 1; }
  echo "building vegeta-steps on vegeta $vegeta_version with go build into .tools/ (a minute, once)" >&2
  mkdir -p "$bin"
  # Go's module and build caches stay in .tools/, as setup/go-tool.sh keeps them; go.sum holds every module to its hash.
  (cd "$src" && GOMODCACHE="$root/.tools/go/mod" GOCACHE="$root/.tools/go/cache" GOFLAGS="-modcacherw -mod=readonly" \
    go build -trimpath -o "$bin/vegeta-steps" .) >&2 \
    || { rm -rf "$(dirname "$bin")"; echo "go build of loadtests/vegeta-steps failed; check access to the Go module proxy and run again" >&2; exit 1; }
fi
echo "$bin/vegeta-steps"
