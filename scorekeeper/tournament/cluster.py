"""A throw-away PostgreSQL cluster in a temporary folder, for tests, benchmarks and a try-out.

Uses the server binaries Debian's ``postgresql`` package installs (``/usr/lib/postgresql/*/bin``,
or the folder in ``$PG_BIN``). PostgreSQL refuses to run as root, so as root the cluster belongs to
the ``postgres`` user and every command runs through ``runuser``. Durability is switched off
(``fsync=off``): the cluster is for measuring and testing, never for a real tournament.

    with throwaway_cluster() as dsn:
        ...   # postgresql://scorekeeper@127.0.0.1:PORT/postgres
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scorekeeper.errors import ScorekeeperError

USER = "scorekeeper"


class ClusterError(ScorekeeperError):
    """No PostgreSQL cluster could be started here."""


def server_bin() -> Path:
    """The folder with ``initdb`` and ``pg_ctl``, newest version first."""
    given = os.environ.get("PG_BIN")
    candidates = (
        [given]
        if given
        else sorted(
            glob.glob("/usr/lib/postgresql/*/bin"),
            key=lambda p: int(Path(p).parent.name),
            reverse=True,
        )
    )
    for folder in candidates:
        if folder and (Path(folder) / "initdb").is_file() and (Path(folder) / "pg_ctl").is_file():
            return Path(folder)
    raise ClusterError("no PostgreSQL server binaries (initdb, pg_ctl): apt-get install postgresql")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Cluster:
    def __init__(self, folder: Path, port: int) -> None:
        self.folder = folder
        self.port = port
        self.bin = server_bin()
        self.as_root = os.geteuid() == 0
        self.dsn = f"postgresql://{USER}@127.0.0.1:{port}/postgres"

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_root else []
        result = subprocess.run(
            [*prefix, *command], capture_output=True, text=True, timeout=120, check=False
        )
        if result.returncode != 0:
            detail = (result.stderr or result.stdout).strip().splitlines()
            raise ClusterError(
                f"{Path(command[0]).name} failed: {detail[-1] if detail else result.returncode}"
            )

    def create(self) -> None:
        if self.as_root:
            shutil.chown(self.folder, user="postgres")
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.folder / "data"),
            "-U",
            USER,
            "-A",
            "trust",
            "--no-sync",
            "-E",
            "UTF8",
        )

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
        )
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.folder / "data"),
            "-l",
            str(self.folder / "log"),
            "-o",
            options,
            "-w",
            "-t",
            "60",
            "start",
        )

    def stop(self) -> None:
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.folder / "data"),
            "-m",
            "immediate",
            "-w",
            "stop",
        )


@contextmanager
def throwaway_cluster() -> Iterator[str]:
    """Start a new cluster, yield its DSN, stop it and remove its folder."""
    folder = Path(tempfile.mkdtemp(prefix="scorekeeper-pg-"))
    os.chmod(folder, 0o755)
    try:
        cluster = Cluster(folder, free_port())
        cluster.create()
        cluster.start()
        try:
            yield cluster.dsn
        finally:
            cluster.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
