#!/usr/bin/env bash
# How many TCP connections each server opens to the downstream stub per /dashboard request.
#
# The host's TCP ActiveOpens counter (/proc/net/snmp) counts every connect() on the host. It is read before and after a fixed
# number of /dashboard requests, sent one after another on a single keep-alive connection, and the difference is divided by the
# number of requests. A client that keeps its connections to the stub opens none once warm. Ktor's CIO client, with its default
# `pipelining = false`, opens one per call, and a /dashboard request makes two calls. See FINDINGS.md, "Ktor's CIO client opens a
# new TCP connection for every request".
# A server named with its alternatives (`ktor-coroutine:client-okhttp`, servers.json's engines) runs with them: the Ktor server's
# client on another engine.
#
# Everything listens on loopback ports the kernel picks. Each server runs alone with its own stub, and both are stopped on exit
# or on Ctrl-C. The counter is host-wide, so another program connecting meanwhile counts too: run it on a quiet host, never
# beside a bench.
#
#   reproducers/downstream-connections/count.sh [SERVERS=<name>[:<alternative>+...],... (default: every server `make servers` lists)]
#     [REQUESTS=300] [WARMUP=50]
set -euo pipefail
cd "$(dirname "$0")/../.."

servers="${SERVERS:-$(PYTHONPATH=analysis python3 -m labanalysis.folder.catalogue names)}"
requests="${REQUESTS:-300}"
warmup="${WARMUP:-50}"
[[ "$requests" =~ ^[1-9][0-9]*$ && "$warmup" =~ ^[0-9]+$ ]] || { echo "count.sh: give REQUESTS as 1 or more and WARMUP as 0 or more" >&2; exit 2; }

java="$(setup/jdk.sh 25)/bin/java"
python="$(setup/python.sh)"
make --no-print-directory build >/dev/null
work="$(mktemp -d)"
# shellcheck source=loadtests/lab-programs.sh
source loadtests/lab-programs.sh
trap 'stop; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

echo "server, requests, connections opened, opened a request"
for server in ${servers//,/ }; do
  jar="$(PYTHONPATH=analysis python3 -m labanalysis.folder.catalogue jar "${server%%:*}" 2>&1)" || { echo "count.sh: SERVERS: $jar" >&2; exit 2; }
  alternatives=()
  if [[ "$server" == *:* ]]; then named="${server#*:}"; alternatives=(--alternatives "${named//+/,}"); fi
  start "$work/stub.log" "$java" -jar stub/target/stub.jar --port 0
  stub="$url"
  start "$work/${server//[:+]/-}.log" "$java" --enable-native-access=ALL-UNNAMED -jar "$jar" --port 0 --downstream-url "$stub" "${alternatives[@]}"
  "$python" - "$url" "$warmup" "$requests" "$server" <<'PY'
import http.client, sys
from urllib.parse import urlparse

url, warmup, requests, server = urlparse(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
client = http.client.HTTPConnection(url.hostname, url.port, timeout=10)

def dashboard(n: int) -> None:
    for _ in range(n):
        client.request("GET", "/dashboard/42")
        answer = client.getresponse()
        answer.read()
        if answer.status != 200:
            sys.exit(f"count.sh: {server} answered /dashboard {answer.status}")

def opens() -> int:
    """The host's TCP ActiveOpens: /proc/net/snmp's second `Tcp:` line holds the values the first one names."""
    names, values = (line.split() for line in open("/proc/net/snmp") if line.startswith("Tcp:"))
    return int(values[names.index("ActiveOpens")])

try:
    dashboard(max(warmup, 1))  # the client's own connection, and the server's pool, open here
    before = opens()
    dashboard(requests)
except KeyboardInterrupt:
    sys.exit(130)  # the shell stops the server and the stub
opened = opens() - before
print(f"{server}, {requests}, {opened}, {opened / requests:.2f}")
PY
  stop
done
