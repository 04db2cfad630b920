"""infra/hetzner/cloud-init.sh: the user data of a fresh Hetzner host, for the SUT or a load generator.

What cloud-init then does on a real Ubuntu host is not run here; the config is held to
Debian's cloud-init schema and read back as YAML.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

INFRA = Path(__file__).resolve().parents[1]
SCRIPT = INFRA / "hetzner/cloud-init.sh"
ROLES = ["sut", "loadgen"]


def generate(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, env={**os.environ, **env})


def parse(text: str) -> dict:
    """The YAML as data: with PyYAML here, or else with Debian's (cloud-init depends on it)."""
    try:
        import yaml
    except ImportError:
        loader = "import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))"
        result = subprocess.run(["/usr/bin/python3", "-c", loader], input=text, capture_output=True, text=True)
        if result.returncode != 0:
            pytest.skip(f"no PyYAML in this environment or in /usr/bin/python3: {result.stderr.strip()}")
        return json.loads(result.stdout)
    return yaml.safe_load(text)


def config(role: str, **env: str) -> dict:
    result = generate(role, **env)
    assert result.returncode == 0, result.stderr
    return parse(result.stdout)


def written(role: str, **env: str) -> dict[str, dict]:
    return {entry["path"]: entry for entry in config(role, **env)["write_files"]}


def firewall(role: str, **env: str) -> list[str]:
    return [line.strip() for line in written(role, **env)["/etc/nftables.conf"]["content"].splitlines()]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.skipif(shutil.which("cloud-init") is None, reason="needs Debian's cloud-init for its schema check")
def test_the_config_passes_cloud_inits_schema(role, tmp_path):
    user_data = tmp_path / f"{role}.yaml"
    user_data.write_text(generate(role).stdout)

    result = subprocess.run(["cloud-init", "schema", "--config-file", str(user_data)], capture_output=True, text=True)

    assert user_data.read_text().startswith("#cloud-config\n")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("role", ROLES)
def test_the_host_gets_the_tuning_byte_for_byte_and_runs_it(role):
    files = written(role)

    assert files["/opt/loom-lab/infra/tune-host.sh"]["content"] == (INFRA / "tune-host.sh").read_text()
    assert files["/opt/loom-lab/infra/tune-host.sh"]["permissions"] == "0755"
    assert files["/opt/loom-lab/infra/host-limits.conf"]["content"] == (INFRA / "host-limits.conf").read_text()
    assert ["/opt/loom-lab/infra/tune-host.sh"] in config(role)["runcmd"]


@pytest.mark.parametrize("role", ROLES)
def test_ssh_takes_keys_only_and_the_config_holds_no_secret(role):
    data = config(role)
    text = generate(role).stdout
    sshd = written(role)["/etc/ssh/sshd_config.d/01-loom-lab.conf"]["content"].splitlines()

    assert data["ssh_pwauth"] is False and data["disable_root"] is False
    for setting in (
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "PermitRootLogin prohibit-password",
        "ClientAliveInterval 15",
        "ClientAliveCountMax 4",
    ):
        assert setting in sshd
    assert not {"users", "ssh_authorized_keys", "chpasswd", "password"} & set(data)
    assert "PRIVATE KEY" not in text and "ssh-ed25519 " not in text and "ssh-rsa " not in text


@pytest.mark.parametrize("role", ROLES)
def test_nftables_is_the_only_package_and_its_rules_load_at_boot(role):
    data = config(role)

    assert data["packages"] == ["nftables"]
    assert ["systemctl", "enable", "nftables.service"] in data["runcmd"]
    assert "type filter hook input priority filter; policy drop;" in firewall(role)
    assert {"ct state established,related accept", 'iif "lo" accept'} <= set(firewall(role))


def test_the_sut_takes_ssh_from_anywhere_and_load_from_the_private_network_only():
    assert "tcp dport 22 accept" in firewall("sut")
    assert "ip saddr 10.0.0.0/16 tcp dport 8080 accept" in firewall("sut")
    assert "ip saddr 10.9.0.0/16 tcp dport 9000 accept" in firewall("sut", SERVER_PORT="9000", PRIVATE_NET="10.9.0.0/16")
    assert not [rule for rule in firewall("sut") if "8080" in rule and "saddr" not in rule]


def test_a_load_generator_takes_ssh_from_the_private_network_only():
    rules = firewall("loadgen")

    assert "ip saddr 10.0.0.0/16 tcp dport 22 accept" in rules
    assert [rule for rule in rules if "dport" in rule] == ["ip saddr 10.0.0.0/16 tcp dport 22 accept"]


@pytest.mark.parametrize(
    "args,env", [(["bogus"], {}), ([], {}), (["sut", "loadgen"], {}), (["sut"], {"SERVER_PORT": "http"}), (["sut"], {"PRIVATE_NET": "anywhere"})]
)
def test_bad_input_exits_2_with_one_line(args, env):
    result = generate(*args, **env)

    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.skipif(shutil.which("nft") is None or os.geteuid() != 0, reason="needs nftables' nft, as root, to parse the rules")
def test_the_rules_parse(role, tmp_path):
    rules = tmp_path / "nftables.conf"
    rules.write_text(written(role)["/etc/nftables.conf"]["content"])

    result = subprocess.run(["nft", "--check", "--file", str(rules)], capture_output=True, text=True)

    assert result.returncode == 0, result.stderr
