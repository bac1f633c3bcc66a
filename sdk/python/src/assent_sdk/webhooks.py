"""Verifying the service's signed webhooks (Standard Webhooks: ``webhook-id``,
``webhook-timestamp``, ``webhook-signature``) with the reference library, which compares in
constant time and refuses a timestamp more than five minutes off."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import standardwebhooks
from pydantic import ValidationError

from .errors import MalformedResponse, WebhookVerificationFailed
from .results import Cancelled, Decision, Denied, Granted, TimedOut


@dataclass(frozen=True)
class WebhookMessage:
    """A verified delivery: ``type`` (e.g. ``approval.settled``), its ``timestamp`` and
    ``data``; ``webhook_id`` is the same on every retry of one delivery (deduplicate on it).
    For ``approval.settled``, ``decision`` is the person's (or the timeout's) decision as a
    value, with the grant's scope and expiry."""

    webhook_id: str
    type: str
    timestamp: str
    data: dict[str, Any]
    decision: Decision | None = None


def _time(value: Any) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"not a time: {value!r}")
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _optional_str(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{key} is not a string")
    return value


def settled_decision(data: dict[str, Any]) -> Decision:
    """The decision an ``approval.settled`` delivery's ``data`` carries (``approval_id``,
    ``decision``, ``reason``, ``decided_by``, ``scope``, ``grant_id``, ``grant_expires_at`` …)."""
    approval_id = data.get("approval_id")
    outcome = data.get("decision")
    if not isinstance(approval_id, str) or not isinstance(outcome, str):
        raise TypeError("approval_id and decision must be strings")
    reason = _optional_str(data, "reason")
    decided_by = _optional_str(data, "decided_by")
    decided_at = _time(data.get("decided_at"))
    if outcome == "approved":
        return Granted(
            approval_id,
            _optional_str(data, "grant_id"),
            _optional_str(data, "scope"),
            _time(data.get("grant_expires_at")),
            decided_by,
            decided_at,
            reason,
        )
    if outcome == "denied":
        return Denied(approval_id, reason or "denied", decided_by, decided_at)
    if outcome == "timed_out":
        return TimedOut(approval_id, reason or "nobody answered in time", None)
    if outcome == "cancelled":
        return Cancelled(approval_id, reason or "cancelled")
    raise TypeError(f"unknown decision {outcome!r}")


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
        message = json.loads(body)
        kind, timestamp, data = message["type"], message["timestamp"], message["data"]
        if not isinstance(kind, str) or not isinstance(data, dict):
            raise TypeError("type must be a string and data an object")
        decision = settled_decision(data) if kind == "approval.settled" else None
    except (ValueError, KeyError, TypeError, ValidationError) as err:
        raise MalformedResponse(
            f"a signed webhook that is not {{type, timestamp, data}}: {err}"
        ) from None
    return WebhookMessage(plain["webhook-id"], kind, str(timestamp), data, decision)
