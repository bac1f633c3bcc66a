"""The seed's drill (ADR 0052) against a real `assent serve`: a loop that cannot block parks on
a pending action and is woken by the person's decision, here from the agent event stream.
Run by scripts/test.d/60-sdk.sh (pytest, with sdk/python/tests on the path for the service)."""

import sys
import threading
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "sdk" / "python" / "tests"))

from drill import (  # noqa: E402
    MAX_ITERATIONS,
    Agent,
    AwaitingApproval,
    Done,
    EventStreamWake,
    LimitReached,
    LoopContext,
    PausedByPolicy,
    Platform,
    ScriptedModel,
    Terminal,
    ToolLoop,
    project,
)
from service import Service  # noqa: E402

from assent_sdk import Client  # noqa: E402

WAIT = 60  # seconds: a bound for a test that has gone wrong, never a pause


@pytest.fixture
def drill(tmp_path):
    """A service, a platform with one worker, and the event-stream wake source."""
    started = []

    def start(policy=None):
        workdir = tmp_path / f"svc{len(started)}"
        workdir.mkdir()
        service = Service(workdir, policy)
        client = Client(service.url, service.requester)
        platform = Platform(workers=1)
        wake = EventStreamWake(client, platform).start()
        started.append((service, client, platform, wake))
        return service, client, platform, wake

    yield start
    for service, client, platform, wake in started:
        # The service first: its shutdown ends the open event stream, which ends the wake thread.
        service.stop()
        wake.stop()
        platform.shutdown()
        client.close()


def agent(client, run_id, cwd, *, park=True):
    ctx = LoopContext(run_id, "run the tests", cwd)
    return Agent("dev", ToolLoop(ScriptedModel(), Terminal(client, park=park)), ctx)


def park(platform, dev):
    platform.start(dev).result(timeout=WAIT)
    assert dev.state == "awaiting_approval", f"a pending action parks the loop: {dev.state} {dev.outcome}"
    assert isinstance(dev.outcome, AwaitingApproval)
    assert dev.ctx.iterations == 1, "parking spent exactly the one iteration that asked"
    # The worker is free while the agent waits: another job runs on the only worker at once.
    assert platform.worker.submit(lambda: "other work").result(timeout=5) == "other work", (
        "a parked agent must release the worker, not block it polling"
    )
    return dev.outcome.approval_id


def test_a_late_approval_resumes_the_loop_with_the_real_output_after_one_iteration(drill, tmp_path):
    service, client, platform, wake = drill()
    cwd = project(tmp_path / "shop")

    # The seed's pipeline, for contrast: "pending" as a tool result burns the whole cap.
    naive = agent(client, "naive-run", cwd, park=False)
    platform.start(naive).result(timeout=WAIT)
    assert isinstance(naive.outcome, LimitReached) and naive.ctx.iterations == MAX_ITERATIONS, (
        f"the naive loop spends all {MAX_ITERATIONS} iterations on 'pending': {naive.outcome}"
    )
    assert all("status pending" in t.result for t in naive.ctx.history), naive.ctx.history

    dev = agent(client, "drill-run", cwd)
    approval_id = park(platform, dev)
    assert dev.ctx.history[-1].result == "awaiting approval"

    # The approval arrives late: after the naive loop had already given up.
    assert naive.finished.is_set(), "the approval below comes after a naive loop would have quit"
    service.approve(approval_id)
    assert dev.finished.wait(WAIT), f"the decision must wake the agent: {dev.state}, {wake.error}"
    assert platform.wakes == ["event"], f"woken once, by the event stream: {platform.wakes}"
    assert isinstance(dev.outcome, Done), f"the loop ran to its end: {dev.outcome}"
    assert dev.ctx.iterations == 1, f"exactly one iteration was used, got {dev.ctx.iterations}"
    output = dev.ctx.history[0].result
    assert "12 passing" in output and "pending" not in output, (
        f"the command's real output replaced 'pending' in the loop's history: {output!r}"
    )
    assert "12 passing" in dev.outcome.answer, dev.outcome
    assert len(service.approvals_of_run("drill-run")) == 1, "one prompt for the parked call"


def test_a_denial_resumes_the_loop_with_the_reason_and_no_second_identical_prompt(drill, tmp_path):
    service, client, platform, wake = drill()
    cwd = project(tmp_path / "shop")
    dev = agent(client, "deny-run", cwd)
    approval_id = park(platform, dev)

    service.deny(approval_id, "not on the shared runner, use the CI")
    assert dev.finished.wait(WAIT), f"the denial must wake the agent: {dev.state}, {wake.error}"
    assert isinstance(dev.outcome, Done), dev.outcome
    first = dev.ctx.history[0]
    assert first.command == "npm test" and "not on the shared runner, use the CI" in first.result, (
        f"the loop resumed with the person's reason as the call's result: {first}"
    )
    assert dev.ctx.submitted.count("npm test") == 1, (
        f"the agent never asked for the denied command again: {dev.ctx.submitted}"
    )
    approvals = service.approvals_of_run("deny-run")
    assert len(approvals) == 1, f"no second prompt for the run: {[a['approval_id'] for a in approvals]}"
    assert dev.ctx.history[1].command != "npm test", "it took another path"


def test_nobody_deciding_ends_the_run_as_paused_by_policy_not_an_iteration_limit(drill, tmp_path):
    # The wait cap is the policy's approval timeout; its fallback pauses the run. The service's
    # own sweeper times the prompt out (no sleep here: the test waits for the event).
    service, client, platform, wake = drill(
        'approval_timeout_seconds = 1\nfallback_on_timeout = "pause"\n'
    )
    cwd = project(tmp_path / "shop")
    dev = agent(client, "cap-run", cwd)
    park(platform, dev)

    assert dev.finished.wait(WAIT), f"the timeout must wake the agent: {dev.state}, {wake.error}"
    assert isinstance(dev.outcome, PausedByPolicy), (
        f"nobody deciding ends the run as paused by policy: {dev.outcome}"
    )
    assert not isinstance(dev.outcome, LimitReached)
    assert "fallback_on_timeout = pause" in dev.outcome.reason, dev.outcome.reason
    assert dev.ctx.iterations == 1, "waiting spent no iteration"
    assert any("origin=policy" in line for line in dev.log), dev.log
    assert client.run("cap-run").status.value == "paused", "the service paused the run too"
