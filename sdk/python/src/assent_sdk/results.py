"""The service's answers as values: what a submission got (:data:`Submitted`) and how a person
(or the policy's timeout) decided (:data:`Decision`). Branch on the type (``match`` /
``isinstance``), never on strings."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .errors import MalformedResponse
from .models import Approval, SubmitResponse


@dataclass(frozen=True)
class Allowed:
    """Go ahead: the policy allowed it, or a grant covers it (``grant_id``)."""

    action_id: str
    grant_id: str | None
    rule: str
    response: SubmitResponse


@dataclass(frozen=True)
class Pending:
    """A person must decide: wait on ``approval_id`` (long-poll, the event stream or a
    webhook) instead of treating the action as done."""

    action_id: str
    approval_id: str
    rule: str
    response: SubmitResponse


@dataclass(frozen=True)
class Blocked:
    """The policy (or a held run) refuses it; ``reasons`` say why."""

    action_id: str
    reasons: list[str]
    rule: str
    response: SubmitResponse


@dataclass(frozen=True)
class RememberedDenial:
    """A person already denied an equivalent request of this run; ``reasons`` carry theirs."""

    action_id: str
    approval_id: str | None
    reasons: list[str]
    response: SubmitResponse


@dataclass(frozen=True)
class WouldAsk:
    """A screening call (no prompt opened) that would need a person."""

    action_id: str
    response: SubmitResponse


Submitted = Allowed | Pending | Blocked | RememberedDenial | WouldAsk


def submitted(response: SubmitResponse) -> Submitted:
    status = _value(response.status)
    if status == "allowed":
        return Allowed(response.action_id, response.grant_id, response.rule, response)
    if status == "pending":
        if not response.approval_id:
            raise MalformedResponse("a pending answer without an approval_id")
        return Pending(response.action_id, response.approval_id, response.rule, response)
    if status == "blocked":
        return Blocked(response.action_id, list(response.reasons), response.rule, response)
    if status == "denied":
        return RememberedDenial(
            response.action_id, response.approval_id, list(response.reasons), response
        )
    if status == "would_ask":
        return WouldAsk(response.action_id, response)
    raise MalformedResponse(f"unknown submission status {status!r}")


@dataclass(frozen=True)
class Granted:
    """A person approved. The grant ``grant_id`` covers the action (resubmit it to use it);
    ``scope`` (``once``, ``run`` …) and ``expires_at`` when the answer names them (a webhook
    does; an approval names ``once`` and ``run`` by its status)."""

    approval_id: str
    grant_id: str | None
    scope: str | None
    expires_at: datetime | None
    decided_by: str | None
    decided_at: datetime | None
    reason: str | None
    approval: Approval | None = None


@dataclass(frozen=True)
class Denied:
    """A person denied, saying why (``reason``): that path is closed, try another."""

    approval_id: str
    reason: str
    decided_by: str | None
    decided_at: datetime | None
    approval: Approval | None = None


@dataclass(frozen=True)
class TimedOut:
    """Nobody decided before the prompt's time ran out. ``fallback`` is the policy's
    ``fallback_on_timeout`` (``deny``; ``pause``: the run is paused until a person resumes it;
    ``cancel_run``) when the answer names it (a webhook does not: ask ``Client.run``)."""

    approval_id: str
    reason: str
    fallback: str | None
    approval: Approval | None = None


@dataclass(frozen=True)
class Cancelled:
    """The prompt closed without a decision (its run ended)."""

    approval_id: str
    reason: str
    approval: Approval | None = None


@dataclass(frozen=True)
class StillPending:
    """Not decided yet: ask again later with the same ``approval_id`` (the wait resumes)."""

    approval_id: str
    approval: Approval


Decision = Granted | Denied | TimedOut | Cancelled

_SCOPE_OF_STATUS = {"approved_once": "once", "approved_for_run": "run"}


def decision_of(approval: Approval) -> Decision | StillPending:
    """What a (settled or pending) approval says, as a value."""
    resolution = _value(approval.resolution) if approval.resolution is not None else None
    status = _value(approval.status)
    reason = approval.decision_reason
    if resolution is None and status == "requested":
        return StillPending(approval.approval_id, approval)
    if resolution == "approved" or (resolution is None and status.startswith("approved")):
        return Granted(
            approval.approval_id,
            approval.grant_id,
            _SCOPE_OF_STATUS.get(status),
            None,
            approval.decided_by,
            approval.decided_at,
            reason,
            approval,
        )
    if resolution == "denied" or (resolution is None and status in ("denied", "blocked")):
        return Denied(
            approval.approval_id,
            reason or "denied",
            approval.decided_by,
            approval.decided_at,
            approval,
        )
    if resolution == "timed_out" or (resolution is None and status == "expired"):
        return TimedOut(
            approval.approval_id,
            reason or "nobody answered in time",
            _value(approval.fallback_on_timeout),
            approval,
        )
    return Cancelled(approval.approval_id, reason or f"closed ({status})", approval)


def _value(enum_or_str: object) -> str:
    return str(getattr(enum_or_str, "value", enum_or_str))
