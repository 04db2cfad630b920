#!/usr/bin/env bash
# Prints the path of the pinned Maven, downloading it from Maven Central into .tools/ the
# first time, so the build does not depend on whichever Maven the machine happens to have.
set -euo pipefail

version="3.9.16"
root="$(cd "$(dirname "$0")/.." && pwd)"
home="$root/.tools/apache-maven-$version"
if [ ! -x "$home/bin/mvn" ]; then
  url="https://repo.maven.apache.org/maven2/org/apache/maven/apache-maven/$version/apache-maven-$version-bin.tar.gz"
  echo "installing Maven $version from Maven Central into .tools/" >&2
  mkdir -p "$root/.tools"
  tmp="$(mktemp -d "$root/.tools/maven.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  curl -fsSL --retry 3 -o "$tmp/maven.tar.gz" "$url" \
    || { echo "could not download $url; check access to Maven Central and run again" >&2; exit 1; }
  curl -fsSL --retry 3 -o "$tmp/maven.tar.gz.sha512" "$url.sha512"
  echo "$(cut -d' ' -f1 < "$tmp/maven.tar.gz.sha512")  $tmp/maven.tar.gz" | sha512sum --check --quiet >&2 \
    || { echo "Maven $version download failed its checksum; run again" >&2; exit 1; }
  tar -xzf "$tmp/maven.tar.gz" -C "$tmp"
  mv "$tmp/apache-maven-$version" "$home"
fi
echo "$home/bin/mvn"
