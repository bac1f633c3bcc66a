"""A real ``assent serve`` on a free loopback port, in a fresh data dir, for the tests; and the
person's side (approve, deny) as plain HTTP with the approver token. The binary is the cargo
build's (``ASSENT_BIN``, set by scripts/test.d/60-sdk.sh). With ``ASSENT_TEST_PG`` (a throwaway
cluster's ``postgres://assent@127.0.0.1:PORT``, and ``ASSENT_TEST_PG_BIN`` its bin dir, both set
by 60-sdk.sh) each service gets a fresh PostgreSQL database instead of SQLite, with the person
``owner`` and the agent ``default`` made by ``assent people|agents add --database``."""

from __future__ import annotations

import os
import socket
import itertools
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx


def assent_bin() -> str:
    path = os.environ.get("ASSENT_BIN", "")
    if not path or not os.access(path, os.X_OK):
        raise RuntimeError(
            "ASSENT_BIN must name the built `assent` binary (scripts/test.d/60-sdk.sh sets it)"
        )
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


ROLES = ["task_author", "repo_maintainer", "security_reviewer", "platform_admin"]
_databases = itertools.count()


def postgres_database() -> str | None:
    """A fresh database in the throwaway cluster named by ASSENT_TEST_PG, or None (SQLite)."""
    cluster = os.environ.get("ASSENT_TEST_PG")
    if not cluster:
        return None
    name = f"sdk_{os.getpid()}_{next(_databases)}"
    createdb = Path(os.environ["ASSENT_TEST_PG_BIN"]) / "createdb"
    port = cluster.rsplit(":", 1)[1]
    subprocess.run(
        [str(createdb), "-h", "127.0.0.1", "-p", port, "-U", "assent", name], check=True
    )
    return f"{cluster}/{name}"


def identity(database: str, *args: str) -> str:
    """The token `assent people|agents add … --database` prints."""
    made = subprocess.run(
        [assent_bin(), *args, "--database", database], capture_output=True, text=True
    )
    assert made.returncode == 0, f"assent {' '.join(args)} --database: {made.stderr}"
    return made.stdout.strip()


class Service:
    def __init__(self, workdir: Path, policy: str | None = None):
        self.data = workdir / "data"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        args = [assent_bin(), "serve", "--data-dir", str(self.data), "--listen", f"127.0.0.1:{self.port}"]
        self.database = postgres_database()
        if self.database is not None:
            args += ["--database", self.database]
        if policy is not None:
            policy_file = workdir / "policy.toml"
            policy_file.write_text(policy)
            args += ["--policy", str(policy_file)]
        self.log = workdir / "serve.log"
        self.args = args
        self._spawn()
        if self.database is not None:
            roles = [arg for role in ROLES for arg in ("--role", role)]
            self.approver = identity(self.database, "people", "add", "owner", *roles)
            self.requester = identity(self.database, "agents", "add", "default")
        else:
            self.requester = (self.data / "requester.token").read_text().strip()
            self.approver = (self.data / "approver.token").read_text().strip()
        self.person = httpx.Client(
            base_url=self.url, headers={"authorization": f"Bearer {self.approver}"}, timeout=30
        )

    def _spawn(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(self.args, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).is_success:
                    break
            except httpx.TransportError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"assent serve did not start: {self.log.read_text()}")
            time.sleep(0.05)

    def _terminate(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def restart(self) -> None:
        """Stops the service and starts it again on the same port and data dir."""
        self._terminate()
        self._spawn()

    def stop(self) -> None:
        self.person.close()
        self._terminate()

    def decide(self, approval_id: str, body: dict[str, Any]) -> dict[str, Any]:
        answer = self.person.post(f"/v1/approvals/{approval_id}/decision", json=body)
        assert answer.is_success, f"the person's decision must be taken: {answer.text}"
        return answer.json()

    def approve(self, approval_id: str, scope: str = "once") -> dict[str, Any]:
        return self.decide(
            approval_id, {"decision": "approve", "scope": scope, "expires_in_seconds": 600}
        )

    def deny(self, approval_id: str, reason: str) -> dict[str, Any]:
        return self.decide(approval_id, {"decision": "deny", "reason": reason})

    def approvals_of_run(self, run_id: str) -> list[dict[str, Any]]:
        answer = self.person.get("/v1/approvals")
        assert answer.is_success, answer.text
        body = answer.json()
        approvals = body["approvals"] if isinstance(body, dict) else body
        return [a for a in approvals if a["run_id"] == run_id]


def shell(run_id: str, command: str, cwd: str = "/home/dev/shop", trust: str = "unknown") -> dict[str, Any]:
    """An agent's request to run ``command`` (an ``npm test`` in an unknown repo asks a person)."""
    return {
        "run_id": run_id,
        "task_id": "task-1",
        "requested_by": "agent",
        "action": {"kind": "shell", "command": command, "cwd": cwd},
        "context": {"repo": cwd, "repo_trust": trust},
        "reason": "run the tests",
    }
