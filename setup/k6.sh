#!/usr/bin/env bash
# Prints the path of the pinned k6, building it with `go install` into .tools/ the first time
# (setup/go-tool.sh). A k6 already on PATH at exactly the pinned version is used as it is.
set -euo pipefail

version="v1.8.1"
exec "$(dirname "$0")/go-tool.sh" k6 go.k6.io/k6 "$version" version "k6 $version " "a few minutes"
