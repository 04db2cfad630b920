#!/bin/bash
# Whether the same server, started afresh, serves /json at one CPU cost a request or at two: JVMS fresh JVMs of SERVER
# (default jetty-virtual), one after another, each alone on CPU 1 with the bench's JVM flags (no NMT, no JFR; FLAGS adds) and its whole
# CPU, warmed up by wrk for 20 s, then measured in WINDOWS windows of 10 s one after another (wrk's closed loop on 256
# connections from CPU 0, as the full step's): a cost the JVM keeps shows in all its windows alike. Between JVMs host-speed.c takes the host's speed on CPU 1 (three rounds of each kind of fixed work). One line
# a window: requests a second, the server's CPU a request (µs, /proc) and the system's part of it, its threads' context switches a request, its compilers' share of the 10 s, the anonymous huge
# pages it holds; then the host's speed before it. Run as root, after `make build`; it leaves its files in a folder it names.
# docs/JOURNAL.md ("The same work at two costs") quotes its runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
java=${JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
name=${SERVER:-jetty-virtual} jvms=${JVMS:-6} windows=${WINDOWS:-3}
wrk=$("$root/setup/wrk.sh")
work=$(mktemp -d /tmp/jvm-cost-spread.XXXX) && echo "files in $work"
ticks_per_s=$(getconf CLK_TCK)
binary=$root/.tools/probes/host-speed
mkdir -p "$(dirname "$binary")" && gcc -O2 -Wall -Werror -o "$binary" "$root/loadtests/probes/host-speed.c"
jar=$root/$(cd "$root" && PYTHONPATH=analysis python3 -m labanalysis.folder.catalogue jar "$name")
server=
trap '[ -n "$server" ] && kill $server 2>/dev/null; true' EXIT

# The context switches, voluntary and not, of every thread of $1.
switches() { { cat /proc/$1/task/*/status 2>/dev/null || true; } | awk '/ctxt_switches/ { t += $2 } END { print t + 0 }'; }

# The CPU ticks of the whole process $1, threads that have ended included: user and system ("us"), or system alone ("s").
process_ticks() { sed 's/.*) //' /proc/$1/stat | awk -v which="$2" '{ print (which != "s" ? $12 : 0) + $13 }'; }

# The CPU ticks of every live thread of $1 whose name matches the pattern $2: user and system ("us"), user alone ("u"), or system ("s").
ticks() { { cat /proc/$1/task/*/stat 2>/dev/null || true; } | awk -v pattern="$2" -v which="$3" '{ match($0, /\(.*\)/); n = substr($0, RSTART + 1, RLENGTH - 2); if (n ~ pattern) { sub(/.*\) /, ""); t += (which != "s" ? $12 : 0) + (which != "u" ? $13 : 0) } } END { print t + 0 }'; }

for jvm in $(seq "$jvms"); do
  speed=$(taskset -c 1 "$binary" 3 64 1024 | awk -F, '{ c += $2; t += $3; w += $4 } END { printf "compute %.2f ns, touch %.0f ns a page, walk %.0f ns a step", c / NR, t / NR, w / NR }')
  # shellcheck disable=SC2086 # FLAGS is a list of JVM flags
  taskset -c 1 "$java" -Xms2048m -Xmx2048m -XX:+UseZGC -XX:ActiveProcessorCount=1 --enable-native-access=ALL-UNNAMED ${FLAGS:-} \
    -jar "$jar" --host 127.0.0.1 --port 18080 --downstream-url http://127.0.0.1:9 > "$work/server-$jvm.log" 2>&1 &
  server=$!
  for _ in $(seq 60); do grep -q READY "$work/server-$jvm.log" && break; sleep 0.5; done
  grep -q READY "$work/server-$jvm.log" || { echo "JVM $jvm did not start within 30 s; see $work/server-$jvm.log" >&2; exit 1; }
  taskset -c 0 "$wrk" -t1 -c64 -d20s http://127.0.0.1:18080/json > "$work/warmup-$jvm.log" 2>&1
  for window in $(seq "$windows"); do
    all_before=$(process_ticks $server us) system_before=$(process_ticks $server s) jit_before=$(ticks $server "^C[12] Comp" us) switches_before=$(switches $server)
    taskset -c 0 "$wrk" -t1 -c256 -d10s http://127.0.0.1:18080/json > "$work/wrk-$jvm-$window.log" 2>&1
    all_after=$(process_ticks $server us) system_after=$(process_ticks $server s) jit_after=$(ticks $server "^C[12] Comp" us) switches_after=$(switches $server)
    requests=$(awk '/requests in/ { print $1 }' "$work/wrk-$jvm-$window.log")
    huge=$(awk '/^AnonHugePages/ { print $2 }' /proc/$server/smaps_rollup)
    awk -v jvm="$jvm" -v window="$window" -v rate="$(awk '/Requests\/sec/ { print $2 }' "$work/wrk-$jvm-$window.log")" -v n="$requests" \
      -v all=$((all_after - all_before)) -v sys_ticks=$((system_after - system_before)) -v jit=$((jit_after - jit_before)) \
      -v hz="$ticks_per_s" -v huge="$huge" -v speed="$speed" -v switched=$((switches_after - switches_before)) \
      'BEGIN { printf "JVM %d, window %d: %.0f /json a second, %.1f µs of CPU a request (%.1f of it system), %.3f context switches a request, compilers %.2f of a CPU, %d MiB of anonymous huge pages; before the JVM %s\n", jvm, window, rate, all / hz * 1e6 / n, sys_ticks / hz * 1e6 / n, switched / n, jit / hz / 10, huge / 1024, speed }'
  done
  kill $server; wait $server 2>/dev/null || true; server=
done
