#!/bin/bash
# Whether a JVM's CPU cost a /json request is the JVM's own or the host's of the moment: JVMS fresh JVMs of SERVER (default
# jetty-virtual) alive at once, all on CPU 1 with the bench's heap and its collector, ZGC (GC=G1 for G1; FLAGS adds JVM flags), each warmed up by wrk for
# WARMUP_S (20), then ROUNDS (4) rounds, a round being one window of WINDOW_S (10) on each JVM in turn: wrk's closed loop on
# CONNECTIONS (256, as the bench's full step) from CPU 0. Only the JVM under load works; the others idle beside it.
#
# If the cost is the JVM's, each JVM's windows agree with each other and differ from the other JVMs'; if it is the host's,
# the windows of one round agree, whichever JVM served them. The table gives the server's CPU a request (µs, /proc) of each
# window, a row a round and a column a JVM, and under it the spread (SD of the log) of the JVMs' medians, of the rounds'
# medians, and of what neither explains.
#
# Run after `make build`, on a quiet host, never beside a bench; it leaves its files in a folder it names. Everything listens on
# loopback; the servers are stopped on exit or Ctrl-C.
#
#   loadtests/probes/cost-jvm-or-host.sh [SERVER=<server>] [JVMS=3] [ROUNDS=4] [WARMUP_S=20] [WINDOW_S=10] [CONNECTIONS=256] [GC=ZGC|G1] [FLAGS=...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
java="$("$root/setup/jdk.sh" 25)/bin/java"
python="$("$root/setup/python.sh")"
wrk=$("$root/setup/wrk.sh")
name=${SERVER:-jetty-virtual} jvms=${JVMS:-3} rounds=${ROUNDS:-4} warmup_s=${WARMUP_S:-20} window_s=${WINDOW_S:-10} gc=${GC:-ZGC}
connections=${CONNECTIONS:-256}
[[ "$gc" =~ ^(ZGC|G1)$ ]] || { echo "cost-jvm-or-host.sh: give GC as ZGC or G1" >&2; exit 2; }
for n in "$jvms" "$rounds" "$warmup_s" "$window_s" "$connections"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "cost-jvm-or-host.sh: give JVMS, ROUNDS, WARMUP_S, WINDOW_S and CONNECTIONS as whole numbers from 1" >&2; exit 2; }
done
work=$(mktemp -d /tmp/cost-jvm-or-host.XXXX) && echo "files in $work"
ticks_per_s=$(getconf CLK_TCK)
# shellcheck source=loadtests/lab-programs.sh
source "$root/loadtests/lab-programs.sh"
trap stop EXIT
trap 'exit 130' INT TERM


jar="$root/$(cd "$root" && PYTHONPATH=analysis "$python" -m labanalysis.folder.catalogue jar "$name" 2>"$work/catalogue.err")" \
  || { echo "cost-jvm-or-host.sh: SERVER: $(cat "$work/catalogue.err")" >&2; exit 2; }
servers=() urls=()
for jvm in $(seq "$jvms"); do
  # shellcheck disable=SC2086 # FLAGS is a list of JVM flags
  start "$work/server-$jvm.log" taskset -c 1 "$java" -Xms2048m -Xmx2048m "-XX:+Use${gc/G1/G1GC}" -XX:ActiveProcessorCount=1 \
    --enable-native-access=ALL-UNNAMED ${FLAGS:-} -jar "$jar" --host 127.0.0.1 --port 0 --downstream-url http://127.0.0.1:9
  servers+=("${pids[-1]}") urls+=("$url/json")
done
for jvm in $(seq "$jvms"); do
  taskset -c 0 "$wrk" -t1 -c64 -d"${warmup_s}s" "${urls[jvm - 1]}" > "$work/warmup-$jvm.log" 2>&1
done
echo "round,jvm,requests,ticks,hz" > "$work/windows.csv"
for round in $(seq "$rounds"); do
  for jvm in $(seq "$jvms"); do
    server=${servers[jvm - 1]}
    before=$(process_ticks "$server")
    taskset -c 0 "$wrk" -t1 -c"$connections" -d"${window_s}s" "${urls[jvm - 1]}" > "$work/wrk-$round-$jvm.log" 2>&1
    kill -0 "$server" 2>/dev/null || { echo "cost-jvm-or-host.sh: JVM $jvm stopped in round $round; its log: $work/server-$jvm.log" >&2; exit 1; }
    after=$(process_ticks "$server")
    requests=$(awk '/requests in/ { print $1 }' "$work/wrk-$round-$jvm.log")
    echo "$round,$jvm,$requests,$((after - before)),$ticks_per_s" >> "$work/windows.csv"
  done
  echo "round $round of $rounds done" >&2
done
stop
"$python" - "$work/windows.csv" "$name" <<'PY'
"""The windows as a table of µs a request (a row a round, a column a JVM), and how much of their spread is the JVM's and how much
the round's: the SD of the log of each JVM's median and of each round's median, and of the residual of a two-way fit by medians."""
import csv
import math
import statistics
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
cost = {(int(r["round"]), int(r["jvm"])): int(r["ticks"]) / int(r["hz"]) * 1e6 / int(r["requests"]) for r in rows}
rounds, jvms = sorted({k[0] for k in cost}), sorted({k[1] for k in cost})
log = {k: math.log(v) for k, v in cost.items()}
jvm_median = {j: statistics.median(log[r, j] for r in rounds) for j in jvms}
round_median = {r: statistics.median(log[r, j] - jvm_median[j] for j in jvms) for r in rounds}
residual = [log[r, j] - jvm_median[j] - round_median[r] for r in rounds for j in jvms]
sd = lambda xs: statistics.stdev(xs) if len(xs) > 1 else math.nan  # noqa: E731

print(f"{sys.argv[2]}: server CPU a /json request (µs), a row a round, a column a JVM")
print("round " + "".join(f"{'JVM ' + str(j):>9}" for j in jvms))
for r in rounds:
    print(f"{r:5} " + "".join(f"{cost[r, j]:9.1f}" for j in jvms))
print("median" + "".join(f"{math.exp(jvm_median[j]):9.1f}" for j in jvms))
print(f"spread (SD of the log): between JVMs {sd(list(jvm_median.values())):.3f}, between rounds {sd(list(round_median.values())):.3f}, neither {sd(residual):.3f}")
PY
