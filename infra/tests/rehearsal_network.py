"""infra/rehearsal.sh's hosts, as the tests see them: up and down, a command on a host, what runs on each, and the faults a
real network has (a host's sshd killed, its link cut)."""

import json
import os
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "infra/rehearsal.sh"
HOSTS = ("sut", "lg1", "lg2")


class RehearsalNetwork:
    """One rehearsal, under a name of the test's own, so that one a user has up (loomlab) is left alone."""

    def __init__(self, name: str):
        self.name = name
        self.state = REPO / ".tools/rehearsal" / name

    def script(self, action: str, **env: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(SCRIPT), action], capture_output=True, text=True, env={**os.environ, "REHEARSAL": self.name, **env}, timeout=120)

    def up(self) -> dict[str, str]:
        """What `up` prints for make bench-vps: NAMESPACE, HOST, LOADGEN, SSH_KEY and SSH_KNOWN_HOSTS."""
        made = self.script("up")
        assert made.returncode == 0, made.stderr
        return dict(line.split("=", 1) for line in made.stdout.splitlines())

    def down(self):
        gone = self.script("down")
        assert gone.returncode == 0, gone.stderr

    @property
    def declared(self) -> dict:
        return json.loads((self.state / "rehearsal.json").read_text())

    def on(self, where: str, *command: str, timeout: float = 30) -> subprocess.CompletedProcess:
        return subprocess.run(["ip", "netns", "exec", f"{self.name}-{where}", *command], capture_output=True, text=True, timeout=timeout)

    def reaches(self, where: str, address: str, port: int) -> bool:
        """Whether `where` makes a TCP connection to address:port within 2 s: a dropped SYN is a timeout, not an answer."""
        probe = f"import socket; socket.create_connection(('{address}', {port}), timeout=2).close()"
        return self.on(where, "python3", "-c", probe).returncode == 0

    def home(self, host: str) -> Path:
        return self.state / host / "root"

    def processes(self, where: str) -> dict[int, str]:
        """Every process in `where`'s network namespace, by pid, with its command line."""
        pids = subprocess.run(["ip", "netns", "pids", f"{self.name}-{where}"], capture_output=True, text=True).stdout.split()
        found = {}
        for pid in pids:
            try:
                found[int(pid)] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
            except OSError:
                continue
        return found

    def lab_processes(self) -> list[str]:
        """Every process on a host whose command line names the lab's folder there: the harness, servers, stub, k6."""
        return [f"{h}: {c}" for h in HOSTS for c in self.processes(h).values() if "loom-lab/" in c]

    def sessions(self) -> list[str]:
        """Every process on a host but its sshd: none once every SSH connection of the run has ended."""
        found = []
        for host in HOSTS:
            daemon = int((self.state / host / "sshd.pid").read_text())
            found += [f"{host}: {c}" for pid, c in self.processes(host).items() if pid != daemon]
        return found

    def kill_sshd(self, host: str):
        """What a host's crash does to SSH: its sshd and every session it holds end at once (SIGKILL), saying nothing. Again
        until none is left, as a session may be forked between the list and the kill."""
        for _ in range(10):
            daemons = [pid for pid, command in self.processes(host).items() if command.startswith(("sshd", "/usr/sbin/sshd"))]
            if not daemons:
                return
            subprocess.run(["kill", "-KILL", *map(str, daemons)], check=False)
            time.sleep(0.1)
        raise AssertionError(f"{host}'s sshd outlived ten SIGKILLs")

    def set_link(self, host: str, up: bool):
        """`host`'s private interface up or down, as a cable pulled or a cloud's network failing: nothing is sent or answered."""
        done = self.on(host, "ip", "link", "set", "priv", "up" if up else "down")
        assert done.returncode == 0, done.stderr


def wait_until(condition, seconds: float, every: float = 0.5):
    """`condition()`'s first truthy value within `seconds`, else its last."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if result := condition():
            return result
        time.sleep(every)
    return condition()
