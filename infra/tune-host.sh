#!/usr/bin/env bash
# Raises this host's limits to the targets in host-limits.conf (next to this script), the one
# declared list of what a 50,000-socket run needs. Nothing is ever lowered; a second run
# changes nothing.
#
#   sudo infra/tune-host.sh      apply, then print where the host stands
#   infra/tune-host.sh --check   change nothing; exit 0 when every limit is met, 1 when not
#
# TUNE_HOST_ROOT prefixes every file written (tests point it at a temporary folder);
# sysctl -w still acts on the running kernel.
set -euo pipefail

conf="$(dirname "$0")/host-limits.conf"
root="${TUNE_HOST_ROOT:-}"
dropin=90-loom-lab.conf

die() { echo "tune-host.sh: $*" >&2; exit 2; }

mode=apply
case "$#:${1:-}" in
  0:) ;;
  1:--check) mode=check ;;
  1:-h | 1:--help) sed -n '2,10p' "$0" | cut -c3-; exit 0 ;;
  *) die "unknown arguments '$*': run infra/tune-host.sh --check to see the limits, sudo infra/tune-host.sh to raise them" ;;
esac

# --- the declared list ------------------------------------------------------------------------
[ -r "$conf" ] || die "cannot read $conf: it belongs next to this script"
names=()
declare -A target
n=0
while IFS= read -r line || [ -n "$line" ]; do
  n=$((n + 1))
  [[ "$line" =~ ^[[:space:]]*(#|$) ]] && continue
  [[ "$line" =~ ^([a-z0-9_.-]+)=([0-9]+|[0-9]+\ [0-9]+|infinity)$ ]] \
    || die "$conf line $n: expected name=value (a number, two numbers, or infinity), got '$line'"
  case "${BASH_REMATCH[1]}" in
    nofile | tasks | *.*) ;;
    *) die "$conf line $n: '${BASH_REMATCH[1]}' is neither nofile, tasks nor a sysctl" ;;
  esac
  names+=("${BASH_REMATCH[1]}")
  target[${BASH_REMATCH[1]}]="${BASH_REMATCH[2]}"
done <"$conf"

# --- reading the host -------------------------------------------------------------------------
# The mount point and mount root of the cgroup hierarchy of type $1 (cgroup, cgroup2) whose
# super options hold $2 (empty: any).
cgroup_mount() {
  awk -v type="$1" -v opt="$2" '{
    split($0, halves, " - "); split(halves[2], after, " ")
    if (after[1] == type && (opt == "" || index("," after[3] ",", "," opt ","))) { print $5, $4; exit }
  }' /proc/self/mountinfo
}

# systemd's TasksMax is a pids.max somewhere above this process, in the slice or the service,
# so the limit in force is the lowest pids.max from its cgroup up to the hierarchy's root.
tasks_limit() {
  local mount mount_root rel dir lowest=infinity value
  rel="$(awk -F: '$2 ~ /(^|,)pids(,|$)/ { sub(/^[^:]*:[^:]*:/, ""); print; exit }' /proc/self/cgroup)"
  read -r mount mount_root <<<"$(cgroup_mount cgroup pids)"
  if [ -z "$rel" ] || [ -z "$mount" ]; then
    rel="$(awk -F: '$1 == "0" { sub(/^0::/, ""); print; exit }' /proc/self/cgroup)"
    read -r mount mount_root <<<"$(cgroup_mount cgroup2 "")"
    if [ -z "$mount" ] || ! grep -qw pids "$mount/cgroup.controllers" 2>/dev/null; then
      echo "no limit (no pids cgroup)"
      return
    fi
  fi
  [ "$mount_root" = / ] || rel="${rel#"$mount_root"}"
  dir="${mount%/}${rel%/}"
  while [ "${#dir}" -ge "${#mount}" ]; do
    if value="$(cat "$dir/pids.max" 2>/dev/null)" && [ "$value" != max ]; then
      if [ "$lowest" = infinity ] || [ "$value" -lt "$lowest" ]; then lowest="$value"; fi
    fi
    dir="${dir%/*}"
  done
  echo "$lowest"
}

current() {
  case "$1" in
    nofile) ulimit -Hn ;;
    tasks) tasks_limit ;;
    *) tr -s ' \t' '  ' 2>/dev/null <"/proc/sys/${1//.//}" || echo unavailable ;;
  esac
}

# Whether value $1 meets target $2: a number at least as high, a port range at least as wide.
meets() {
  local have="$1" want="$2" have_first have_last want_first want_last
  if [[ "$want" == *" "* ]]; then
    read -r have_first have_last <<<"$have"
    read -r want_first want_last <<<"$want"
    [[ "$have_first" =~ ^[0-9]+$ && "$have_last" =~ ^[0-9]+$ ]] || return 1
    [ "$have_first" -le "$want_first" ] && [ "$have_last" -ge "$want_last" ]
    return
  fi
  case "$have" in infinity | unlimited | "no limit"*) return 0 ;; esac
  [ "$want" != infinity ] && [[ "$have" =~ ^[0-9]+$ ]] && [ "$have" -ge "$want" ]
}

# What to set for target $2 when the host has $1: the target, never below what the host has.
raised() {
  local have="$1" want="$2" have_first have_last want_first want_last
  if [[ "$want" == *" "* ]]; then
    read -r have_first have_last <<<"$have"
    read -r want_first want_last <<<"$want"
    if [[ "$have_first" =~ ^[0-9]+$ && "$have_last" =~ ^[0-9]+$ ]]; then
      echo "$((have_first < want_first ? have_first : want_first)) $((have_last > want_last ? have_last : want_last))"
    else
      echo "$want"
    fi
  elif [[ "$have" =~ ^[0-9]+$ ]] && [ "$have" -gt "$want" ]; then
    echo "$have"
  else
    echo "$want"
  fi
}

check() {
  local name have status low=0 rows=() w_name=5 w_have=7 w_want=6 i
  for name in "${names[@]}"; do
    have="$(current "$name")"
    if meets "$have" "${target[$name]}"; then status=ok; else status=LOW low=$((low + 1)); fi
    rows+=("$name" "$have" "${target[$name]}" "$status")
    [ "${#name}" -le "$w_name" ] || w_name="${#name}"
    [ "${#have}" -le "$w_have" ] || w_have="${#have}"
    [ "${#target[$name]}" -le "$w_want" ] || w_want="${#target[$name]}"
  done
  printf "%-${w_name}s  %-${w_have}s  %-${w_want}s  %s\n" limit current target status
  for ((i = 0; i < ${#rows[@]}; i += 4)); do
    printf "%-${w_name}s  %-${w_have}s  %-${w_want}s  %s\n" "${rows[@]:i:4}"
  done
  if [ "$low" -gt 0 ]; then
    echo "$low limit(s) below target: run sudo infra/tune-host.sh"
    return 1
  fi
  echo "all ${#names[@]} limits at or above target"
}

if [ "$mode" = check ]; then
  check && exit 0 || exit 1
fi

# --- apply ----------------------------------------------------------------------------------
[ "$(id -u)" = 0 ] || die "run it as root: sudo infra/tune-host.sh"
write_failed=""
wrote=""

# Writes $2 to $1 (under TUNE_HOST_ROOT) unless the file holds exactly that already.
write_file() {
  local path="$root$1" err
  if [ -f "$path" ] && printf '%s' "$2" | cmp -s - "$path"; then
    echo "$path already up to date"
  elif err="$({ mkdir -p "$(dirname "$path")" && printf '%s' "$2" >"$path.tmp" && chmod 644 "$path.tmp" \
    && mv "$path.tmp" "$path"; } 2>&1)"; then
    echo "wrote $path"
    wrote=1
  else
    echo "could not write $path: ${err##*$'\n'}"
    write_failed=1
  fi
}

header="# Written by infra/tune-host.sh from infra/host-limits.conf; its next run rewrites this file."
sysctl_file="$header"$'\n'"# Each value is the target, or the host's own where that was higher already."$'\n'
for name in "${names[@]}"; do
  case "$name" in nofile | tasks) continue ;; esac
  have="$(current "$name")"
  value="$(raised "$have" "${target[$name]}")"
  # The boot-time file holds the raised value too, so a reboot neither loses nor lowers it.
  sysctl_file+="$name = $value"$'\n'
  if meets "$have" "${target[$name]}"; then
    echo "$name already $have"
  elif ! err="$(sysctl -q -w "$name=$value" 2>&1)"; then
    err="${err##*$'\n'}"
    echo "could not set $name to $value: ${err#sysctl: }"
  elif ! meets "$(current "$name")" "${target[$name]}"; then
    echo "could not set $name to $value: the kernel kept $(current "$name")"
  else
    echo "set $name to $value (was $have)"
  fi
done
write_file "/etc/sysctl.d/$dropin" "$sysctl_file"

nofile="${target[nofile]:-}"
tasks="${target[tasks]:-}"
if [ -n "$nofile" ]; then
  nr_open="$(current fs.nr_open)"
  if ! meets "$nr_open" "$nofile"; then
    # pam_limits fails a login whose hard limit it cannot set, which would lock SSH out.
    echo "could not set nofile to $nofile: fs.nr_open is $nr_open, and a higher hard limit would refuse logins"
    nofile=""
  else
    write_file "/etc/security/limits.d/$dropin" "$header
# '*' does not cover root, so root has its own lines.
*    soft nofile $nofile
*    hard nofile $nofile
root soft nofile $nofile
root hard nofile $nofile
"
    meets "$(ulimit -Hn)" "$nofile" || echo "nofile: new logins get $nofile; this session keeps $(ulimit -Hn)"
  fi
fi

# Services and logins under systemd take their limits from systemd, not from limits.d alone.
if [ -d /run/systemd/system ]; then
  wrote=""
  manager="$header"$'\n'"[Manager]"$'\n'
  [ -z "$nofile" ] || manager+="DefaultLimitNOFILE=$nofile"$'\n'
  [ -z "$tasks" ] || manager+="DefaultTasksMax=$tasks"$'\n'
  write_file "/etc/systemd/system.conf.d/$dropin" "$manager"
  [ -z "$tasks" ] || write_file "/etc/systemd/system/user-.slice.d/$dropin" "$header
[Slice]
TasksMax=$tasks
"
  if [ -n "$wrote" ]; then
    if err="$(systemctl daemon-reload 2>&1)"; then
      echo "reloaded systemd (systemctl daemon-reload)"
    else
      echo "could not reload systemd: ${err##*$'\n'}"
    fi
  fi
else
  echo "systemd is not running here: no systemd drop-ins needed"
fi

echo
check || true
[ -z "$write_failed" ] || exit 1
