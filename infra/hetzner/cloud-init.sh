#!/usr/bin/env bash
# Prints the cloud-config (user data) for a fresh Ubuntu 24.04 Hetzner host of ROLE:
#
#   [SERVER_PORT=8080] [PRIVATE_NET=10.0.0.0/16] infra/hetzner/cloud-init.sh sut|loadgen
#
# The host gets infra/tune-host.sh and infra/host-limits.conf, copied from this checkout as
# they are (one source for the limits), runs the tuning once, allows key-only SSH, and
# drops every inbound packet it has no reason to take. It carries no secrets: the SSH key
# comes from `hcloud server create --ssh-key`, and the lab ships its own JDK at run time.
set -euo pipefail

infra="$(cd "$(dirname "$0")/.." && pwd)"
fail() { echo "cloud-init.sh: $*" >&2; exit 2; }

[ $# -eq 1 ] && [[ "$1" =~ ^(sut|loadgen)$ ]] \
  || fail "ROLE must be sut or loadgen (got '$*'): infra/hetzner/cloud-init.sh sut > user-data.yaml"
role="$1"
port="${SERVER_PORT:-8080}"
net="${PRIVATE_NET:-10.0.0.0/16}"
[[ "$port" =~ ^[0-9]{1,5}$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] \
  || fail "SERVER_PORT must be a TCP port, 1-65535 (got '$port')"
[[ "$net" =~ ^([0-9]{1,3}\.){3}[0-9]{1,3}/[0-9]{1,2}$ ]] \
  || fail "PRIVATE_NET must be an IPv4 network such as 10.0.0.0/16 (got '$net')"
for file in "$infra/tune-host.sh" "$infra/host-limits.conf"; do
  [[ "$(head -c 1 "$file")" != [[:space:]] ]] || fail "$file starts with whitespace, which a YAML literal block cannot carry"
done

# A write_files entry holding a file byte for byte: a literal block whose chomping indicator
# keeps the file's trailing newlines exactly ('+' all of them, '-' none). Printed directly,
# because a command substitution would drop trailing blank lines.
embed() {
  local file="$1" path="$2" mode="$3" chomp=+
  [ -z "$(tail -c 1 "$file")" ] || chomp=-
  printf '  - path: %s\n    permissions: "%s"\n    content: |%s\n' "$path" "$mode" "$chomp"
  sed '/./s/^/      /' "$file"
  [ "$chomp" = + ] || echo
}

if [ "$role" = sut ]; then
  allowed="# Public SSH; the Hetzner cloud firewall narrows it to the user's address.
tcp dport 22 accept
# The servers under test, for the load generators only: they are not a public service.
ip saddr $net tcp dport $port accept"
else
  allowed="# The harness on the SUT reaches this host over the private network; the user comes
# through the SUT (ssh ProxyJump), so there is no public SSH at all.
ip saddr $net tcp dport 22 accept"
fi

cat <<EOF
#cloud-config
# loom-lab $role host, made by infra/hetzner/cloud-init.sh (see infra/hetzner/README.md).

# Root logs in, as make bench-vps expects, but only with the key hcloud injected.
disable_root: false
ssh_pwauth: false

package_update: true
packages:
  - nftables

write_files:
EOF
embed "$infra/tune-host.sh" /opt/loom-lab/infra/tune-host.sh 0755
embed "$infra/host-limits.conf" /opt/loom-lab/infra/host-limits.conf 0644
cat <<EOF
  # sshd takes the first value it reads for each keyword, so this file sorts before the image's.
  - path: /etc/ssh/sshd_config.d/01-loom-lab.conf
    permissions: "0644"
    content: |
      PasswordAuthentication no
      KbdInteractiveAuthentication no
      PermitRootLogin prohibit-password
      # A dead peer (or a lost run) is noticed within a minute, not hours.
      ClientAliveInterval 15
      ClientAliveCountMax 4
  # Deferred until the nftables package is installed, so its own default file does not replace it.
  - path: /etc/nftables.conf
    permissions: "0644"
    defer: true
    content: |
      #!/usr/sbin/nft -f
      flush ruleset

      table inet loom_lab {
        chain input {
          type filter hook input priority filter; policy drop;
          ct state established,related accept
          iif "lo" accept
          # Without neighbour discovery the host loses its IPv6 connectivity.
          icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, nd-router-advert } accept
$(sed 's/^/          /' <<<"$allowed")
        }
      }

runcmd:
  # Restart, not start: a running nftables would keep its old rules.
  - [systemctl, enable, nftables.service]
  - [systemctl, restart, nftables.service]
  - [sh, -c, "sshd -t && systemctl try-reload-or-restart ssh.service"]
  - [/opt/loom-lab/infra/tune-host.sh]
EOF
