#!/usr/bin/env bash
# Prints the path of the Autobahn testsuite's `wstest`, the WebSocket conformance suite's own
# runner, installing setup/autobahn-requirements.lock (every package pinned) into .tools/autobahn
# the first time, and again whenever the lock changes. wstest runs on Python 2.7 only: the one on
# PATH as python2.7, or pyenv's (installed with `pyenv install 2.7.18` when pyenv has none).
# The packages go to a user base of their own (PYTHONUSERBASE), not a virtualenv: Python 2.7 has no
# venv module, and a user base still reads the .pth files of namespace packages (zope).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
base="$root/.tools/autobahn"
lock="$root/setup/autobahn-requirements.lock"
stamp="$base/.installed-lock"
PYTHON2_VERSION=2.7.18

is_python27() { "$1" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (2, 7) else 1)' >/dev/null 2>&1; }

# A pyenv shim is on PATH whether or not its version is selected, so a candidate counts only if it runs.
python2=""
if is_python27 python2.7; then
  python2="$(command -v python2.7)"
elif command -v pyenv >/dev/null 2>&1; then
  python2="$(pyenv root)/versions/$PYTHON2_VERSION/bin/python2.7"
  if ! is_python27 "$python2"; then
    echo "installing Python $PYTHON2_VERSION with pyenv for Autobahn's wstest (once, a few minutes)" >&2
    pyenv install -s "$PYTHON2_VERSION" >&2 \
      || { echo "pyenv could not install Python $PYTHON2_VERSION; install Python 2.7 (python2.7 on PATH) and run again" >&2; exit 1; }
  fi
fi
[ -n "$python2" ] || { echo "Autobahn's wstest needs Python 2.7: install it (pyenv install $PYTHON2_VERSION, or python2.7 on PATH) and run again" >&2; exit 1; }

if [ ! -f "$stamp" ] || ! cmp -s "$lock" "$stamp"; then
  echo "installing the Autobahn testsuite into .tools/autobahn (once, about half a minute)" >&2
  rm -rf "$base"
  mkdir -p "$base"
  PYTHONUSERBASE="$base" "$python2" -m pip install --quiet --disable-pip-version-check --no-input \
    --no-warn-script-location --user -r "$lock" >&2 2> >(grep -v DEPRECATION >&2) \
    || { echo "pip could not install setup/autobahn-requirements.lock; check access to PyPI and run again" >&2; exit 1; }
  # wstest finds its packages through PYTHONUSERBASE, so the path printed is a script that sets it.
  cat > "$base/wstest" <<SCRIPT
#!/usr/bin/env bash
PYTHONUSERBASE="$base" exec "$python2" "$base/bin/wstest" "\$@"
SCRIPT
  chmod +x "$base/wstest"
  cp "$lock" "$stamp"
fi
echo "$base/wstest"
