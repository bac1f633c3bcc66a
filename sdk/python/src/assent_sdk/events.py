"""``GET /v1/events`` for an agent: its own requests' events, typed, with ``Last-Event-ID``
resume and reconnects."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import httpx
from pydantic import ValidationError

from .errors import AssentError, MalformedResponse, ServiceError
from .models import Approval, Grant, RunState
from .results import Decision, StillPending, decision_of
from .sse import MAX_LINE_BYTES, parse

if TYPE_CHECKING:
    from .client import Client

#: With the service's heartbeat every 15 s, this long without a byte means the link is dead.
IDLE_LIMIT = 45.0
FIRST_BACKOFF = 0.25
MAX_BACKOFF = 10.0


@dataclass(frozen=True)
class AgentEvent:
    """One event: ``id`` is the persisted id to resume after; ``type`` e.g. ``approval.settled``,
    ``grant.created``, ``run.paused``; the typed payload in ``approval``, ``grant`` or ``run``."""

    id: int
    at: datetime
    type: str
    approval: Approval | None
    grant: Grant | None
    run: RunState | None
    raw: dict[str, Any]

    @property
    def decision(self) -> Decision | StillPending | None:
        """For ``approval.settled``: the decision as a value."""
        if self.type == "approval.settled" and self.approval is not None:
            return decision_of(self.approval)
        return None


def envelope(text: str) -> AgentEvent:
    """Parses one event's ``data:`` (an EventEnvelope) into an :class:`AgentEvent`."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as err:
        raise MalformedResponse(f"an event that is not JSON: {err}") from None
    if not isinstance(raw, dict):
        raise MalformedResponse("an event that is not a JSON object")
    try:
        event_id = raw["id"]
        kind = raw["type"]
        if not isinstance(event_id, int) or not isinstance(kind, str):
            raise MalformedResponse("an event whose id is not an integer or type not a string")
        at = datetime.fromisoformat(str(raw["at"]).replace("Z", "+00:00"))
        approval = Approval.model_validate(raw["approval"]) if "approval" in raw else None
        grant = Grant.model_validate(raw["grant"]) if "grant" in raw else None
        run = RunState.model_validate(raw["run"]) if "run" in raw else None
    except KeyError as err:
        raise MalformedResponse(f"an event without its {err.args[0]!r} field") from None
    except (ValidationError, ValueError) as err:
        raise MalformedResponse(f"an event unlike the OpenAPI document: {err}") from None
    return AgentEvent(event_id, at, kind, approval, grant, run, raw)


class EventStream:
    """Iterates the agent's events for ever, reconnecting (with backoff) after a dropped
    connection and resuming after :attr:`last_event_id`. Keep that id (it is persisted by the
    service) to resume in another process. Errors of the service's answers raise."""

    def __init__(
        self,
        client: Client,
        last_event_id: int | None = None,
        *,
        max_line_bytes: int = MAX_LINE_BYTES,
        idle_limit: float = IDLE_LIMIT,
        reconnect: bool = True,
    ):
        self._client = client
        self.last_event_id = last_event_id
        self._max_line = max_line_bytes
        self._idle = idle_limit
        self._reconnect = reconnect
        self._response: httpx.Response | None = None
        self._closed = False

    def close(self) -> None:
        """Stops the stream from any thread: the iteration ends at the latest with the next
        event or heartbeat (every 15 s). Breaking out of the ``for`` loop ends it at once."""
        self._closed = True
        response = self._response
        if response is not None:
            response.close()

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[AgentEvent]:
        backoff = FIRST_BACKOFF
        while not self._closed:
            headers = {"accept": "text/event-stream"}
            if self.last_event_id is not None:
                headers["last-event-id"] = str(self.last_event_id)
            timeout = httpx.Timeout(10.0, read=self._idle)
            try:
                with self._client._http.stream(
                    "GET", "/v1/events", headers=headers, timeout=timeout
                ) as response:
                    self._response = response
                    if response.status_code != 200:
                        body = b""
                        for chunk in response.iter_bytes():
                            body += chunk
                            if len(body) > 65536:
                                break
                        raise self._client._error(response.status_code, body)
                    backoff = FIRST_BACKOFF
                    for sse in parse(response.iter_bytes(), self._max_line):
                        if self._closed:
                            return
                        event = envelope(sse.data)
                        self.last_event_id = event.id
                        yield event
            except (ServiceError, MalformedResponse):
                raise
            except (httpx.TransportError, httpx.StreamError) as err:
                if self._closed:
                    return
                if not self._reconnect:
                    raise AssentError(f"the event stream dropped: {err}") from err
            finally:
                self._response = None
            if self._closed or not self._reconnect:
                return
            time.sleep(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF)
