#!/bin/bash
# What the kernel's futex hash costs a server with thousands of parked threads (lab.support.FutexHash): the platform
# server (the bench's JVM flags, alone on CPU 1) with 14,000 idle WebSockets pinging every 30 s (idle-sockets.py, on
# CPU 0), started with --futex-hash kernel and with --futex-hash global, interleaved, 3 passes. Each pass waits 60 s
# after the sockets are open, then reads the server's user and system CPU over 20 s from /proc/<pid>/stat. One line a
# pass. With PERF=1 it also records CPU 1 (perf record -a -C 1; perf cannot follow 14,000 threads by pid) and prints
# the top kernel symbols. By hand, after `make build`; it leaves its files in a temporary folder it names.
# docs/JOURNAL.md ("The platform server's idle CPU") quotes its first run.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
java=${JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
sockets=${SOCKETS:-14000}
work=$(mktemp -d /tmp/futex-hash.XXXX) && cd "$work" && echo "files in $work"
ticks_per_s=$(getconf CLK_TCK)

for pass in 1 2 3; do
  for hash in kernel global; do
    taskset -c 1 "$java" -Xms2048m -Xmx2048m -XX:+UseZGC -XX:NativeMemoryTracking=summary -XX:ActiveProcessorCount=1 \
      --enable-native-access=ALL-UNNAMED -jar "$root/jetty-platform-server/target/jetty-platform-server.jar" \
      --port 18080 --downstream-url http://127.0.0.1:9 --futex-hash $hash > server-$hash-$pass.log 2>&1 &
    server=$!
    trap 'kill $server 2>/dev/null; pkill -f "idle-sockets.py $sockets 18080"' EXIT
    sleep 4
    taskset -c 0 timeout 300 python3 "$root/loadtests/probes/idle-sockets.py" $sockets 18080 200 30 > sockets-$hash-$pass.log 2>&1 &
    sleep 80
    before=($(awk '{print $14, $15}' /proc/$server/stat))
    if [ -n "${PERF:-}" ]; then perf record -q -e cpu-clock -g -a -C 1 -o perf-$hash-$pass.data -- sleep 20 2> /dev/null; else sleep 20; fi
    after=($(awk '{print $14, $15}' /proc/$server/stat))
    user=$(((after[0] - before[0]) * 100 / 20 / ticks_per_s)); system=$(((after[1] - before[1]) * 100 / 20 / ticks_per_s))
    echo "pass $pass, --futex-hash $hash ($(grep -o 'futexHash=[a-z0-9-]*' server-$hash-$pass.log)): server CPU ${user}% user, ${system}% system of one CPU over 20 s; $(grep Threads /proc/$server/status | tr -s '\t' ' '); $(cat sockets-$hash-$pass.log)"
    if [ -n "${PERF:-}" ]; then perf report -i perf-$hash-$pass.data --no-children --sort sym -g none 2> /dev/null | grep '%' | grep -v '^#' | head -3; fi
    pkill -f "idle-sockets.py $sockets 18080"; kill $server; while kill -0 $server 2> /dev/null; do sleep 1; done
  done
done
