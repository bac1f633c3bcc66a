"""The seed's drill (ADR 0052): an agent loop whose tool pipeline cannot block.

A message-driven agent platform runs each agent's tool loop on a worker. Its terminal tool asks
Assent first. When the answer is *pending*, the loop does not read the word "pending" and burn
its next iteration on it (the seed's failure: eight iterations gone, the approvals arriving
after the loop gave up): it stops, the agent enters ``awaiting_approval`` holding its loop state,
and the worker is free for other work. The person's decision wakes the agent — from the agent
event stream (``GET /v1/events``) or a signed webhook — and the loop resumes where it stopped,
with the command's real output (or the person's reason for a denial) in place of "pending".
Nobody deciding until the wait cap (the policy's ``approval_timeout_seconds`` with
``fallback_on_timeout = "pause"``) ends the run as paused by policy, not as an iteration limit.

Run it against a service (``assent serve`` prints the URL and the requester token):

    ASSENT_URL=http://127.0.0.1:7391 ASSENT_TOKEN=$(cat ~/.local/share/assent/requester.token) \
        python examples/agent-drill/drill.py

then approve or deny the prompt (``assent approve …`` / the desk) and watch the loop resume.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from assent_sdk import (
    Allowed,
    Blocked,
    Cancelled,
    Client,
    Decision,
    Denied,
    Granted,
    Pending,
    RememberedDenial,
    TimedOut,
)

MAX_ITERATIONS = 8


# --- the loop's state and outcomes ------------------------------------------------------------


@dataclass
class Turn:
    """One tool call of the loop and what it returned."""

    command: str
    result: str


@dataclass
class LoopContext:
    """Everything the loop needs to go on; kept in memory while the agent waits (ADR 0052)."""

    run_id: str
    task: str
    cwd: str
    history: list[Turn] = field(default_factory=list)
    iterations: int = 0
    parked_on: str | None = None  # the approval id, while awaiting_approval
    submitted: list[str] = field(default_factory=list)  # every command sent to Assent


@dataclass(frozen=True)
class Done:
    answer: str


@dataclass(frozen=True)
class LimitReached:
    iterations: int


@dataclass(frozen=True)
class AwaitingApproval:
    approval_id: str


@dataclass(frozen=True)
class PausedByPolicy:
    """The run stopped because nobody decided in time: origin *policy*, not a defect."""

    reason: str


Outcome = Done | LimitReached | AwaitingApproval | PausedByPolicy


# --- the model ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    command: str


@dataclass(frozen=True)
class Finish:
    answer: str


class ScriptedModel:
    """A stand-in for the LLM, deterministic: run the tests; after a denial take another path;
    after "pending" (the naive pipeline) invent yet another test command, as real models do."""

    INVENTED = ["npm run test", "npm test -- --verbose", "npx jest", "npm t", "yarn test",
                "pnpm test", "npm test --silent", "npm run test:unit"]

    def next(self, ctx: LoopContext) -> Call | Finish:
        if not ctx.history:
            return Call("npm test")
        last = ctx.history[-1]
        if last.result.startswith("proposed_action "):
            return Call(self.INVENTED[(len(ctx.history) - 1) % len(self.INVENTED)])
        if last.result.startswith("denied"):
            return Call("git status --short")
        return Finish(f"ran {last.command}: {last.result.strip()}")


# --- the tool pipeline --------------------------------------------------------------------------


class Terminal:
    """The `:pipeline` tool: Assent decides, then the command runs here, for real."""

    def __init__(self, client: Client, *, park: bool):
        self.client = client
        self.park = park

    def request(self, ctx: LoopContext, command: str, key: str) -> str | AwaitingApproval:
        ctx.submitted.append(command)
        answer = self.client.submit(
            {
                "run_id": ctx.run_id,
                "task_id": ctx.task,
                "requested_by": "agent",
                "action": {"kind": "shell", "command": command, "cwd": ctx.cwd},
                "context": {"repo": ctx.cwd, "repo_trust": "unknown"},
                "reason": f"{ctx.task}: {command}",
            },
            idempotency_key=key,
        )
        match answer:
            case Allowed():
                return run(command, ctx.cwd)
            case Pending(approval_id=approval_id):
                if self.park:
                    return AwaitingApproval(approval_id)
                # The seed's pipeline: the word "pending" as the tool's result.
                return f"proposed_action {approval_id} status pending"
            case Blocked(reasons=reasons) | RememberedDenial(reasons=reasons):
                return "denied by policy: " + "; ".join(reasons)
            case _:
                return f"not run: {answer}"


def run(command: str, cwd: str) -> str:
    done = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True, timeout=120)
    return done.stdout + done.stderr


# --- the loop -----------------------------------------------------------------------------------


class ToolLoop:
    """At most MAX_ITERATIONS tool calls; a pending one parks the loop instead of burning on."""

    def __init__(self, model: ScriptedModel, terminal: Terminal):
        self.model = model
        self.terminal = terminal

    def run(self, ctx: LoopContext) -> Outcome:
        while True:
            step = self.model.next(ctx)
            if isinstance(step, Finish):
                return Done(step.answer)
            if ctx.iterations >= MAX_ITERATIONS:
                return LimitReached(ctx.iterations)
            ctx.iterations += 1
            key = f"{ctx.run_id}:{ctx.iterations}"
            result = self.terminal.request(ctx, step.command, key)
            if isinstance(result, AwaitingApproval):
                ctx.history.append(Turn(step.command, "awaiting approval"))
                ctx.parked_on = result.approval_id
                return result
            ctx.history.append(Turn(step.command, result))

    def resume(self, ctx: LoopContext, decision: Decision) -> Outcome:
        """Fills the parked call's result with the decision's real outcome and goes on."""
        parked = ctx.history[-1]
        ctx.parked_on = None
        match decision:
            case Granted():
                # The grant covers the same command: resubmit it (no new prompt) and run it.
                key = f"{ctx.run_id}:{ctx.iterations}:granted"
                result = self.terminal.request(ctx, parked.command, key)
                parked.result = result if isinstance(result, str) else "still pending"
            case Denied(reason=reason, decided_by=who):
                parked.result = f"denied by {who}: {reason}"
            case TimedOut(reason=reason):
                parked.result = f"nobody decided: {reason}"
                # The wait cap: with fallback_on_timeout = pause (or cancel_run) the service
                # holds the run, and the task ends stopped by policy, not by the loop.
                run = self.terminal.client.run(ctx.run_id)
                if run.status.value in ("paused", "cancelled"):
                    return PausedByPolicy(run.reason or reason)
            case Cancelled(reason=reason):
                parked.result = f"denied: {reason}"
        return self.run(ctx)


# --- the agent and the platform ------------------------------------------------------------------


class Agent:
    """One agent: its loop's context, and its state (running, awaiting_approval, done…)."""

    def __init__(self, name: str, loop: ToolLoop, ctx: LoopContext):
        self.name = name
        self.loop = loop
        self.ctx = ctx
        self.state = "idle"
        self.outcome: Outcome | None = None
        self.finished = threading.Event()
        self.log: list[str] = []

    def settle(self, outcome: Outcome) -> None:
        self.outcome = outcome
        match outcome:
            case AwaitingApproval(approval_id=approval_id):
                self.state = "awaiting_approval"
                self.log.append(f"dev.awaiting_approval {approval_id}")
            case Done():
                self.state = "done"
                self.finished.set()
            case LimitReached(iterations=n):
                self.state = "blocked"
                self.log.append(f"toolloop.limit_reached iteration={n} max={MAX_ITERATIONS}")
                self.finished.set()
            case PausedByPolicy(reason=reason):
                self.state = "blocked"
                self.log.append(f"task_blocked origin=policy: {reason}")
                self.finished.set()


class Platform:
    """Runs agents' loops on one worker; a parked agent gives the worker back, and a decision
    (delivered by whatever wake source is plugged in) puts its resume on the worker again."""

    def __init__(self, workers: int = 1):
        self.worker = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="agent-worker")
        self._lock = threading.Lock()
        self._parked: dict[str, Agent] = {}
        self._early: dict[str, Decision] = {}
        self.wakes: list[str] = []

    def start(self, agent: Agent) -> Future:
        return self.worker.submit(self._step, agent, None)

    def wake(self, approval_id: str, decision: Decision, source: str) -> None:
        """Delivers a settled decision; unknown ids are kept in case their agent parks later."""
        with self._lock:
            agent = self._parked.pop(approval_id, None)
            if agent is None:
                self._early[approval_id] = decision
                return
            self.wakes.append(source)
        self.worker.submit(self._step, agent, decision)

    def parked(self) -> list[str]:
        with self._lock:
            return list(self._parked)

    def _step(self, agent: Agent, decision: Decision | None) -> None:
        agent.state = "running"
        if decision is None:
            outcome = agent.loop.run(agent.ctx)
        else:
            outcome = agent.loop.resume(agent.ctx, decision)
        agent.settle(outcome)
        if isinstance(outcome, AwaitingApproval):
            with self._lock:
                early = self._early.pop(outcome.approval_id, None)
                if early is None:
                    self._parked[outcome.approval_id] = agent
                    return
            self.worker.submit(self._step, agent, early)

    def shutdown(self) -> None:
        self.worker.shutdown(wait=True)


def project(root: Path) -> str:
    """A small project whose `npm test` prints a real result."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text(
        '{"name": "drill", "version": "1.0.0", "private": true,'
        ' "scripts": {"test": "node -e \\"console.log(\'12 passing\')\\""}}\n'
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return str(root)


def main() -> int:
    url, token = os.environ.get("ASSENT_URL"), os.environ.get("ASSENT_TOKEN")
    if not url or not token:
        print("set ASSENT_URL and ASSENT_TOKEN (the requester token)", file=sys.stderr)
        return 2
    from wake import EventStreamWake

    client = Client(url, token)
    platform = Platform()
    wake = EventStreamWake(client, platform).start()
    with tempfile.TemporaryDirectory() as tmp:
        ctx = LoopContext(f"drill-{int(time.time())}", "run the tests", project(Path(tmp) / "shop"))
        agent = Agent("dev", ToolLoop(ScriptedModel(), Terminal(client, park=True)), ctx)
        platform.start(agent).result()
        print(f"agent state: {agent.state} (iterations used: {ctx.iterations}); decide the prompt")
        agent.finished.wait()
        print(f"agent state: {agent.state}; outcome: {agent.outcome}; iterations: {ctx.iterations}")
    wake.stop()
    platform.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
