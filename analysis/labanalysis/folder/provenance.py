"""The header every manifest carries as `provenance`: where and from what a run came, and how it ended (lab.support.Provenance,
declared in each of contract/'s manifest schemas), read into a type.

The harness writes it the same way for every kind of run: status, command, startedAt, finishedAt, host (hostname, kernel,
cpuModel, cpus, memoryBytes), jdk (home, version, feature, vendor: the JDK the measured code ran on), gitCommit, gitDirty and
gitDirtyPaths (the first paths `git status --porcelain` named). A clients run made before the header kept the same properties at
the manifest's top level; `of` reads both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .declared import read_as


@dataclass(frozen=True)
class Host:
    """The machine the run was made on (lab.support.Provenance.Host)."""

    hostname: str
    kernel: str
    cpu_model: str
    cpus: int
    memory_bytes: int


@dataclass(frozen=True)
class Jdk:
    """A JDK as the harness found it (lab.support.Provenance.Jdk): its home, version and feature version, and its vendor where its
    release file names one."""

    home: str
    version: str
    feature: int
    vendor: str | None = None


@dataclass(frozen=True)
class Provenance:
    """Where and from what a run came, and how it ended: `running`, then `complete`, `failed` or `incomplete`."""

    status: str
    command: str
    started_at: str
    host: Host
    jdk: Jdk
    git_commit: str
    git_dirty: bool
    finished_at: str | None = None
    git_dirty_paths: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return self.status == "complete"

    def started(self) -> str:
        """When the run started, to the second, as a reader reads a time: `2026-11-22 16:00:00` (UTC)."""
        return self.started_at[:19].replace("T", " ")

    def commit(self) -> str:
        """The commit, shortened, and whether the checkout had changes: `0123456789ab (with uncommitted changes to README.md)`."""
        changes = "with uncommitted changes" + (f" to {', '.join(self.git_dirty_paths)}" if self.git_dirty_paths else "")
        return self.git_commit[:12] + (f" ({changes})" if self.git_dirty else "")

    def headline_commit(self) -> str:
        """The commit, shortened to 7, and whether the checkout had changes (a published headline may not: test_published)."""
        # Without the paths: the source line's fields are comma-separated, and a published headline is of a clean run anyway.
        return self.git_commit[:7] + (" with uncommitted changes" if self.git_dirty else "")

    def run_facts(self) -> dict[str, str]:
        """The lines an experiment's facts table opens with: command, status, start and end, and the host."""
        host = self.host
        return {
            "command": self.command,
            "status": self.status,
            "started": self.started_at,
            "finished": self.finished_at or "",
            "host": f"{host.cpus} CPUs ({host.cpu_model}), {host.memory_bytes / (1 << 30):.0f} GiB, kernel {host.kernel}",
        }


def of(manifest: Mapping[str, Any]) -> Provenance:
    """The header of a manifest the analysis reads as a mapping (an io-bench run's); a manifest read into its type holds its own
    (`.provenance`)."""
    return read_as(Provenance, manifest.get("provenance", manifest), "the manifest's provenance")


# The header's properties, for `recorded`.
FIELDS = ("status", "command", "startedAt", "finishedAt", "host", "jdk", "gitCommit", "gitDirty", "gitDirtyPaths")


def recorded(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The header as a mapping, every property present (None, or {} for host and jdk, where the run did not record one): for the
    manifest not yet read into a type, an io-bench run's, whose committed fixture predates the header."""
    header = manifest.get("provenance", manifest)
    found = {name: header.get(name) for name in FIELDS}
    return found | {"host": found["host"] or {}, "jdk": found["jdk"] or {}, "gitDirtyPaths": found["gitDirtyPaths"] or []}


def problems_of(provenance: Provenance, recorded: tuple[str, ...] = ()) -> list[str]:
    """An experiment's problems: that the run did not complete, where it did not, then each the harness recorded."""
    return ([] if provenance.complete else [f"the run is {provenance.status}"]) + list(recorded)


def source(run) -> str:
    """One line naming where a bench run's (run.Run's) tables come from: the folder, the commit (and whether it was dirty), the run folder's
    format (a published figure must come from a run the analysis still reads: tests/test_published.py), and the command."""
    manifest = run.manifest
    made = manifest.provenance
    made_as = f"{manifest.profile_name} profile, {made.headline_commit()}, run-folder format {manifest.run_folder_format}"
    return f"From `{run.folder.name}` ({made_as}), made by `{made.command}`."
