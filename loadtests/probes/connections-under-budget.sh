#!/bin/bash
# Whether a server's /json throughput on 0.4 of a CPU depends on how many connections carry it: the question the curve's
# one-pool-a-pass attempt left (docs/JOURNAL.md, "The curve's connections"), where a pass's limit followed the connections
# its earlier steps had left. A server alone on CPU 1 (the bench's JVM flags but NMT, JDK 25, no idle sockets, no JFR), warmed up
# for 20 s on its whole CPU, then held to 0.4 of it in a cgroup v1 cpu group (1 ms in 2.5 ms, as lab.bench.host.CpuBudget
# holds it); wrk (one thread, CPU 0, a closed loop) then keeps C connections busy for 10 s, C interleaved over 2 passes.
# One line a measurement: wrk's requests a second, its p50 and p99, and the server's CPU over the 10 s (from /proc).
# A closed loop finds the most the server answers on C connections, not a latency bound. Run as root, after `make build`.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
java=${JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
servers=${SERVERS:-ktor-coroutine jetty-virtual}
counts=${COUNTS:-8 64 512 2048}
group=/sys/fs/cgroup/cpu/loom-lab/probe-connections
work=$(mktemp -d /tmp/connections-under-budget.XXXX) && cd "$work" && echo "files in $work"
ticks_per_s=$(getconf CLK_TCK)
mkdir -p "$group"
trap 'kill $server 2>/dev/null; sleep 1; rmdir "$group" 2>/dev/null' EXIT

for pass in 1 2; do
  for name in $servers; do
    echo -1 > "$group/cpu.cfs_quota_us"
    taskset -c 1 "$java" -Xms2048m -Xmx2048m -XX:+UseZGC -XX:ActiveProcessorCount=1 --enable-native-access=ALL-UNNAMED \
      -jar "$root/$(cd "$root" && PYTHONPATH=analysis python3 -m labanalysis.folder.catalogue jar "$name")" --port 18080 --downstream-url http://127.0.0.1:9 > server-$name-$pass.log 2>&1 &
    server=$!
    echo $server > "$group/cgroup.procs"
    for t in $(ls /proc/$server/task); do echo $t > "$group/tasks" 2>/dev/null; done
    sleep 5
    taskset -c 0 wrk -t1 -c64 -d20s http://127.0.0.1:18080/json > warmup-$name-$pass.log 2>&1
    echo 2500 > "$group/cpu.cfs_period_us"; echo 1000 > "$group/cpu.cfs_quota_us"
    for c in $counts; do
      before=($(awk '{print $14, $15}' /proc/$server/stat))
      taskset -c 0 wrk -t1 -c$c -d10s --latency http://127.0.0.1:18080/json > wrk-$name-$c-$pass.log 2>&1
      after=($(awk '{print $14, $15}' /proc/$server/stat))
      cores=$(( (after[0] + after[1] - before[0] - before[1]) * 100 / 10 / ticks_per_s ))
      echo "pass $pass $name C=$c: $(grep Requests/sec wrk-$name-$c-$pass.log | tr -s ' '), p50 $(awk '$1=="50%"{print $2}' wrk-$name-$c-$pass.log), p99 $(awk '$1=="99%"{print $2}' wrk-$name-$c-$pass.log), server ${cores}% of a CPU, $(grep -o '[0-9]* requests in' wrk-$name-$c-$pass.log)$(grep -o 'Socket errors.*' wrk-$name-$c-$pass.log)"
      sleep 2
    done
    kill $server; wait $server 2>/dev/null
  done
done
