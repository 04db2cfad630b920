"""Loading one run folder: the manifest, and each server's series, k6 summary and pinning events."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pandas as pd


class RunFolderError(Exception):
    """A folder that is not a run folder, said in one line with what to do."""


@dataclass
class ServerRun:
    """One server's folder in a run: `coroutine`, `vthread-without-jfr`, `platform-r2`, ..."""

    folder: Path
    outcome: dict

    @property
    def name(self) -> str:
        return self.folder.name

    @property
    def server(self) -> str:
        return self.outcome["server"]

    @property
    def ok(self) -> bool:
        return self.outcome.get("status") == "ok"

    @cached_property
    def proc(self) -> pd.DataFrame:
        """/proc samples once a second: time_s, phase, rss_bytes, pss_bytes, threads, fds, maps."""
        return _csv(self.folder / "proc.csv")

    @cached_property
    def jfr(self) -> pd.DataFrame:
        """JFR's series, tidy: time_s, phase, metric, value."""
        return _csv(self.folder / "jfr-series.csv")

    @cached_property
    def load(self) -> pd.DataFrame:
        """k6's counts once a second: time_s, phase, sockets_opened_total, requests_total, ..."""
        return _csv(self.folder / "load.csv")

    @cached_property
    def pinned(self) -> pd.DataFrame:
        """One row per jdk.VirtualThreadPinned event: time_s, phase, duration_ms, top_frames."""
        return _csv(self.folder / "pinned.csv")

    @cached_property
    def k6_metrics(self) -> dict:
        """The k6 summary's metrics, by name (`http_req_duration{endpoint:json}`, ...); empty if k6 wrote none."""
        path = self.folder / "k6-summary.json"
        return json.loads(path.read_text())["metrics"] if path.is_file() else {}


@dataclass
class Run:
    folder: Path
    manifest: dict
    servers: list[ServerRun] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.manifest.get("status") == "complete"

    def server(self, name: str) -> ServerRun:
        return next(s for s in self.servers if s.name == name)


def load_run(folder: str | Path) -> Run:
    """Reads a run folder as the harness wrote it; raises RunFolderError if it is not one."""
    folder = Path(folder)
    manifest_path = folder / "manifest.json"
    if not manifest_path.is_file():
        raise RunFolderError(f"{folder} has no manifest.json; pass a folder from results/, e.g. RUN=results/latest")
    manifest = json.loads(manifest_path.read_text())
    servers = []
    for outcome in manifest.get("outcomes", []):
        name = _folder_name(outcome)
        servers.append(ServerRun(folder / name, outcome))
    return Run(folder, manifest, servers)


def _folder_name(outcome: dict) -> str:
    """The folder the harness gave an outcome (see Pass.folder in the harness)."""
    name = outcome["server"]
    if not outcome.get("jfrStreaming", True):
        name += "-without-jfr"
    if outcome.get("repeat", 1) > 1:
        name += f"-r{outcome['repeat']}"
    return name


def _csv(path: Path) -> pd.DataFrame:
    # A server that died early may have left a series with a header only, or none at all.
    if not path.is_file():
        return pd.DataFrame()
    return pd.read_csv(path)
