#!/usr/bin/env bash
# Prints the path of the pinned vegeta, the curve's open-model load generator where k6 cannot
# offer a step's rate on the load's CPU (Profile.curveGenerator), building it with `go install`
# into .tools/ the first time (setup/go-tool.sh). A vegeta already on PATH at exactly the pinned
# version is used as it is.
set -euo pipefail

version="v12.13.0"
exec "$(dirname "$0")/go-tool.sh" vegeta github.com/tsenart/vegeta/v12 "$version" -version "Version: $version" "a minute"
