"""The seed's drill (ADR 0052) against a real `assent serve`: a loop that cannot block parks on
a pending action and is woken by the person's decision — from the agent event stream, and in
the second variant from the service's signed webhook. Run by scripts/test.d/60-sdk.sh (pytest,
with sdk/python/tests on the path for the service)."""

import base64
import json
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import httpx
import pytest
import standardwebhooks

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "sdk" / "python" / "tests"))

from drill import (  # noqa: E402
    MAX_ITERATIONS,
    Agent,
    AwaitingApproval,
    Done,
    LimitReached,
    LoopContext,
    PausedByPolicy,
    Platform,
    ScriptedModel,
    Terminal,
    ToolLoop,
    project,
)
from wake import EventStreamWake, WebhookWake  # noqa: E402
from service import Service  # noqa: E402

from assent_sdk import Client  # noqa: E402

WAIT = 60  # seconds: a bound for a test that has gone wrong, never a pause
SOURCES = ["event", "webhook"]


class Drill:
    def __init__(self, workdir: Path, source: str, policy: str | None):
        self.service = Service(workdir, policy)
        self.client = Client(self.service.url, self.service.requester)
        self.platform = Platform(workers=1)
        self.source = source
        if source == "event":
            self.wake = EventStreamWake(self.client, self.platform).start()
        else:
            self.wake = WebhookWake(self.platform).start()
            # What `assent webhooks add URL --agent default --event approval.settled` does.
            answer = self.service.person.post(
                "/v1/webhooks",
                json={"url": self.wake.url, "events": ["approval.settled"], "agent": "default"},
            )
            assert answer.is_success, f"a platform admin registers the webhook: {answer.text}"
            self.webhook_id = answer.json()["id"]
            self.wake.secret = answer.json()["secret"]
            assert self.wake.secret.startswith("whsec_"), self.wake.secret

    def stop(self) -> None:
        # The service first: its shutdown ends the open event stream, which ends the wake thread.
        self.service.stop()
        self.wake.stop()
        self.platform.shutdown()
        self.client.close()


@pytest.fixture
def drill(tmp_path):
    started = []

    def start(source, policy=None):
        workdir = tmp_path / f"svc{len(started)}"
        workdir.mkdir()
        d = Drill(workdir, source, policy)
        started.append(d)
        return d

    yield start
    for d in started:
        d.stop()


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


@pytest.mark.parametrize("source", SOURCES)
def test_a_late_approval_resumes_the_loop_with_the_real_output_after_one_iteration(
    drill, tmp_path, source
):
    d = drill(source)
    cwd = project(tmp_path / "shop")

    # The seed's pipeline, for contrast: "pending" as a tool result burns the whole cap.
    naive = agent(d.client, "naive-run", cwd, park=False)
    d.platform.start(naive).result(timeout=WAIT)
    assert isinstance(naive.outcome, LimitReached) and naive.ctx.iterations == MAX_ITERATIONS, (
        f"the naive loop spends all {MAX_ITERATIONS} iterations on 'pending': {naive.outcome}"
    )
    assert all("status pending" in t.result for t in naive.ctx.history), naive.ctx.history

    dev = agent(d.client, "drill-run", cwd)
    approval_id = park(d.platform, dev)
    assert dev.ctx.history[-1].result == "awaiting approval"

    # The approval arrives late: after the naive loop had already given up.
    assert naive.finished.is_set(), "the approval below comes after a naive loop would have quit"
    d.service.approve(approval_id)
    assert dev.finished.wait(WAIT), f"the decision must wake the agent ({source}): {dev.state}"
    assert d.platform.wakes == [source], f"woken once, by the {source}: {d.platform.wakes}"
    assert isinstance(dev.outcome, Done), f"the loop ran to its end: {dev.outcome}"
    assert dev.ctx.iterations == 1, f"exactly one iteration was used, got {dev.ctx.iterations}"
    output = dev.ctx.history[0].result
    assert "12 passing" in output and "pending" not in output, (
        f"the command's real output replaced 'pending' in the loop's history: {output!r}"
    )
    assert "12 passing" in dev.outcome.answer, dev.outcome
    assert len(d.service.approvals_of_run("drill-run")) == 1, "one prompt for the parked call"


@pytest.mark.parametrize("source", SOURCES)
def test_a_denial_resumes_the_loop_with_the_reason_and_no_second_identical_prompt(
    drill, tmp_path, source
):
    d = drill(source)
    cwd = project(tmp_path / "shop")
    dev = agent(d.client, "deny-run", cwd)
    approval_id = park(d.platform, dev)

    d.service.deny(approval_id, "not on the shared runner, use the CI")
    assert dev.finished.wait(WAIT), f"the denial must wake the agent ({source}): {dev.state}"
    assert d.platform.wakes == [source], d.platform.wakes
    assert isinstance(dev.outcome, Done), dev.outcome
    first = dev.ctx.history[0]
    assert first.command == "npm test" and "not on the shared runner, use the CI" in first.result, (
        f"the loop resumed with the person's reason as the call's result: {first}"
    )
    assert "by owner" in first.result, f"and who decided: {first.result}"
    assert dev.ctx.submitted.count("npm test") == 1, (
        f"the agent never asked for the denied command again: {dev.ctx.submitted}"
    )
    approvals = d.service.approvals_of_run("deny-run")
    assert len(approvals) == 1, f"no second prompt for the run: {[a['approval_id'] for a in approvals]}"
    assert dev.ctx.history[1].command != "npm test", "it took another path"


@pytest.mark.parametrize("source", SOURCES)
def test_nobody_deciding_ends_the_run_as_paused_by_policy_not_an_iteration_limit(
    drill, tmp_path, source
):
    # The wait cap is the policy's approval timeout; its fallback pauses the run. The service's
    # own sweeper times the prompt out (no sleep here: the test waits for the wake).
    d = drill(source, 'approval_timeout_seconds = 1\nfallback_on_timeout = "pause"\n')
    cwd = project(tmp_path / "shop")
    dev = agent(d.client, "cap-run", cwd)
    park(d.platform, dev)

    assert dev.finished.wait(WAIT), f"the timeout must wake the agent ({source}): {dev.state}"
    assert d.platform.wakes == [source], d.platform.wakes
    assert isinstance(dev.outcome, PausedByPolicy), (
        f"nobody deciding ends the run as paused by policy: {dev.outcome}"
    )
    assert not isinstance(dev.outcome, LimitReached)
    assert "paused" in dev.outcome.reason, dev.outcome.reason
    assert dev.ctx.iterations == 1, "waiting spent no iteration"
    assert any("origin=policy" in line for line in dev.log), dev.log
    assert d.client.run("cap-run").status.value == "paused", "the service paused the run too"


def test_a_forged_stale_or_replayed_webhook_never_wakes_the_agent(drill, tmp_path):
    d = drill("webhook")
    cwd = project(tmp_path / "shop")
    dev = agent(d.client, "forge-run", cwd)
    approval_id = park(d.platform, dev)

    def message(approval):
        return json.dumps({
            "type": "approval.settled", "timestamp": "2026-12-07T12:00:00Z",
            "data": {"approval_id": approval, "run_id": "forge-run", "requester": "default",
                     "action_ids": [], "decision": "approved", "scope": "run", "grant_id": "g-1"},
        }).encode()

    def post(secret, at, msg_id="msg_forged", body=message(approval_id)):
        signature = standardwebhooks.Webhook(secret).sign(
            msg_id, datetime.fromtimestamp(at, tz=timezone.utc), body
        )
        headers = {
            "webhook-id": msg_id,
            "webhook-timestamp": str(int(at)),
            "webhook-signature": signature,
            "content-type": "application/json",
        }
        return httpx.post(d.wake.url, content=body, headers=headers, timeout=10)

    other = "whsec_" + base64.b64encode(os.urandom(32)).decode()
    assert post(other, time.time()).status_code == 401, "signed with another key: refused"
    assert post(d.wake.secret, time.time() - 600).status_code == 401, "ten minutes old: refused"
    huge = httpx.post(d.wake.url, content=b"x" * (2 << 20), timeout=10)
    assert huge.status_code == 413, "a body over 1 MiB is refused unread"
    assert dev.state == "awaiting_approval" and d.platform.wakes == [], (
        f"nothing that failed verification woke the agent: {dev.state} {d.platform.wakes}"
    )
    assert len(d.wake.refused) == 2, d.wake.refused
    # A retry of one delivery (the same webhook-id) is taken once.
    for _ in range(2):
        assert post(d.wake.secret, time.time(), "msg_retry", message("appr-other")).status_code == 204
    assert d.wake.delivered == ["approval.settled"], f"a retried delivery counts once: {d.wake.delivered}"

    # The genuine decision wakes it once; the service's delivery id is taken once only.
    d.service.deny(approval_id, "no")
    assert dev.finished.wait(WAIT), dev.state
    assert d.platform.wakes == ["webhook"], d.platform.wakes
    assert "no" in dev.ctx.history[0].result, dev.ctx.history[0]
    deliveries = d.service.person.get(f"/v1/webhooks/{d.webhook_id}/deliveries").json()["deliveries"]
    settled = [x for x in deliveries if x["type"] == "approval.settled"]
    assert settled and settled[0]["state"] == "delivered", f"the service recorded the delivery: {settled}"
    assert settled[0]["attempts"][0]["status"] == 204, settled[0]["attempts"]
