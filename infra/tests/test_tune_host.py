"""infra/tune-host.sh: the host tuning, driven by infra/host-limits.conf, its one declared list.

The facts it reports are checked against what this test reads from the kernel itself. Apply
runs really raise this machine's sysctls (as root), as they would on a rented host; the
files they write go under a temporary TUNE_HOST_ROOT.
"""

import os
import re
import resource
import shutil
import subprocess
from pathlib import Path

import pytest

INFRA = Path(__file__).resolve().parents[1]
SCRIPT = INFRA / "tune-host.sh"
CONF = INFRA / "host-limits.conf"
NOBODY = 65534
SYSCTL_FILE = "etc/sysctl.d/90-loom-lab.conf"
LIMITS_FILE = "etc/security/limits.d/90-loom-lab.conf"

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="apply mode needs root (it raises the kernel's sysctls)")


def declared(conf: Path = CONF) -> dict[str, str]:
    """The conf's entries, name to target, in its order."""
    lines = [line for line in conf.read_text().splitlines() if line.strip() and not line.startswith("#")]
    return dict(line.split("=", 1) for line in lines)


def sysctls() -> list[str]:
    return [name for name in declared() if "." in name]


def run(*args: str, script: Path = SCRIPT, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(script), *args], capture_output=True, text=True, env={**os.environ, **(env or {})}, **kwargs)


def table(stdout: str) -> dict[str, list[str]]:
    """--check's rows by limit: [current, target, status]. Cells are two or more spaces apart."""
    rows = [re.split(r"\s{2,}", line.strip()) for line in stdout.splitlines()]
    return {row[0]: row[1:] for row in rows if len(row) == 4 and row[0] != "limit"}


def kernel(name: str) -> str:
    return " ".join((Path("/proc/sys") / name.replace(".", "/")).read_text().split())


def pids_limit() -> str:
    """The lowest pids.max from this process's cgroup up to the root, read at the usual mount points."""
    lines = [line.split(":", 2) for line in Path("/proc/self/cgroup").read_text().splitlines()]
    v1 = [path for _, controllers, path in lines if "pids" in controllers.split(",")]
    v2 = [path for hierarchy, _, path in lines if hierarchy == "0"]
    if v1 and Path("/sys/fs/cgroup/pids").is_dir():
        base, path = Path("/sys/fs/cgroup/pids"), v1[0]
    elif v2 and "pids" in Path("/sys/fs/cgroup/cgroup.controllers").read_text(errors="ignore").split():
        base, path = Path("/sys/fs/cgroup"), v2[0]
    else:
        return "no limit (no pids cgroup)"
    folder = base / path.strip("/")
    limits = [(d / "pids.max").read_text().strip() for d in [folder, *folder.parents] if d.is_relative_to(base) and (d / "pids.max").exists()]
    numbers = [int(limit) for limit in limits if limit != "max"]
    return str(min(numbers)) if numbers else "infinity"


def at_least(value: str, target: str) -> bool:
    if " " in target:
        (first, last), (want_first, want_last) = map(int, value.split()), map(int, target.split())
        return first <= want_first and last >= want_last
    if value in ("infinity", "unlimited") or value.startswith("no limit"):
        return True
    return target != "infinity" and int(value) >= int(target)


def facts() -> dict[str, str]:
    """Each declared limit as this process has it, read without the script."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    own = {"nofile": "unlimited" if hard == resource.RLIM_INFINITY else str(hard), "tasks": pids_limit()}
    return {name: own[name] if name in own else kernel(name) for name in declared()}


def test_check_reports_every_declared_limit_as_the_kernel_has_it():
    result = run("--check")
    rows = table(result.stdout)

    assert list(rows) == list(declared()), result.stdout
    assert {name: row[1] for name, row in rows.items()} == declared()
    assert {name: row[0] for name, row in rows.items()} == facts()
    for name in ("fs.nr_open", "kernel.pid_max", "net.core.somaxconn"):
        assert rows[name][0] == (Path("/proc/sys") / name.replace(".", "/")).read_text().strip()
    assert rows["nofile"][0] == str(resource.getrlimit(resource.RLIMIT_NOFILE)[1])

    low = {name for name, value in facts().items() if not at_least(value, declared()[name])}
    assert {name for name, row in rows.items() if row[2] == "LOW"} == low
    assert {row[2] for row in rows.values()} <= {"ok", "LOW"}
    assert result.returncode == (1 if low else 0)
    if low:
        assert result.stdout.splitlines()[-1] == f"{len(low)} limit(s) below target: run sudo infra/tune-host.sh"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run the script as another user")
def test_a_user_without_root_can_check_but_not_apply():
    as_nobody = {"user": NOBODY, "group": NOBODY, "extra_groups": [], "cwd": "/"}

    check = run("--check", **as_nobody)
    assert table(check.stdout) == table(run("--check").stdout)

    apply = run(**as_nobody)
    assert apply.returncode == 2
    assert apply.stderr.strip().endswith("run it as root: sudo infra/tune-host.sh")


@pytest.mark.parametrize("args", [["--bogus"], ["--check", "--now"], ["check"]])
def test_a_bad_argument_exits_2_with_one_line_saying_what_to_do(args):
    result = run(*args)

    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert "--check" in result.stderr


def raised(value: str, target: str) -> str:
    """What apply sets: the target, but never lower than the host had."""
    if " " in target:
        (first, last), (want_first, want_last) = map(int, value.split()), map(int, target.split())
        return f"{min(first, want_first)} {max(last, want_last)}"
    return value if int(value) > int(target) else target


def settings(file: Path, pattern: str) -> dict[str, str]:
    return dict(re.fullmatch(pattern, line).groups() for line in file.read_text().splitlines() if not line.startswith("#"))


@as_root
def test_apply_persists_the_declared_targets_and_a_second_run_changes_nothing(tmp_path):
    before = {name: kernel(name) for name in sysctls()}

    first = run(env={"TUNE_HOST_ROOT": str(tmp_path)})
    assert first.returncode == 0, first.stdout + first.stderr

    sysctl_file, limits_file = tmp_path / SYSCTL_FILE, tmp_path / LIMITS_FILE
    targets = declared()
    assert settings(sysctl_file, r"(\S+) = (.+)") == {name: raised(before[name], targets[name]) for name in sysctls()}
    nofile = settings(limits_file, r"(\S+\s+\S+) nofile (\d+)")
    assert {" ".join(who.split()): value for who, value in nofile.items()} == {
        "* soft": targets["nofile"],
        "* hard": targets["nofile"],
        "root soft": targets["nofile"],
        "root hard": targets["nofile"],
    }
    assert sysctls(), "tune-host.sh declares the sysctls it sets"
    for name in sysctls():
        refused = f"could not set {name} to " in first.stdout
        assert refused or at_least(kernel(name), targets[name]), first.stdout
    assert not (tmp_path / "etc/ssh").exists()

    written = {file: (file.read_bytes(), file.stat().st_mtime_ns) for file in (sysctl_file, limits_file)}
    second = run(env={"TUNE_HOST_ROOT": str(tmp_path)})

    assert second.returncode == 0, second.stdout + second.stderr
    assert {file: (file.read_bytes(), file.stat().st_mtime_ns) for file in written} == written
    for file in written:
        assert f"{file} already up to date" in second.stdout.splitlines()
    for name in sysctls():
        assert any(line.startswith(f"{name} already ") or line.startswith(f"could not set {name} ") for line in second.stdout.splitlines())
    assert "wrote " not in second.stdout


@as_root
def test_a_value_the_kernel_refuses_is_reported_and_the_run_goes_on(tmp_path):
    # No kernel takes a pid_max this high, nor a hard nofile above fs.nr_open.
    folder = tmp_path / "infra"
    folder.mkdir()
    shutil.copy(SCRIPT, folder)
    (folder / "host-limits.conf").write_text("kernel.pid_max=99999999999\nnet.core.somaxconn=1\nnofile=99999999999\n")
    pid_max = kernel("kernel.pid_max")

    result = run(script=folder / "tune-host.sh", env={"TUNE_HOST_ROOT": str(tmp_path / "root")})
    lines = result.stdout.splitlines()

    assert result.returncode == 0, result.stdout + result.stderr
    assert any(line.startswith("could not set kernel.pid_max to 99999999999: ") for line in lines), result.stdout
    assert f"net.core.somaxconn already {kernel('net.core.somaxconn')}" in lines
    assert any(line.startswith("could not set nofile to 99999999999: fs.nr_open is ") for line in lines), result.stdout
    assert not (tmp_path / "root" / LIMITS_FILE).exists()
    assert kernel("kernel.pid_max") == pid_max


@as_root
@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs util-linux's unshare for a private /run")
def test_on_a_systemd_host_apply_adds_the_drop_ins_and_reloads_once(tmp_path):
    # systemd is detected by /run/systemd/system: a tmpfs over /run, in a mount namespace of
    # its own, shows the script one without touching this machine; systemctl only logs.
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "systemctl").write_text(f'#!/bin/sh\necho "$*" >> {tmp_path}/systemctl.log\n')
    (fake / "systemctl").chmod(0o755)
    env = {"TUNE_HOST_ROOT": str(tmp_path / "root"), "PATH": f"{fake}:{os.environ['PATH']}"}
    in_systemd = [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        'mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/system && exec "$0"',
        str(SCRIPT),
    ]

    runs = [subprocess.run(in_systemd, capture_output=True, text=True, env={**os.environ, **env}) for _ in range(2)]

    if "reloaded systemd" not in runs[0].stdout:
        pytest.skip(f"could not make a private /run here: {runs[0].stderr.strip()}")
    targets = declared()
    manager = (tmp_path / "root/etc/systemd/system.conf.d/90-loom-lab.conf").read_text()
    assert f"DefaultLimitNOFILE={targets['nofile']}" in manager.splitlines()
    assert f"DefaultTasksMax={targets['tasks']}" in manager.splitlines()
    slice_ = (tmp_path / "root/etc/systemd/system/user-.slice.d/90-loom-lab.conf").read_text()
    assert "[Slice]" in slice_ and f"TasksMax={targets['tasks']}" in slice_.splitlines()
    assert (tmp_path / "systemctl.log").read_text().splitlines() == ["daemon-reload"]
    assert "reloaded systemd" not in runs[1].stdout
    assert not (tmp_path / "root/etc/ssh").exists()


def test_the_script_declares_no_limit_of_its_own():
    values = {token for value in declared().values() for token in value.split() if token.isdigit()}

    assert {"1048576", "4194304"} <= values
    text = SCRIPT.read_text()
    assert [value for value in values if re.search(rf"(?<!\d){value}(?!\d)", text)] == []
