#!/bin/bash
# What Go's collector costs vegeta's own latency: /json offered by vegeta at 4,000/s and 8,000/s for 10 s, with Go's default
# collector and with the lab's (GOGC=off under a memory limit, lab.bench.load.GoRuntime), interleaved, 3 passes, against the
# virtual-thread server alone on CPU 1, vegeta on CPU 0. One line a run: vegeta's p99 and p50 (ms), requests, success ratio, the
# collections it made (gctrace), and its user and system CPU (s). By hand, after `make build`; it leaves its files in a temporary
# folder it names. docs/JOURNAL.md ("vegeta's own collector") quotes its first run.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
java=${JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
vegeta=${VEGETA:-$(cd "$root" && setup/vegeta.sh)}
limit=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) * 1024 / 8))   # VegetaCurve.MEMORY_SHARE_DENOMINATOR
work=$(mktemp -d /tmp/vegeta-go-collector.XXXX) && cd "$work" && echo "files in $work"

taskset -c 1 "$java" -Xms2048m -Xmx2048m -XX:+UseZGC -XX:ActiveProcessorCount=1 -jar "$root/jetty-virtual-server/target/jetty-virtual-server.jar" \
  --host 127.0.0.1 --port 18080 --downstream-url http://127.0.0.1:9 > server.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
sleep 4
echo "GET http://127.0.0.1:18080/json" > targets
taskset -c 0 "$vegeta" attack -targets=targets -rate=4000/1s -duration=10s -workers=2000 -max-workers=2000 -http2=false > /dev/null  # warm-up
for pass in 1 2 3; do
  for rate in 4000 8000; do
    for collector in default off; do
      if [ $collector = off ]; then env="GOGC=off GOMEMLIMIT=$limit GODEBUG=gctrace=1"; else env="GODEBUG=gctrace=1"; fi
      out=r-$rate-$collector-$pass
      /usr/bin/env $env taskset -c 0 /usr/bin/time -f "%U %S" -o $out.time "$vegeta" attack -targets=targets -rate=$rate/1s -duration=10s \
        -workers=2000 -max-workers=2000 -http2=false -output=$out.gob 2> $out.log
      figures=$("$vegeta" report -type=json $out.gob | python3 -c \
        "import json,sys; r=json.load(sys.stdin); print(r['latencies']['99th']/1e6, r['latencies']['50th']/1e6, r['requests'], r['success'])")
      echo "pass $pass, $rate/s, collector $collector: p99_ms p50_ms requests success = $figures; collections $(grep -c '^gc ' $out.log); cpu_s $(cat $out.time)"
      rm -f $out.gob
    done
  done
done
