#!/usr/bin/env bash
# A rehearsal of make bench-vps's hosts on this machine, in network namespaces of its own:
#
#   [REHEARSAL=loomlab] [DELAY_US=300] [JITTER_US=100] [PUBLIC_DELAY_US=10000] infra/rehearsal.sh up|down|status
#
# Three "hosts" (sut, lg1, lg2), each with its own sshd, host key and root home, on two bridges:
# a private network (198.18.0.0/24, where the load travels) and a public one (198.19.0.0/24),
# and a fourth namespace, user, that plays the user's machine on the internet and has only
# the public network. The addresses are RFC 2544's benchmark range, never a private range a
# real network uses. The bridges live in a namespace of their own (net), so no interface of the
# rehearsal is in this machine's namespace and no packet is routed out of it.
#
# The private network delays each load generator's packets by DELAY_US ± JITTER_US each way
# (tc netem, a normal distribution; a rate keeps netem from reordering): on what it sends, and on
# the bridge's port toward it. So the server host is 2 × DELAY_US from each on a round trip, as
# on a cloud's private network, and no delay sits in the server host's own queues, where its
# wire capture would count it as the server's. Each host's public side delays what it sends by
# PUBLIC_DELAY_US, the user's too, so the user is 2 × PUBLIC_DELAY_US from each. A kernel
# without netem (CONFIG_NET_SCH_NETEM) gets no delay, and rehearsal.json says so; asking for a
# delay there is refused. Each host
# applies the nftables rules infra/hetzner/cloud-init.sh writes for its role, read out of that
# file's output, not copied, so the rehearsal runs the rules that ship.
#
# `up` prints, one a line, what make bench-vps takes (and writes it to the state folder's
# rehearsal.env): the namespace to run it in, HOST, LOADGEN, SSH_KEY and SSH_KNOWN_HOSTS.
# `down` stops every process in the namespaces and removes everything `up` made.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
fail() { echo "infra/rehearsal.sh: $*" >&2; exit 2; }

name="${REHEARSAL:-loomlab}"
[[ "$name" =~ ^[a-z][a-z0-9]{0,11}$ ]] || fail "REHEARSAL must be a lowercase letter then up to 11 letters or digits (got '$name')"
asked_delay="${DELAY_US:-}${JITTER_US:-}${PUBLIC_DELAY_US:-}"
delay_us="${DELAY_US:-300}"
jitter_us="${JITTER_US:-100}"
public_delay_us="${PUBLIC_DELAY_US:-10000}"
for value in "$delay_us" "$jitter_us" "$public_delay_us"; do
  [[ "$value" =~ ^[0-9]{1,6}$ ]] || fail "DELAY_US, JITTER_US and PUBLIC_DELAY_US are whole microseconds (got '$value')"
done
server_port="${SERVER_PORT:-8080}"
state="$root/.tools/rehearsal/$name"
hosts=(sut lg1 lg2)
private_net=198.18.0.0/24
public_net=198.19.0.0/24
declare -A number=([sut]=10 [lg1]=11 [lg2]=12)
private() { echo "198.18.0.${number[$1]}"; }
public() { echo "198.19.0.${number[$1]}"; }
user_address=198.19.0.2

ns() { echo "$name-$1"; }
in_ns() { local where="$1"; shift; ip netns exec "$(ns "$where")" "$@"; }
exists() { ip netns list | awk '{print $1}' | grep -qx "$(ns "$1")"; }

# The /etc/nftables.conf that infra/hetzner/cloud-init.sh writes for a role: the literal block
# under its `path: /etc/nftables.conf` entry, its six spaces of indentation taken off.
shipped_rules() {
  SERVER_PORT="$server_port" PRIVATE_NET="$private_net" "$root/infra/hetzner/cloud-init.sh" "$1" | awk '
    /^  - path: / { inside = ($3 == "/etc/nftables.conf"); next }
    inside && /^    content: \|/ { block = 1; next }
    block && (/^      / || /^$/) { sub(/^      /, ""); print; next }
    block { exit }'
}

# One veth pair: $1's end named $2 in its namespace, the other end plugged into bridge $3 of net.
plug() {
  local host="$1" interface="$2" bridge="$3"
  ip link add "$interface" netns "$(ns "$host")" type veth peer name "$host-$interface" netns "$(ns net)"
  in_ns net ip link set "$host-$interface" master "$bridge" up
  in_ns "$host" ip link set "$interface" up
}

# Whether this kernel has tc's netem: some build it out (a Firecracker guest's, for one).
netem_works() { in_ns net tc qdisc add dev lo root netem delay 1us 2>/dev/null && in_ns net tc qdisc del dev lo root; }

# One-way delay on what leaves namespace $1 by interface $2; a rate makes netem send in order despite the jitter.
delay() {
  local where="$1" interface="$2" us="$3" jitter="$4"
  [ "$netem" = true ] || return 0
  local spread=()
  [ "$jitter" = 0 ] || spread=("${jitter}us" distribution normal)
  in_ns "$where" tc qdisc add dev "$interface" root netem delay "${us}us" "${spread[@]}" rate 10gbit
}

undo_on_failure() {
  local status=$?
  [ "$status" = 0 ] || down >/dev/null 2>&1
  exit "$status"
}

up() {
  command -v nft >/dev/null || fail "nft is missing: run setup/test-hosts.sh as root (it installs nftables)"
  [ -x /usr/sbin/sshd ] || fail "/usr/sbin/sshd is missing: run setup/test-hosts.sh as root (it installs openssh-server)"
  [ "$(id -u)" = 0 ] || fail "network namespaces need root"
  for n in net user "${hosts[@]}"; do
    exists "$n" && fail "$(ns "$n") exists already: a rehearsal is up (infra/rehearsal.sh down ends it)"
  done
  # A failure half-way leaves nothing behind.
  trap undo_on_failure EXIT
  mkdir -p "$state"
  for n in net user "${hosts[@]}"; do
    ip netns add "$(ns "$n")"
    in_ns "$n" ip link set lo up
  done
  netem=true
  netem_works || netem=false
  if [ "$netem" = false ]; then
    [ -z "$asked_delay" ] || fail "this kernel has no tc netem (CONFIG_NET_SCH_NETEM is not set), so no delay can be made: unset DELAY_US, JITTER_US and PUBLIC_DELAY_US to rehearse without one"
    delay_us=0 jitter_us=0 public_delay_us=0
    echo "infra/rehearsal.sh: this kernel has no tc netem (CONFIG_NET_SCH_NETEM is not set): the hosts are rehearsed without a delay between them" >&2
  fi
  in_ns net ip link add private type bridge
  in_ns net ip link add public type bridge
  in_ns net ip link set private up
  in_ns net ip link set public up

  plug user pub public
  in_ns user ip addr add "$user_address/24" dev pub
  delay user pub "$public_delay_us" 0
  ssh-keygen -q -t ed25519 -N '' -C "rehearsal-user" -f "$state/user_key" <<<y >/dev/null
  : >"$state/known_hosts"
  mkdir -p /run/sshd # sshd's privilege-separation directory
  for host in "${hosts[@]}"; do
    plug "$host" priv private
    plug "$host" pub public
    in_ns "$host" ip addr add "$(private "$host")/24" dev priv
    in_ns "$host" ip addr add "$(public "$host")/24" dev pub
    if [ "$host" != sut ]; then
      delay "$host" priv "$delay_us" "$jitter_us"
      delay net "$host-priv" "$delay_us" "$jitter_us"
    fi
    delay "$host" pub "$public_delay_us" 0
    shipped_rules "$([ "$host" = sut ] && echo sut || echo loadgen)" >"$state/$host.nft"
    in_ns "$host" nft -f "$state/$host.nft"

    # Root's home on this host is its own: sshd runs in a mount namespace of its own, where a
    # passwd that says so is mounted over /etc/passwd, for it and every login it makes.
    local home="$state/$host/root"
    mkdir -p "$home/.ssh"
    chmod 700 "$home" "$home/.ssh"
    cp "$state/user_key.pub" "$home/.ssh/authorized_keys"
    chmod 600 "$home/.ssh/authorized_keys"
    awk -F: -v OFS=: -v home="$home" '$1 == "root" { $6 = home } { print }' /etc/passwd >"$state/$host/passwd"
    ssh-keygen -q -t ed25519 -N '' -f "$state/$host/host_key" <<<y >/dev/null
    cat >"$state/$host/sshd_config" <<EOF
Port 22
HostKey $state/$host/host_key
PidFile $state/$host/sshd.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
AllowTcpForwarding yes
PermitTTY yes
MaxStartups 100
MaxSessions 100
ClientAliveInterval 15
ClientAliveCountMax 4
EOF
    # nsenter, not `ip netns exec`: that would also mount a sysfs of the namespace's own over
    # /sys, and so hide this machine's cgroup hierarchies (the harness's CPU budget) from the host.
    nsenter --net="/run/netns/$(ns "$host")" unshare --mount --propagation private \
      sh -c 'mount --bind "$1" /etc/passwd && exec /usr/sbin/sshd -f "$2" -E "$3"' sh \
      "$state/$host/passwd" "$state/$host/sshd_config" "$state/$host/sshd.log"
    # The user knows each host's key as hcloud's console would show it.
    echo "$(public "$host") $(cat "$state/$host/host_key.pub")" >>"$state/known_hosts"
    echo "$(private "$host") $(cat "$state/$host/host_key.pub")" >>"$state/known_hosts"
  done
  cat >"$state/rehearsal.json" <<EOF
{"name": "$name", "privateNet": "$private_net", "publicNet": "$public_net",
 "hosts": {"sut": {"private": "$(private sut)", "public": "$(public sut)"},
           "lg1": {"private": "$(private lg1)", "public": "$(public lg1)"},
           "lg2": {"private": "$(private lg2)", "public": "$(public lg2)"},
           "user": {"public": "$user_address"}},
 "netem": $netem, "privateDelayUs": $delay_us, "privateJitterUs": $jitter_us, "publicDelayUs": $public_delay_us,
 "serverPort": $server_port}
EOF
  cat >"$state/rehearsal.env" <<EOF
NAMESPACE=$(ns user)
HOST=root@$(public sut)
LOADGEN=root@$(private lg1),root@$(private lg2)
SSH_KEY=$state/user_key
SSH_KNOWN_HOSTS=$state/known_hosts
EOF
  cat "$state/rehearsal.env"
}

down() {
  local n pids
  for n in user "${hosts[@]}" net; do
    exists "$n" || continue
    pids="$(ip netns pids "$(ns "$n")")"
    # shellcheck disable=SC2086 # one pid a word
    [ -z "$pids" ] || kill -TERM $pids 2>/dev/null || true
  done
  for n in user "${hosts[@]}" net; do
    exists "$n" || continue
    for _ in $(seq 50); do [ -z "$(ip netns pids "$(ns "$n")")" ] && break; sleep 0.1; done
    pids="$(ip netns pids "$(ns "$n")")"
    # shellcheck disable=SC2086
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
    # Deleting a namespace deletes its interfaces, and with them the other ends of their pairs.
    ip netns delete "$(ns "$n")"
  done
  rm -rf "$state"
}

status() {
  local n
  for n in net user "${hosts[@]}"; do
    if exists "$n"; then echo "$(ns "$n"): up, processes: $(ip netns pids "$(ns "$n")" | paste -sd' ' -)"; else echo "$(ns "$n"): not up"; fi
  done
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  *) fail "say up, down or status: infra/rehearsal.sh up" ;;
esac
