#!/bin/bash
# Whether this host runs the same work at one speed: PROCESSES fresh processes of host-speed.c, one after another, alone on
# CPU (default 1), each ROUNDS rounds of three kinds of fixed work (a register-only loop, first writes to fresh memory, a
# random chase over WALK_MIB already touched), on the thread's CPU clock. A line a round (process, round, ns a unit of
# each), then, per kind, the median of each process's rounds and their spread: work that costs one process twice what it
# costs the next, in rounds that agree within the process, is a property of the process's memory, not of the CPU's speed.
# By hand; needs gcc; builds into .tools/probes. docs/JOURNAL.md ("The same work at two costs") quotes its runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
processes=${PROCESSES:-8} rounds=${ROUNDS:-5} touch_mib=${TOUCH_MIB:-256} walk_mib=${WALK_MIB:-1024} cpu=${CPU:-1}
binary=$root/.tools/probes/host-speed
mkdir -p "$(dirname "$binary")"
gcc -O2 -Wall -Werror -o "$binary" "$root/loadtests/probes/host-speed.c"

rows=$(mktemp /tmp/host-speed.XXXX.csv)
trap 'rm -f "$rows"' EXIT
echo "process,round,compute_ns_per_iteration,touch_ns_per_page,walk_ns_per_step" | tee "$rows"
for process in $(seq "$processes"); do
  taskset -c "$cpu" "$binary" "$rounds" "$touch_mib" "$walk_mib" | sed "s/^/$process,/" | tee -a "$rows"
done
awk -F, -v rounds="$rounds" '
  NR > 1 { for (k = 3; k <= 5; k++) value[$1, k, $2] = $k; if ($1 > last) last = $1 }
  function median(p, k,   n, i, j, t, v) {
    n = 0; for (i = 1; i <= rounds; i++) v[++n] = value[p, k, i]
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  END {
    split("compute touch walk", name, " ")
    for (k = 3; k <= 5; k++) {
      low = ""; high = ""; line = ""
      for (p = 1; p <= last; p++) {
        m = median(p, k); line = line sprintf(" %.2f", m)
        if (low == "" || m < low) low = m
        if (high == "" || m > high) high = m
      }
      printf "%s, each process'"'"'s median ns:%s; the slowest %.2fx the fastest\n", name[k - 2], line, high / low
    }
  }' "$rows"
