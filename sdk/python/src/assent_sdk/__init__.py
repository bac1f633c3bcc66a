"""Assent for agents that cannot block: submit an action, get the answer as a value, and learn
the person's decision by long-poll, the agent event stream or a signed webhook."""

from .client import Client
from .errors import (
    AssentError,
    MalformedResponse,
    ServiceError,
    Unavailable,
    WebhookVerificationFailed,
)
from .events import AgentEvent, EventStream
from .models import ActionRequest, Approval, Grant, RunState, SubmitResponse
from .results import (
    Allowed,
    Blocked,
    Cancelled,
    Decision,
    Denied,
    Granted,
    Pending,
    RememberedDenial,
    StillPending,
    Submitted,
    TimedOut,
    WouldAsk,
    decision_of,
)
from .webhooks import WebhookMessage, verify_webhook

__all__ = [
    "ActionRequest",
    "AgentEvent",
    "Allowed",
    "Approval",
    "AssentError",
    "Blocked",
    "Cancelled",
    "Client",
    "Decision",
    "Denied",
    "EventStream",
    "Grant",
    "Granted",
    "MalformedResponse",
    "Pending",
    "RememberedDenial",
    "RunState",
    "ServiceError",
    "StillPending",
    "SubmitResponse",
    "Submitted",
    "TimedOut",
    "Unavailable",
    "WebhookMessage",
    "WebhookVerificationFailed",
    "WouldAsk",
    "decision_of",
    "verify_webhook",
]
