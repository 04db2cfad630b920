# Sourced by the probes and reproducers that start lab programs themselves (a server, the stub): `start` runs one in the
# background and waits for its READY line, `stop` stops every one started, `process_ticks` reads the CPU one used. A script sets its own traps, so that Ctrl-C or its
# end stops them: `trap stop EXIT` and `trap 'exit 130' INT TERM`.
pids=()

# Stops every program `start` started, and waits for each to end.
stop() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
}

# Starts a program in this shell (so that `stop` knows its pid), its output into the log $1, and sets `url` to the URL its READY
# line announces, within 60 s; else says so in one line, with the log, and exits.
start() {
  local log="$1"; shift
  local what="$*"
  "$@" >"$log" 2>&1 &
  pids+=("$!")
  url=""
  for _ in $(seq 600); do
    url="$(sed -n 's/^READY .*url=\([^ ]*\).*/\1/p' "$log" | head -1)"
    [ -n "$url" ] && return
    kill -0 "${pids[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  echo "${0##*/}: $what did not say it was ready; its log: $log" >&2
  cat "$log" >&2
  exit 1
}

# The CPU ticks, user and system, of the whole process $1 (a program `start` started), threads that have ended included.
process_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
