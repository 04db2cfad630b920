"""The header every manifest carries as `provenance`: where and from what a run came, and how it ended.

The harness writes it the same way for every kind of run (bench, clients, io-bench, audit): status,
command, startedAt, finishedAt, host (hostname, kernel, cpuModel, cpus, memoryBytes), jdk (home,
version, feature, vendor: the JDK the measured code ran on), gitCommit, gitDirty and gitDirtyPaths (the
first paths `git status --porcelain` named; runs made before it have none). Runs made
before the header kept these at the manifest's top level (a bench's JDK as `serverJdk`); `of`
reads both, so no other module needs to know.
"""

from __future__ import annotations

FIELDS = ("status", "command", "startedAt", "finishedAt", "host", "jdk", "gitCommit", "gitDirty", "gitDirtyPaths")


def of(manifest: dict) -> dict:
    """The run's header, every field present (None, or {} for host and jdk, where a run did not record one)."""
    header = manifest.get("provenance")
    if header is None:
        header = {**manifest, "jdk": manifest.get("jdk") or manifest.get("serverJdk")}
    found = {name: header.get(name) for name in FIELDS}
    found["host"] = found["host"] or {}
    found["jdk"] = found["jdk"] or {}
    found["gitDirtyPaths"] = found["gitDirtyPaths"] or []
    return found


def status(manifest: dict) -> str | None:
    return of(manifest)["status"]


def _changes(found: dict) -> str:
    """`with uncommitted changes`, and to which paths where the run named them."""
    paths = found["gitDirtyPaths"]
    return "with uncommitted changes" + (f" to {', '.join(paths)}" if paths else "")


def commit(manifest: dict) -> str:
    """The commit, shortened, and whether the checkout had changes: `0123456789ab (with uncommitted changes to README.md)`."""
    found = of(manifest)
    return (found["gitCommit"] or "?")[:12] + (f" ({_changes(found)})" if found["gitDirty"] else "")


def run_facts(manifest: dict) -> dict[str, str]:
    """The header's lines an experiment's facts table opens with: command, status, start and end, and the host."""
    header = of(manifest)
    host = header["host"]
    return {
        "command": header["command"],
        "status": header["status"],
        "started": header["startedAt"],
        "finished": header["finishedAt"] or "",
        "host": f"{host['cpus']} CPUs ({host['cpuModel']}), {host['memoryBytes'] / (1 << 30):.0f} GiB, kernel {host['kernel']}",
    }


def source(run) -> str:
    """One line naming where a run's (run.Run's) tables come from: the folder, the commit (and whether it was dirty), the run folder's
    format (a published figure must come from a run the analysis still reads: tests/test_published.py), and the command."""
    manifest = run.manifest
    made_as = f"{manifest.get('profileName', '?')} profile, {headline_commit(manifest)}, run-folder format {manifest.get('runFolderFormat', '?')}"
    return f"From `{run.folder.name}` ({made_as}), made by `{of(run.manifest).get('command', '?')}`."


def headline_commit(manifest: dict) -> str:
    """The commit a folder's code was, shortened to 7, and whether the checkout had changes (a published headline may not: test_published)."""
    made = of(manifest)
    # Without the paths: the source line's fields are comma-separated, and a published headline is of a clean run anyway.
    return str(made.get("gitCommit") or "unknown commit")[:7] + (" with uncommitted changes" if made.get("gitDirty") else "")
