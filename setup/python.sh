#!/usr/bin/env bash
# Prints the path of the analysis environment's python, creating the virtual environment in
# .tools/venv and installing analysis/requirements.lock (every package pinned, dependencies
# included) the first time, and again whenever the lock changes.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.tools/venv"
lock="$root/analysis/requirements.lock"
stamp="$venv/.installed-lock"

python=""
for candidate in python3.11 python3.12 python3.13 python3; do
  if command -v "$candidate" >/dev/null 2>&1 \
    && "$candidate" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
    python="$candidate"
    break
  fi
done
[ -n "$python" ] || { echo "the analysis needs Python 3.11 or later with venv; install it (e.g. apt-get install python3-venv) and run again" >&2; exit 1; }

if [ ! -f "$stamp" ] || ! cmp -s "$lock" "$stamp"; then
  echo "installing the analysis environment into .tools/venv (once, about a minute)" >&2
  rm -rf "$venv"
  "$python" -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$lock" >&2 \
    || { echo "pip could not install analysis/requirements.lock; check access to PyPI and run again" >&2; exit 1; }
  cp "$lock" "$stamp"
fi
echo "$venv/bin/python"
