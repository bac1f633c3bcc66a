"""Verifying the service's signed webhooks (Standard Webhooks: ``webhook-id``,
``webhook-timestamp``, ``webhook-signature``) with the reference library, which compares in
constant time and refuses a timestamp more than five minutes off."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import standardwebhooks
from pydantic import ValidationError

from .errors import MalformedResponse, WebhookVerificationFailed


@dataclass(frozen=True)
class WebhookMessage:
    """A verified delivery: ``type`` (e.g. ``approval.settled``), its ``timestamp`` and
    ``data``; ``webhook_id`` is the same on every retry of one delivery (deduplicate on it)."""

    webhook_id: str
    type: str
    timestamp: str
    data: dict[str, Any]


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
    except (ValueError, KeyError, TypeError, ValidationError) as err:
        raise MalformedResponse(f"a signed webhook that is not {{type, timestamp, data}}: {err}")
    return WebhookMessage(plain["webhook-id"], kind, str(timestamp), data)
