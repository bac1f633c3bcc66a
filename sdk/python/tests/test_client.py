"""The SDK against a real `assent serve`: a submission's answer, a person's decision and the
timeout fallback reach the agent as values, by long-poll and by the event stream."""

import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import assent_sdk
from assent_sdk import (
    Allowed,
    Client,
    Denied,
    Granted,
    Pending,
    ServiceError,
    StillPending,
    TimedOut,
    WebhookVerificationFailed,
    verify_webhook,
)
from service import shell


def test_the_installed_package_is_tested():
    assert "site-packages" in assent_sdk.__file__, (
        "the suite tests the package as `pip install ./sdk/python` installed it, "
        f"not the source tree: {assent_sdk.__file__}"
    )


def test_an_action_the_policy_allows_is_allowed(service):
    with Client(service.url, service.requester) as client:
        answer = client.submit(shell("run-ok", "git status"))
    assert isinstance(answer, Allowed), f"a read-only git status is allowed at once: {answer}"


def test_a_pending_action_is_granted_by_long_poll_and_the_grant_covers_the_retry(service):
    with Client(service.url, service.requester) as client:
        answer = client.submit(shell("run-a", "npm test"), idempotency_key="k-1")
        assert isinstance(answer, Pending), f"npm test in an unknown repo asks a person: {answer}"
        decided: list = []
        waiter = threading.Thread(
            target=lambda: decided.append(client.wait_for_decision(answer.approval_id, timeout=30))
        )
        waiter.start()
        service.approve(answer.approval_id, scope="run")
        waiter.join(timeout=40)
        assert decided, "the long-poll must end once the person decided"
        decision = decided[0]
        assert isinstance(decision, Granted), f"the approval is a Granted value: {decision}"
        assert decision.grant_id, "an approval for the run comes with its grant"
        assert decision.decided_by == "owner", "it names who approved"
        assert decision.scope == "run", f"the grant is for the run: {decision.scope}"
        again = client.submit(shell("run-a", "npm test"), idempotency_key="k-2")
        assert isinstance(again, Allowed) and again.grant_id == decision.grant_id, (
            f"the run's grant covers the retry, without a second prompt: {again}"
        )


def test_an_idempotency_key_answers_the_same_prompt_and_refuses_another_body(service):
    with Client(service.url, service.requester) as client:
        first = client.submit(shell("run-i", "npm test"), idempotency_key="same")
        second = client.submit(shell("run-i", "npm test"), idempotency_key="same")
        assert isinstance(first, Pending) and isinstance(second, Pending)
        assert first.approval_id == second.approval_id, (
            "a retry under the same key is the same request, never a second prompt"
        )
        with pytest.raises(ServiceError) as refused:
            client.submit(shell("run-i", "npm run build"), idempotency_key="same")
        assert refused.value.code == "unprocessable", (
            f"the key reused with another request is refused with a stable code: {refused.value}"
        )
    assert len(service.approvals_of_run("run-i")) == 1, "one prompt for the run"


def test_a_wait_resumes_in_another_client_and_a_denial_carries_the_reason(service):
    with Client(service.url, service.requester) as client:
        answer = client.submit(shell("run-d", "npm test"))
        assert isinstance(answer, Pending)
        early = client.wait_for_decision(answer.approval_id, timeout=1)
        assert isinstance(early, StillPending), f"nothing decided yet: {early}"
        assert isinstance(client.decision(answer.approval_id), StillPending)
    service.deny(answer.approval_id, "not on the release branch")
    with Client(service.url, service.requester) as later:
        decision = later.wait_for_decision(answer.approval_id, timeout=30)
    assert isinstance(decision, Denied), f"a denial is a Denied value: {decision}"
    assert decision.reason == "not on the release branch", "with the person's own words"


def test_the_event_stream_brings_the_decision_and_resumes_after_an_id(service):
    with Client(service.url, service.requester) as client:
        answer = client.submit(shell("run-e", "npm test"))
        assert isinstance(answer, Pending)
        service.approve(answer.approval_id)
        seen = []
        # From id 0: everything this agent's stream holds (the replay window), so the events of
        # the prompt opened and settled above are there although the stream opened later.
        with client.events(last_event_id=0) as stream:
            for event in stream:
                seen.append(event)
                if event.type == "approval.settled":
                    break
        kinds = [e.type for e in seen]
        assert kinds[0] == "approval.requested", f"the stream replays the agent's events: {kinds}"
        settled = seen[-1]
        assert isinstance(settled.decision, Granted), settled
        assert settled.decision.approval_id == answer.approval_id
        assert [e.id for e in seen] == sorted(e.id for e in seen), "ids grow"
        with client.events(last_event_id=seen[0].id) as resumed:
            first = next(iter(resumed))
        assert first.id > seen[0].id and first.type != "approval.requested", (
            f"Last-Event-ID resumes right after the given event: {first.type} {first.id}"
        )


def test_nobody_deciding_is_a_timeout_value_and_the_run_is_paused(make_service):
    service = make_service('approval_timeout_seconds = 1\nfallback_on_timeout = "pause"\n')
    with Client(service.url, service.requester) as client:
        answer = client.submit(shell("run-t", "npm test"))
        assert isinstance(answer, Pending)
        decision = client.wait_for_decision(answer.approval_id, timeout=30)
        assert isinstance(decision, TimedOut), f"nobody decided: {decision}"
        assert decision.fallback == "pause", decision
        run = client.run("run-t")
        assert run.status.value == "paused", f"the policy's fallback paused the run: {run}"


def test_a_wrong_token_is_a_service_error_with_its_code(service):
    with Client(service.url, "not-a-token") as client:
        with pytest.raises(ServiceError) as refused:
            client.submit(shell("run-x", "git status"))
    assert refused.value.code == "unauthorized" and refused.value.status == 401, refused.value
    with Client(service.url, "not-a-token") as client:
        with pytest.raises(ServiceError) as stream_refused:
            next(iter(client.events()))
    assert stream_refused.value.code == "unauthorized", (
        f"the event stream does not retry a refused token for ever: {stream_refused.value}"
    )


def test_the_services_own_signed_webhook_verifies_and_carries_the_decision(service):
    received: list = []
    arrived = threading.Event()

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["content-length"]))
            received.append((body, dict(self.headers.items())))
            self.send_response(204)
            self.end_headers()
            arrived.set()

        def log_message(self, *args):
            pass

    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{receiver.server_address[1]}/hook"
        registered = service.person.post(
            "/v1/webhooks", json={"url": url, "events": ["approval.settled"], "agent": "default"}
        )
        assert registered.is_success, f"a platform admin registers the webhook: {registered.text}"
        secret = registered.json()["secret"]
        with Client(service.url, service.requester) as client:
            answer = client.submit(shell("run-w", "npm test"))
        assert isinstance(answer, Pending)
        service.deny(answer.approval_id, "use the CI")
        assert arrived.wait(30), "the service posts the settlement"
        body, headers = received[0]
        message = verify_webhook(secret, body, headers)
        assert message.type == "approval.settled"
        assert isinstance(message.decision, Denied), f"the delivery is a Denied value: {message}"
        assert message.decision.reason == "use the CI" and message.decision.decided_by == "owner"
        assert message.decision.approval_id == answer.approval_id
        with pytest.raises(WebhookVerificationFailed):
            verify_webhook(secret, body.replace(b'"denied"', b'"approved"'), headers)
    finally:
        receiver.shutdown()
        receiver.server_close()


def test_the_event_stream_reconnects_after_a_restart_and_resumes_without_a_gap(service):
    seen: list = []
    first_seen, second_seen = threading.Event(), threading.Event()
    with Client(service.url, service.requester) as client:
        stream = client.events(last_event_id=0)

        def follow():
            for event in stream:
                seen.append(event)
                if event.approval is not None and event.approval.run_id == "run-r1":
                    first_seen.set()
                if event.approval is not None and event.approval.run_id == "run-r2":
                    second_seen.set()
                    return

        reader = threading.Thread(target=follow, daemon=True)
        reader.start()
        first = client.submit(shell("run-r1", "npm test"))
        assert isinstance(first, Pending)
        assert first_seen.wait(30), "the stream is connected before the service goes away"
        service.restart()
        second = client.submit(shell("run-r2", "npm test"))
        assert isinstance(second, Pending)
        assert second_seen.wait(30), f"the stream came back after the restart: {[e.type for e in seen]}"
        reader.join(timeout=10)
    runs = [e.approval.run_id for e in seen if e.type == "approval.requested"]
    assert runs == ["run-r1", "run-r2"], (
        f"each prompt once, in order, across the reconnect (Last-Event-ID): {runs}"
    )
    assert [e.id for e in seen] == sorted({e.id for e in seen}), "no event twice"


def test_the_service_runs_on_the_store_the_suite_asked_for(service):
    on_postgres = bool(os.environ.get("ASSENT_TEST_PG"))
    assert (service.database is not None) == on_postgres, service.database
    # `assent serve --database postgres://…` writes no token files (identities live in the
    # database); on SQLite the data dir holds them.
    assert (service.data / "requester.token").exists() != on_postgres, (
        f"the service must run on {'PostgreSQL' if on_postgres else 'SQLite'}"
    )
