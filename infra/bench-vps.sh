#!/usr/bin/env bash
# make bench-vps: the bench harness on a remote server host (SUT), with k6 on load-generator
# hosts, one execution segment each, or on the SUT itself when no LOADGEN is given.
#
#   HOST=user@sut[:port] [LOADGEN=user@lg1[:port],...] [PROFILE=vps] [SERVERS=...] [JDK=25]
#   [SSH_KEY=~/.ssh/id_ed25519] [REMOTE_DIR=loom-lab] [SERVER_PORT=8080] [RESULTS_DIR=results] infra/bench-vps.sh
#
# Everything on the remote hosts lives under REMOTE_DIR (relative to the login's home unless
# absolute). LOADGEN addresses are the ones the SUT reaches them by (on Hetzner, their private
# addresses); this machine reaches them through the SUT (ssh ProxyCommand), so they need no
# public SSH. The harness on the SUT reaches them with a key made for this run only, allowed
# from the SUT's address only, and removed from every host when the run ends, however it ends.
#
# Exit codes: 0 complete, 1 a server failed or the run was incomplete (its folder still comes
# back and gets its report), 2 bad input or an unreachable host, 3 a host below the limits.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

say() { echo "bench-vps: $*" >&2; }
die() { local code="$1"; shift; echo "make bench-vps: $*" >&2; exit "$code"; }

[ -n "${HOST:-}" ] || die 2 "HOST is required: make bench-vps HOST=root@<server host> [LOADGEN=root@<private address>,...]"
PROFILE="${PROFILE:-vps}"
# Empty: every server of servers.json.
SERVERS="${SERVERS:-$(PYTHONPATH=analysis python3 -m labanalysis.folder.catalogue names)}"
JDK="${JDK:-25}"
REMOTE_DIR="${REMOTE_DIR:-loom-lab}"
PIN_THRESHOLD_MS="${PIN_THRESHOLD_MS:-20}"
RESULTS_DIR="${RESULTS_DIR:-results}"
[ -f "loadtests/profiles/$PROFILE.json" ] \
  || die 2 "no profile '$PROFILE'; choose from: $(cd loadtests/profiles && ls ./*.json | sed 's|./||; s|\.json||' | paste -sd, -)"
case "$REMOTE_DIR" in *[!A-Za-z0-9._/-]*) die 2 "REMOTE_DIR may hold only letters, digits and . _ / - (got '$REMOTE_DIR')";; esac

# user@host[:port] -> "user@host port"
parse_host() {
  [[ "$1" =~ ^([A-Za-z0-9._-]+)@([A-Za-z0-9.-]+)(:([0-9]{1,5}))?$ ]] \
    || die 2 "'$1' is not user@host or user@host:port (key-based SSH needs the user, e.g. root@203.0.113.7)"
  echo "${BASH_REMATCH[1]}@${BASH_REMATCH[2]} ${BASH_REMATCH[4]:-22}"
}
parse_host "$HOST" >/dev/null # in this shell, so that bad input ends the script
read -r sut_dest sut_port <<<"$(parse_host "$HOST")"
loadgens=()
IFS=',' read -r -a loadgens <<<"${LOADGEN:-}"
for lg in "${loadgens[@]}"; do parse_host "$lg" >/dev/null; done
SERVER_PORT="${SERVER_PORT:-$([ ${#loadgens[@]} -gt 0 ] && echo 8080 || echo 0)}"

state="$root/.tools/vps"
mkdir -p "$state"
stage="$(mktemp -d "$state/run-XXXXXX")"
run_id="$(basename "$stage")"
known_hosts="${SSH_KNOWN_HOSTS:-$state/known_hosts}"

# --- cleanup, however the run ends -----------------------------------------------------
key_comment="loom-lab-run-$run_id"
key_added=""
harness_pid=""
interrupted=""
sut_reached=""
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  [ -n "$harness_pid" ] && kill "$harness_pid" 2>/dev/null || true
  if [ -n "$sut_reached" ]; then
    # The run's key: out of every load generator's authorized_keys, off the SUT; its segments' folders too.
    # A host that cannot be reached for this is not asked again below: each ask would wait out the connect timeout.
    local unreached=" "
    for lg in "${loadgens[@]}"; do
      [ -n "$key_added" ] || break
      on_lg "$lg" "umask 077; f=~/.ssh/authorized_keys; if [ -f \"\$f\" ]; then grep -v ' $key_comment\$' \"\$f\" > \"\$f.loom\"; \
mv \"\$f.loom\" \"\$f\"; fi; rm -rf $REMOTE_DIR/segments/$run_id" 2>/dev/null && continue
      say "could not remove the run's key from $lg, nor see what runs there: delete the line ending '$key_comment' from its ~/.ssh/authorized_keys"
      unreached+="$lg "
    done
    on_sut "rm -rf $REMOTE_DIR/run/$run_id" 2>/dev/null || say "could not remove $REMOTE_DIR/run/$run_id (the run's key) from $sut_dest"
    # Nothing of the lab's may outlive the run on any host. (The bracket keeps pgrep from matching its own shell.)
    local pattern="[${REMOTE_DIR:0:1}]${REMOTE_DIR:1}/" target left
    for target in sut "${loadgens[@]}"; do
      [[ "$unreached" == *" $target "* ]] && continue
      local on=(on_lg "$target") name="$target"
      [ "$target" = sut ] && on=(on_sut) name="$sut_dest"
      left="$("${on[@]}" "pgrep -af '$pattern'" 2>/dev/null || true)"
      if [ -n "$left" ]; then
        say "left running on $name, stopping it now: $left"
        "${on[@]}" "pkill -TERM -f '$pattern'; sleep 5; pkill -KILL -f '$pattern'; true" || true
      fi
    done
  fi
  rm -rf "$stage"
  exit "$status"
}
trap cleanup EXIT
# A shell started in the background of a script that has no job control ignores SIGINT, and
# no trap can undo that: say how to stop the run then.
[ "$(trap -p INT)" = "trap -- '' SIGINT" ] && say "SIGINT is ignored here (started in the background?): stop the run with kill -TERM $$"
# While the harness runs, a signal here ends its SSH connection, and the hangup stops it there;
# its run folder (marked incomplete) still comes back. Before that, there is nothing to keep.
# A signal between starting the SSH connection and knowing its pid is acted on once it is known.
launching=""
trap 'interrupted=1; if [ -n "$harness_pid" ]; then kill "$harness_pid" 2>/dev/null; elif [ -z "$launching" ]; then say "interrupted"; exit 130; fi' INT TERM

# Key-only and non-interactive: a host that would ask for a password fails at once instead.
ssh_opts=(-o LogLevel=ERROR -o BatchMode=yes -o StrictHostKeyChecking=accept-new -o "UserKnownHostsFile=$known_hosts"
  -o ServerAliveInterval=5 -o ServerAliveCountMax=3 -o ConnectTimeout=15)
[ -n "${SSH_KEY:-}" ] && ssh_opts+=(-i "$SSH_KEY" -o IdentitiesOnly=yes)

on_sut() { ssh "${ssh_opts[@]}" -p "$sut_port" "$sut_dest" "$@"; }
# A load generator, reached through the SUT, as the harness there will reach it.
on_lg() {
  local dest port
  read -r dest port <<<"$(parse_host "$1")"
  shift
  ssh "${ssh_opts[@]}" -o "ProxyCommand=ssh $(printf '%q ' "${ssh_opts[@]}") -p $sut_port -W %h:%p $sut_dest" -p "$port" "$dest" "$@"
}
hosts_do() { # run $1 (a remote command) on the SUT and every load generator
  on_sut "$1"
  for lg in "${loadgens[@]}"; do on_lg "$lg" "$1"; done
}

# --- what this machine ships ---------------------------------------------------------
k6="$(setup/k6.sh)"
k6_version="$("$k6" version | awk '{print $2; exit}')"
harness_jdk="$(setup/jdk.sh 25)"
server_jdk="$(setup/jdk.sh "$JDK")"
jdk_name() { echo "jdk-$(sed -n 's/^JAVA_VERSION="\([^"]*\)"/\1/p' "$1/release")"; }
commit="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
dirty="$([ -n "$(git status --porcelain 2>/dev/null)" ] && echo --git-dirty || true)"
arch="$(uname -m)"

# --- 1. reach every host, and know what it is ----------------------------------------
describe='printf "%s %s %s %s\n" "$(uname -s)" "$(uname -m)" "$(id -u)" "$(nproc)"; . /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-unknown OS}"'
check_host() { # name, then the command that reaches it
  local name="$1" out kernel host_arch uid cpus os
  shift
  out="$("$@" "$describe" 2>"$stage/ssh-error")" \
    || die 2 "cannot reach $name over SSH with a key ($(tail -n 1 "$stage/ssh-error")); check the address, SSH_KEY, and that your public key is in its authorized_keys"
  read -r kernel host_arch uid cpus <<<"$(head -n 1 <<<"$out")"
  os="$(sed -n 2p <<<"$out")"
  [ "$kernel" = Linux ] || die 2 "$name runs $kernel; the lab needs Linux"
  [ "$host_arch" = "$arch" ] || die 2 "$name is $host_arch but this machine is $arch: the JDK and k6 it would ship do not run there"
  [ "$uid" = 0 ] || "$@" "sudo -n true" 2>/dev/null || die 2 "$name: log in as root, or give $name passwordless sudo (the host tuning needs it)"
  say "$name: $os, $cpus CPUs, $host_arch"
  echo "$name: $os, $cpus CPUs, $host_arch" >>"$stage/hosts.txt"
}
check_host "$sut_dest" on_sut
sut_reached=1
# Absolute on the SUT, as the harness changes into it; on load generators paths stay relative to the login's home.
rdir="$(on_sut "mkdir -p $REMOTE_DIR && cd $REMOTE_DIR && pwd")"
for lg in "${loadgens[@]}"; do check_host "load generator $lg" on_lg "$lg"; done

# --- 2. ship: the jars, the scripts, the JDK and k6 if a host lacks them -----------------
say "shipping the lab (commit ${commit:0:12}) to $sut_dest:$REMOTE_DIR"
mapfile -t server_jars < <(PYTHONPATH=analysis python3 -m labanalysis.folder.catalogue jars)
tar -cf - lab/target/lab.jar stub/target/stub.jar "${server_jars[@]}" loadtests infra/tune-host.sh infra/host-limits.conf \
  | on_sut "rm -rf $rdir/lab && mkdir -p $rdir/lab $rdir/results && tar -C $rdir/lab -xf -"
for lg in "${loadgens[@]}"; do
  tar -cf - infra/tune-host.sh infra/host-limits.conf | on_lg "$lg" "mkdir -p $REMOTE_DIR/lab && tar -C $REMOTE_DIR/lab -xf -"
done

ship_jdk() { # a JDK home, to the SUT's jdk/<name>/ unless it is there already
  local home="$1" name
  name="$(jdk_name "$home")"
  if on_sut "test -x $rdir/jdk/$name/bin/java"; then return; fi
  say "shipping $name ($(du -sh "$home" | cut -f1)) to $sut_dest"
  tar -C "$(dirname "$home")" -cf - "$(basename "$home")" | gzip -1 \
    | on_sut "rm -rf $rdir/jdk/$name.part && mkdir -p $rdir/jdk/$name.part && tar -xzf - -C $rdir/jdk/$name.part \
        && mv $rdir/jdk/$name.part/* $rdir/jdk/$name && rmdir $rdir/jdk/$name.part"
}
ship_jdk "$harness_jdk"
[ "$server_jdk" = "$harness_jdk" ] || ship_jdk "$server_jdk"

remote_k6="$REMOTE_DIR/bin/k6-$k6_version"
ship_k6() { # "$@": the command that reaches the host
  if "$@" "test -x $remote_k6"; then return; fi
  say "shipping k6 $k6_version"
  gzip -1 <"$k6" | "$@" "mkdir -p $REMOTE_DIR/bin && gunzip > $remote_k6.part && chmod +x $remote_k6.part && mv $remote_k6.part $remote_k6"
}
ship_k6 on_sut
for lg in "${loadgens[@]}"; do ship_k6 on_lg "$lg"; done

# --- 3. host tuning, and where each host stands ----------------------------------------
tune="cd $REMOTE_DIR/lab && \$( [ \"\$(id -u)\" = 0 ] || echo sudo -n ) infra/tune-host.sh"
mkdir -p "$stage/hosts"
tune_host() { # name, then the command that reaches it
  local name="$1"
  shift
  say "tuning $name (infra/tune-host.sh)"
  "$@" "$tune" >"$stage/hosts/$name-tuning.txt" 2>&1 || say "tuning $name reported problems; see hosts/$name-tuning.txt"
  "$@" "cd $REMOTE_DIR/lab && infra/tune-host.sh --check" >"$stage/hosts/$name-limits.txt" 2>&1 || true
  # Its addresses, and what shapes what it sends (a cloud's qdisc, or a rehearsal's netem delay).
  "$@" "ip -brief address; tc qdisc show" >"$stage/hosts/$name-network.txt" 2>&1 || true
}
tune_host sut on_sut
for i in "${!loadgens[@]}"; do tune_host "loadgen-$i" on_lg "${loadgens[$i]}"; done

# --- 4. the run's key for the load generators -------------------------------------------
harness_args=(--profile "$PROFILE" --servers "$SERVERS" --pin-threshold-ms "$PIN_THRESHOLD_MS" --server-port "$SERVER_PORT"
  --server-jdk "$rdir/jdk/$(jdk_name "$server_jdk")" --k6 "$rdir/bin/k6-$k6_version" --repo . --results ../results --git-commit "$commit")
[ -n "$dirty" ] && harness_args+=("$dirty")
# For the tests of stopping only: the first pass holds in this phase until the run is stopped.
[ -n "${LAB_HOLD_IN:-}" ] && harness_args+=(--hold-in "$LAB_HOLD_IN")
if [ ${#loadgens[@]} -gt 0 ]; then
  # The address the SUT sends from toward the load generators: the servers listen there and nowhere else public.
  first="$(parse_host "${loadgens[0]}" | cut -d' ' -f1)"
  bind="$(on_sut "ip -o route get \$(getent ahostsv4 ${first#*@} | awk '{print \$1; exit}')" | sed -n 's/.* src \([0-9.]*\).*/\1/p')"
  [ -n "$bind" ] || die 2 "$sut_dest has no route to ${first#*@}; LOADGEN takes the addresses the SUT reaches the load generators by"
  ssh-keygen -q -t ed25519 -N '' -C "$key_comment" -f "$stage/run-key"
  # In the run folder, so that a key a failed cleanup left behind can be found by its comment.
  echo "$key_comment" >"$stage/hosts/run-key-comment.txt"
  # Only from the SUT, no agent or X11; a terminal (k6's leash) and port forwarding (k6's REST API) allowed.
  entry="from=\"$bind\",restrict,pty,port-forwarding $(cat "$stage/run-key.pub")"
  for lg in "${loadgens[@]}"; do
    key_added=1
    on_lg "$lg" "umask 077 && mkdir -p ~/.ssh && echo '$entry' >> ~/.ssh/authorized_keys"
  done
  on_sut "umask 077 && mkdir -p $rdir/run/$run_id && cat > $rdir/run/$run_id/key" <"$stage/run-key"
  harness_args+=(--bind "$bind" --loadgen-key "../run/$run_id/key" --known-hosts "../run/$run_id/known_hosts"
    --loadgen-k6 "$remote_k6" --loadgen-dir "$REMOTE_DIR/segments/$run_id")
  for lg in "${loadgens[@]}"; do harness_args+=(--loadgen "$lg"); done
  say "load: ${#loadgens[@]} load generator(s), one k6 execution segment each; servers listen on $bind:$SERVER_PORT"
else
  say "load: k6 on $sut_dest itself, sharing its CPU with the servers (give LOADGEN=... for separate load generators)"
fi

# --- 5. the run ---------------------------------------------------------------------------
# In a terminal (-tt): when this connection ends, for any reason, the hangup stops the harness,
# which marks its run folder incomplete and stops the servers and k6 it started. That is how
# Ctrl-C reaches it too: the trap above ends the connection (no keystroke is forwarded: stdin is
# /dev/null).
previous="$(on_sut "readlink $rdir/results/latest" 2>/dev/null || true)"
command="cd $rdir/lab && ulimit -n \"\$(ulimit -Hn)\" && exec $rdir/jdk/$(jdk_name "$harness_jdk")/bin/java \
--enable-native-access=ALL-UNNAMED -jar lab/target/lab.jar $(printf '%q ' "${harness_args[@]}")"
say "running the bench on $sut_dest: profile $PROFILE, servers $SERVERS"
set +e
launching=1
ssh -tt "${ssh_opts[@]}" -p "$sut_port" "$sut_dest" "$command" > >(tr -d '\r' | tee "$stage/harness.log") </dev/null &
harness_pid=$!
launching=""
[ -n "$interrupted" ] && kill "$harness_pid" 2>/dev/null
wait "$harness_pid"
status=$?
# A trapped signal ends the wait early; the connection ends soon after the trap's kill.
while kill -0 "$harness_pid" 2>/dev/null; do wait "$harness_pid"; done
harness_pid=""
set -e
[ -n "$interrupted" ] && status=130
case "$status" in
  0 | 1) ;;
  130) say "interrupted: the harness on $sut_dest is stopping and marks its run folder incomplete" ;;
  2 | 3) die "$status" "the harness on $sut_dest refused the run (above); nothing ran" ;;
  255) say "lost the SSH connection to $sut_dest: the harness there stops when its terminal hangs up and marks its run folder incomplete"
       status=1 ;;
  *) say "the harness on $sut_dest ended with code $status"; status=1 ;;
esac

# --- 6. bring the run folder back, and render its report here --------------------------------
# A hung-up harness needs a few seconds to stop its servers and write its manifest.
for _ in $(seq 60); do
  on_sut "pgrep -f '[l]ab/target/lab.jar --profile' >/dev/null" 2>/dev/null || break
  sleep 1
done
name="$(on_sut "readlink $rdir/results/latest" 2>/dev/null || true)"
if [ -z "$name" ] || [ "$name" = "$previous" ]; then
  die 1 "no run folder came back from $sut_dest (see the harness's output above)"
fi
mkdir -p "$RESULTS_DIR"
on_sut "tar -C $rdir/results -cf - $name" | tar -C "$RESULTS_DIR" -xf -
cp -r "$stage/hosts" "$RESULTS_DIR/$name/hosts"
cp "$stage/hosts.txt" "$RESULTS_DIR/$name/hosts/hosts.txt"
cp "$stage/harness.log" "$RESULTS_DIR/$name/harness.log"
ln -sfn "$name" "$RESULTS_DIR/latest"
say "run folder: $RESULTS_DIR/$name"
make --no-print-directory report RUN="$RESULTS_DIR/$name" || say "the report did not render; the run folder is intact"
exit "$status"
