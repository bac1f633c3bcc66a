"""verify_webhook with the Standard Webhooks reference library: a genuine delivery verifies;
a tampered, re-signed-with-another-key, stale or unsigned one never does."""

import base64
import json
import os
from datetime import datetime, timedelta, timezone

import pytest
import standardwebhooks

from assent_sdk import Denied, Granted, MalformedResponse, WebhookVerificationFailed, verify_webhook

SECRET = "whsec_" + base64.b64encode(os.urandom(32)).decode()
BODY = json.dumps(
    {"type": "approval.settled", "timestamp": "2026-12-07T12:00:00Z",
     "data": {"approval_id": "appr-1", "run_id": "run-1", "requester": "default",
              "action_ids": ["act-1"], "decision": "approved", "decided_by": "owner",
              "scope": "run", "grant_id": "grant-1", "grant_expires_at": "2026-12-07T13:00:00Z"}}
).encode()


def signed(body: bytes, secret: str = SECRET, at: datetime | None = None, msg_id: str = "msg_1"):
    at = at or datetime.now(timezone.utc)
    signature = standardwebhooks.Webhook(secret).sign(msg_id, at, body)
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": signature,
    }


def test_a_genuine_delivery_verifies_into_a_message():
    message = verify_webhook(SECRET, BODY, signed(BODY))
    assert message.type == "approval.settled" and message.data["approval_id"] == "appr-1"
    assert message.webhook_id == "msg_1", "the id to deduplicate retries on"
    decision = message.decision
    assert isinstance(decision, Granted), f"a settlement is a Granted value: {decision}"
    assert (decision.grant_id, decision.scope, decision.decided_by) == ("grant-1", "run", "owner")
    assert decision.expires_at == datetime(2026, 12, 7, 13, 0, tzinfo=timezone.utc), decision


def test_a_denial_carries_the_reason():
    body = json.dumps({"type": "approval.settled", "timestamp": "2026-12-07T12:00:00Z", "data": {
        "approval_id": "a", "run_id": "r", "requester": "default", "action_ids": [],
        "decision": "denied", "reason": "not today", "decided_by": "owner"}}).encode()
    decision = verify_webhook(SECRET, body, signed(body)).decision
    assert isinstance(decision, Denied) and decision.reason == "not today", decision


def test_headers_are_matched_whatever_their_case():
    headers = {k.upper(): v for k, v in signed(BODY).items()}
    assert verify_webhook(SECRET, BODY, headers).type == "approval.settled"


@pytest.mark.parametrize(
    "case",
    ["tampered body", "other secret", "stale", "future", "no signature", "other id"],
)
def test_a_forged_or_stale_delivery_never_verifies(case):
    body, headers = BODY, signed(BODY)
    if case == "tampered body":
        body = BODY.replace(b"approved", b"denied!!")
    elif case == "other secret":
        other = "whsec_" + base64.b64encode(os.urandom(32)).decode()
        headers = signed(BODY, secret=other)
    elif case == "stale":
        headers = signed(BODY, at=datetime.now(timezone.utc) - timedelta(minutes=10))
    elif case == "future":
        headers = signed(BODY, at=datetime.now(timezone.utc) + timedelta(minutes=10))
    elif case == "no signature":
        del headers["webhook-signature"]
    elif case == "other id":
        headers["webhook-id"] = "msg_2"
    with pytest.raises(WebhookVerificationFailed):
        verify_webhook(SECRET, body, headers)


@pytest.mark.parametrize(
    "body",
    [
        b'["not", "a", "message"]',
        b'{"type":"approval.settled","timestamp":"2026-12-07T12:00:00Z","data":{"approval_id":"a","decision":"maybe"}}',
        b'{"type":"approval.settled","timestamp":"2026-12-07T12:00:00Z","data":{"decision":"approved"}}',
        b'{"type":"approval.settled","timestamp":"2026-12-07T12:00:00Z","data":{"approval_id":"a",'
        b'"decision":"approved","grant_expires_at":"yesterday"}}',
    ],
)
def test_a_signed_body_that_is_not_a_message_is_a_clear_error(body):
    with pytest.raises(MalformedResponse):
        verify_webhook(SECRET, body, signed(body))


def test_a_bad_secret_is_refused_up_front():
    with pytest.raises(ValueError):
        verify_webhook("whsec_", BODY, signed(BODY))
