#!/usr/bin/env bash
# Prints the path of wrk, the concurrency sweep's closed-loop load generator, installing Debian's
# package (the pinned version below) when it is missing. It is a system package, so only root
# installs it; anyone else is told the one command that would.
set -euo pipefail

WRK_VERSION=4.1.0-3+b2

if ! command -v wrk >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup/wrk.sh: wrk is missing and this is not root: run sudo apt-get install wrk=$WRK_VERSION" >&2
    exit 1
  fi
  echo "installing wrk $WRK_VERSION from Debian's packages" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || true
  apt-get install -y -qq --no-install-recommends "wrk=$WRK_VERSION" >&2
fi
command -v wrk
