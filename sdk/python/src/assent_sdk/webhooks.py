"""Verifying the service's signed webhooks (Standard Webhooks: ``webhook-id``,
``webhook-timestamp``, ``webhook-signature``) with the reference library, which compares in
constant time and refuses a timestamp more than five minutes off."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import standardwebhooks
from pydantic import ValidationError

from .errors import MalformedResponse, WebhookVerificationFailed
from .models import SettledData, WebhookPayload
from .results import Cancelled, Decision, Denied, Granted, TimedOut


@dataclass(frozen=True)
class WebhookMessage:
    """A verified delivery: ``type`` (e.g. ``approval.settled``), its ``timestamp`` and
    ``data``; ``webhook_id`` is the same on every retry of one delivery (deduplicate on it).
    For ``approval.settled``, ``decision`` is the person's (or the timeout's) decision as a
    value, with the grant's scope and expiry."""

    webhook_id: str
    type: str
    timestamp: datetime
    data: dict[str, Any]
    decision: Decision | None = None


def settled_decision(data: dict[str, Any]) -> Decision:
    """The decision an ``approval.settled`` delivery's ``data`` (a ``SettledData``) carries."""
    settled = SettledData.model_validate(data)
    outcome = settled.decision.value
    if outcome == "approved":
        return Granted(
            settled.approval_id,
            settled.grant_id,
            settled.scope.value if settled.scope is not None else None,
            settled.grant_expires_at,
            settled.decided_by,
            settled.decided_at,
            settled.reason,
        )
    if outcome == "denied":
        return Denied(
            settled.approval_id, settled.reason or "denied", settled.decided_by, settled.decided_at
        )
    if outcome == "timed_out":
        return TimedOut(settled.approval_id, settled.reason or "nobody answered in time", None)
    return Cancelled(settled.approval_id, settled.reason or "cancelled")


def verify_webhook(
    secret: str, body: bytes | str, headers: Mapping[str, str]
) -> WebhookMessage:
    """Verifies ``body`` (the raw bytes as received) against ``headers`` with the webhook's
    ``secret`` (``whsec_…``); raises :class:`WebhookVerificationFailed` for a tampered, unsigned,
    stale or future message, and :class:`MalformedResponse` for a signed body that is not a
    webhook message."""
    try:
        hook = standardwebhooks.Webhook(secret)
    except Exception as err:  # the library raises several kinds for a bad secret
        raise ValueError(f"not a webhook secret (whsec_…): {err}") from None
    plain = {str(k).lower(): str(v) for k, v in headers.items()}
    try:
        hook.verify(body, plain, json_parse=False)
    except standardwebhooks.webhooks.WebhookVerificationError as err:
        raise WebhookVerificationFailed(f"the webhook did not verify: {err}") from None
    try:
        payload = WebhookPayload.model_validate_json(body)
        decision = settled_decision(payload.data) if payload.type == "approval.settled" else None
    except ValidationError as err:
        raise MalformedResponse(
            f"a signed webhook unlike the OpenAPI document (WebhookPayload, SettledData): {err}"
        ) from None
    return WebhookMessage(
        plain["webhook-id"], payload.type, payload.timestamp, payload.data, decision
    )
