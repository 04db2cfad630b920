#!/usr/bin/env bash
# The Debian packages the remote-run tests use as real parts: OpenSSH's server (the tests'
# "remote hosts" are sshd on loopback ports, or in the rehearsal's network namespaces),
# cloud-init (to validate infra/hetzner's cloud-config with `cloud-init schema`), nftables (to
# parse the shipped rules, and to hold the rehearsal's hosts to them) and shellcheck (the
# scripts' lint). They are system packages, so only root installs them; elsewhere the tests
# that need them say they were skipped and why.
set -euo pipefail

missing=()
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
command -v cloud-init >/dev/null 2>&1 || missing+=(cloud-init)
command -v nft >/dev/null 2>&1 || missing+=(nftables)
command -v shellcheck >/dev/null 2>&1 || missing+=(shellcheck)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "setup/test-hosts.sh: ${missing[*]} missing and not root: the bench-vps tests will be skipped (sudo apt-get install ${missing[*]})" >&2
  exit 0
fi
echo "installing ${missing[*]} from Debian's packages for the bench-vps tests" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 || true
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
