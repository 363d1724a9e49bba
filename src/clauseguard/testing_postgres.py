"""A throwaway PostgreSQL server in a temporary data directory, for tests and benchmarks.

It runs Debian's `initdb` and `pg_ctl` on a free loopback port with password authentication; as
root (CI runs as root and `initdb` refuses it) the server runs as the `postgres` user. Each caller
gets its own database with `create_database`. It never touches a server it did not start.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

USER: Final = "clauseguard"
PASSWORD: Final = "test-secret-pw"  # noqa: S105 - a throwaway server on loopback, made and dropped by the tests
SERVER_USER: Final = "postgres"


class ServerUnavailable(RuntimeError):
    """PostgreSQL's programs are missing or the server did not start (the message says which)."""


def binaries() -> Path:
    """The folder of `initdb` and `pg_ctl`: the newest Debian version, else the PATH."""
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: int(p.parent.parent.name)
                      if p.parent.parent.name.isdigit() else 0)
    if versions:
        return versions[-1].parent
    found = shutil.which("pg_ctl")
    if found is None:
        raise ServerUnavailable("PostgreSQL is not installed (apt-get install -y postgresql); `make test` installs it")
    return Path(found).resolve().parent


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PostgresServer:
    """A server we started: its port, its base folder, and the URL of a database on it."""

    port: int
    base: Path
    bin_dir: Path
    run_as: str | None
    created: list[str] = field(default_factory=list)

    def url(self, database: str = "postgres", password: str = PASSWORD) -> str:
        return f"postgresql://{USER}:{password}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A fresh, empty database; its URL (with the password)."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        self.created.append(name)
        return self.url(name)

    def drop_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        kwargs: dict[str, Any] = {"capture_output": True, "text": True, "check": False, "cwd": self.base}
        if self.run_as is not None:
            kwargs["user"] = self.run_as
            kwargs["env"] = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.base), "LANG": "C"}
        return subprocess.run([str(self.bin_dir / args[0]), *args[1:]], **kwargs)  # noqa: S603 - fixed programs

    def stop(self) -> None:
        """Stop the server immediately and remove its folder."""
        self._run("pg_ctl", "-D", str(self.base / "data"), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.base, ignore_errors=True)

    def restart(self) -> None:
        """Stop and start again on the same port (what a database 'going away' and coming back looks like)."""
        self._run("pg_ctl", "-D", str(self.base / "data"), "-m", "immediate", "-w", "stop")
        self._start()

    def halt(self) -> None:
        """Stop without removing anything (the database is gone until `start_again`)."""
        self._run("pg_ctl", "-D", str(self.base / "data"), "-m", "immediate", "-w", "stop")

    def start_again(self) -> None:
        self._start()

    def _start(self) -> None:
        options = f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 -c max_connections=100"
        done = self._run("pg_ctl", "-D", str(self.base / "data"), "-o", options, "-l", str(self.base / "server.log"),
                         "-w", "-t", "60", "start")
        if done.returncode != 0:
            log = (self.base / "server.log").read_text(errors="replace")[-2000:] if (self.base / "server.log").exists() else ""
            raise ServerUnavailable(f"pg_ctl start failed: {done.stderr.strip()} {log}")


def start_server() -> PostgresServer:
    """initdb + pg_ctl start in a new temporary folder; ServerUnavailable if that cannot be done here."""
    bin_dir = binaries()
    run_as = None
    if os.geteuid() == 0:
        try:
            record = pwd.getpwnam(SERVER_USER)
        except KeyError as exc:
            raise ServerUnavailable(f"running as root and there is no '{SERVER_USER}' user to run the server as "
                                    "(Debian's postgresql package creates it)") from exc
        run_as = SERVER_USER
    base = Path(tempfile.mkdtemp(prefix="clauseguard-pg-"))
    if run_as is not None:
        os.chown(base, record.pw_uid, record.pw_gid)
    server = PostgresServer(free_port(), base, bin_dir, run_as)
    pwfile = base / "pw"
    pwfile.write_text(PASSWORD + "\n")
    if run_as is not None:
        os.chown(pwfile, record.pw_uid, record.pw_gid)
    made = server._run("initdb", "-D", str(base / "data"), "-U", USER, "--auth=scram-sha-256",
                       f"--pwfile={pwfile}", "--locale=C", "--encoding=UTF8", "-N")
    if made.returncode != 0:
        shutil.rmtree(base, ignore_errors=True)
        raise ServerUnavailable(f"initdb failed: {made.stderr.strip() or made.stdout.strip()}")
    try:
        server._start()
    except ServerUnavailable:
        shutil.rmtree(base, ignore_errors=True)
        raise
    return server
