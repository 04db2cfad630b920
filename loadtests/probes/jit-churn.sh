#!/bin/bash
# Whether a server's JIT settles under a steady /dashboard load, and if not, why its compiled code is thrown away: each of SERVERS
# (default: the coroutine servers of servers.json, one on each engine) alone on CPU 1 with the bench's heap and collector (FLAGS adds JVM flags: a cause
# knocked out, such as -XX:PerMethodTrapLimit=0), its stub answering each downstream call after DELAY_MS (20, as the bench's),
# wrk's closed loop on IN_FLIGHT connections (100) from CPU 0, the stub's CPU too. WARMUP_S (30) of load, then WINDOWS (9) windows
# of 10 s, one after another, each a wrk of its own, so that each has its rate.
#
# The JVM logs every compilation and every method made not entrant, with the reason JDK 25 gives for it (-Xlog:jit+compilation).
# One line a window: requests a second, the server's CPU a request (µs, /proc), its compilers' share of the window, methods
# compiled, methods made not entrant by reason (requests answered other than 2xx are not counted as answered). A server whose JIT settled compiles and throws away next to nothing in its last
# windows; "not used" is tiered compilation replacing a method's C1 code by C2's, "uncommon trap" a speculation that failed,
# "marked for deoptimization" a class that loaded and broke an assumption the code was compiled on.
#
# COMPILERS_CPU moves the JVM's compiler threads off the server's CPU onto that one (0: the load's), once it is ready and again
# before each window (the JVM starts and stops compiler threads as its queue asks): whether its JIT is starved on one CPU. A
# window's "less the compilers" is then the server's CPU a request without theirs.
#
# Run after `make build`, on a quiet host, never beside a bench; it leaves its files in a folder it names. Everything
# listens on loopback; the server and the stub are stopped on exit or Ctrl-C.
#
#   loadtests/probes/jit-churn.sh [SERVERS=<server>,...] [IN_FLIGHT=100] [DELAY_MS=20] [WARMUP_S=30] [WINDOWS=9] [FLAGS=...] [COMPILERS_CPU=0]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
java="$("$root/setup/jdk.sh" 25)/bin/java"
python="$("$root/setup/python.sh")"
wrk=$("$root/setup/wrk.sh")
servers=${SERVERS:-$(cd "$root" && PYTHONPATH=analysis "$python" -m labanalysis.folder.catalogue | awk '$3 == "coroutine" { print $1 }' | paste -sd,)} in_flight=${IN_FLIGHT:-100} delay_ms=${DELAY_MS:-20}
warmup_s=${WARMUP_S:-30} windows=${WINDOWS:-9} compilers_cpu=${COMPILERS_CPU:-}
[[ -z "$compilers_cpu" || "$compilers_cpu" =~ ^[01]$ ]] || { echo "jit-churn.sh: give COMPILERS_CPU as 0 or 1, a CPU of this host's two" >&2; exit 2; }
for n in "$in_flight" "$delay_ms" "$warmup_s" "$windows"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "jit-churn.sh: give IN_FLIGHT, DELAY_MS, WARMUP_S and WINDOWS as whole numbers from 1" >&2; exit 2; }
done
work=$(mktemp -d /tmp/jit-churn.XXXX) && echo "files in $work"
ticks_per_s=$(getconf CLK_TCK)
# shellcheck source=loadtests/lab-programs.sh
source "$root/loadtests/lab-programs.sh"
trap stop EXIT
trap 'exit 130' INT TERM

# Seconds since process $1 started, as its JVM's log counts them (its `uptime` decorator), to within the JVM's own start.
jvm_uptime() { awk -v start="$(sed 's/.*) //' /proc/$1/stat | awk '{ print $20 }')" -v hz="$ticks_per_s" '{ printf "%.2f", $1 - start / hz }' /proc/uptime; }
# The CPU ticks of every live compiler thread of $1.
# Moves every compiler thread of $1 onto COMPILERS_CPU, where one is given.
move_compilers() {
  [ -n "$compilers_cpu" ] || return 0
  local task
  for task in "/proc/$1/task/"*; do
    if grep -q '^C[12] Comp' "$task/comm" 2>/dev/null; then taskset -p -c "$compilers_cpu" "${task##*/}" > /dev/null 2>&1 || true; fi
  done
}
jit_ticks() { { cat /proc/$1/task/*/stat 2>/dev/null || true; } | awk '{ match($0, /\(.*\)/); n = substr($0, RSTART + 1, RLENGTH - 2); if (n ~ /^C[12] Comp/) { sub(/.*\) /, ""); t += $12 + $13 } } END { print t + 0 }'; }

for name in ${servers//,/ }; do
  jar="$root/$(cd "$root" && PYTHONPATH=analysis "$python" -m labanalysis.folder.catalogue jar "$name" 2>"$work/catalogue.err")" \
    || { echo "jit-churn.sh: SERVERS: $(cat "$work/catalogue.err")" >&2; exit 2; }
  start "$work/stub-$name.log" taskset -c 0 "$java" -jar "$root/stub/target/stub.jar" --port 0 --latency-ms "$delay_ms"
  stub=$url
  # shellcheck disable=SC2086 # FLAGS is a list of JVM flags
  start "$work/server-$name.log" taskset -c 1 "$java" -Xms2048m -Xmx2048m -XX:+UseZGC -XX:ActiveProcessorCount=1 \
    --enable-native-access=ALL-UNNAMED ${FLAGS:-} \
    "-Xlog:jit+compilation=debug:file=$work/jit-$name.log:uptime,tags" \
    -jar "$jar" --host 127.0.0.1 --port 0 --downstream-url "$stub"
  server=${pids[-1]} target="$url/dashboard/42"
  move_compilers "$server"
  taskset -c 0 "$wrk" -t1 -c"$in_flight" -d"${warmup_s}s" --timeout 10s "$target" > "$work/wrk-$name-warmup.log" 2>&1
  for window in $(seq "$windows"); do
    move_compilers "$server"
    from=$(jvm_uptime "$server") all_before=$(process_ticks "$server") jit_before=$(jit_ticks "$server")
    taskset -c 0 "$wrk" -t1 -c"$in_flight" -d10s --timeout 10s "$target" > "$work/wrk-$name-$window.log" 2>&1
    kill -0 "$server" 2>/dev/null || { echo "jit-churn.sh: $name stopped in window $window; its log: $work/server-$name.log" >&2; exit 1; }
    to=$(jvm_uptime "$server") all_after=$(process_ticks "$server") jit_after=$(jit_ticks "$server")
    echo "$name,$window,$from,$to,$((all_after - all_before)),$((jit_after - jit_before)),$ticks_per_s" >> "$work/windows.csv"
  done
  stop
  "$python" - "$work" "$name" <<'PY'
"""The windows of one server: wrk's rate in each, the server's CPU a request, and what its JIT compiled and threw away meanwhile,
read off the JVM's log by its uptime."""
import collections
import re
import sys
from pathlib import Path

work, name = Path(sys.argv[1]), sys.argv[2]
windows = [line.split(",")[1:] for line in (work / "windows.csv").read_text().splitlines() if line.startswith(f"{name},")]
uptime = re.compile(r"^\[([\d.]+)s\]")
log = []
for line in (work / f"jit-{name}.log").read_text(errors="replace").splitlines():
    if at := uptime.match(line):
        log.append((float(at.group(1)), line))


def every(counter: collections.Counter) -> str:
    return ", ".join(f"{what} {n}" for what, n in counter.most_common()) or "none"


print(name)
for window, start, end, all_ticks, jit_ticks, hz in windows:
    text = (work / f"wrk-{name}-{window}.log").read_text()
    answered = int(re.search(r"(\d+) requests in", text).group(1)) - int(re.search(r"Non-2xx or 3xx responses: (\d+)", text).group(1) if "Non-2xx" in text else 0)
    if answered <= 0:
        sys.exit(f"jit-churn.sh: {name} answered no /dashboard request with a 2xx in window {window}; see {work}/wrk-{name}-{window}.log")
    compiled, not_entrant = 0, collections.Counter()
    for t, line in log:
        if not float(start) <= t < float(end):
            continue
        if "made not entrant" in line:
            not_entrant[line.split("made not entrant", 1)[1].strip(" :") or "(no reason given)"] += 1
        elif "jit,compilation" in line and "made " not in line:
            compiled += 1
    seconds = float(end) - float(start)
    print(
        f"  window {window}: {answered / seconds:,.0f} /dashboard a second, {int(all_ticks) / int(hz) * 1e6 / answered:,.0f} µs of CPU a "
        f"request ({(int(all_ticks) - int(jit_ticks)) / int(hz) * 1e6 / answered:,.0f} less the compilers), compilers "
        f"{int(jit_ticks) / int(hz) / seconds:.2f} of a CPU, {compiled} compiled, made not entrant "
        f"{sum(not_entrant.values())} ({every(not_entrant)})"
    )
PY
done
