#!/usr/bin/env bash
# make rehearse-vps: make bench-vps across a rehearsal of its hosts on this machine, before a host
# is rented. infra/rehearsal.sh makes the server host and two load generators, each in a network
# namespace of its own with the firewall rules that ship, and the user's machine; the bench runs
# from the user's machine as on Hetzner, and the rehearsal is taken down when it ends, however
# it ends. The run folder comes back to RESULTS_DIR (results/), as from a rented host.
#
#   [PROFILE=smoke] [SERVERS=...] [JDK=25] [REHEARSAL=loomlab] infra/rehearse-vps.sh
#
# Root only (network namespaces). The profile defaults to smoke: the vps profile's 50,000 sockets
# are more than one machine's open-files limit holds, and the harness refuses them before anything starts.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
[ "$(id -u)" = 0 ] || { echo "make rehearse-vps: network namespaces need root: run it as root (sudo -E make rehearse-vps)" >&2; exit 2; }

# What make bench-vps ships and renders with, set up here first: the user's namespace has no route to the internet.
setup/k6.sh >/dev/null
setup/jdk.sh 25 >/dev/null
setup/jdk.sh "${JDK:-25}" >/dev/null
setup/python.sh >/dev/null

hosts="$(infra/rehearsal.sh up)"
trap 'infra/rehearsal.sh down' EXIT
# NAMESPACE, HOST, LOADGEN, SSH_KEY and SSH_KNOWN_HOSTS, one a line.
declare -A rehearsal
while IFS='=' read -r key value; do rehearsal[$key]="$value"; done <<<"$hosts"

echo "rehearse-vps: server host ${rehearsal[HOST]}, load generators ${rehearsal[LOADGEN]}, from ${rehearsal[NAMESPACE]}" >&2
ip netns exec "${rehearsal[NAMESPACE]}" env SSH_KEY="${rehearsal[SSH_KEY]}" SSH_KNOWN_HOSTS="${rehearsal[SSH_KNOWN_HOSTS]}" \
  make --no-print-directory bench-vps HOST="${rehearsal[HOST]}" LOADGEN="${rehearsal[LOADGEN]}" PROFILE="${PROFILE:-smoke}"
