"""The agent's side of the service: submit, wait (long-poll), the event stream."""

from __future__ import annotations

import json
import time
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ValidationError

from .errors import MalformedResponse, ServiceError, Unavailable
from .events import EventStream
from .models import ActionRequest, Approval, RunState, SubmitResponse
from .results import Decision, StillPending, Submitted, decision_of, submitted
from .sse import MAX_LINE_BYTES

#: Longest single long-poll; :meth:`Client.wait_for_decision` repeats it until its deadline.
LONG_POLL_SLICE = 25
#: Time allowed beyond a long-poll's ``wait`` for the answer to travel.
WAIT_SLACK = 10.0
#: Largest answer body read (the service's answers are far smaller).
MAX_BODY_BYTES = 8 << 20

M = TypeVar("M", bound=BaseModel)


class Client:
    """A client of the service at ``url`` (``http[s]://host:port``) presenting an agent's
    ``token`` (the service's ``requester.token``, or one from ``assent agents add``)."""

    def __init__(self, url: str, token: str, *, timeout: float = 30.0, verify: Any = True):
        if not token or "\n" in token or "\r" in token:
            raise ValueError("the token is empty or spans lines")
        self._timeout = timeout
        self._http = httpx.Client(
            base_url=url.rstrip("/"),
            headers={"authorization": f"Bearer {token}"},
            timeout=timeout,
            verify=verify,
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def submit(
        self, request: ActionRequest | dict[str, Any], *, idempotency_key: str | None = None
    ) -> Submitted:
        """``POST /v1/actions``. With ``idempotency_key`` a retry of the same request answers the
        first answer (the same approval), never a second prompt; the key reused with another
        request raises a :class:`ServiceError` with code ``unprocessable``."""
        if isinstance(request, dict):
            try:
                request = ActionRequest.model_validate(request)
            except ValidationError as err:
                raise ValueError(f"not an action request: {err}") from None
        if idempotency_key is not None:
            request = request.model_copy(update={"idempotency_key": idempotency_key})
        body = request.model_dump(mode="json", exclude_none=True)
        answer = self._call("POST", "/v1/actions", SubmitResponse, json=body)
        return submitted(answer)

    def decision(self, approval_id: str, *, wait: int = 0) -> Decision | StillPending:
        """``GET /v1/approvals/{id}?wait=S``: the decision, or :class:`StillPending` when nothing
        was decided within ``wait`` seconds (0: answer at once, for a loop that cannot block)."""
        wait = max(0, min(int(wait), 300))
        approval = self._call(
            "GET",
            f"/v1/approvals/{quote(approval_id, safe='')}",
            Approval,
            params={"wait": wait},
            timeout=wait + WAIT_SLACK,
        )
        return decision_of(approval)

    def wait_for_decision(self, approval_id: str, *, timeout: float) -> Decision | StillPending:
        """Long-polls (slices of at most 25 s) until the approval is decided or ``timeout``
        seconds pass; then :class:`StillPending`. Resumable: call it again with the same id,
        from this process or another, and it goes on waiting for the same prompt."""
        until = time.monotonic() + timeout
        while True:
            left = until - time.monotonic()
            wait = int(max(0.0, min(left - 1.0, LONG_POLL_SLICE)))
            answer = self.decision(approval_id, wait=wait)
            if not isinstance(answer, StillPending):
                return answer
            if time.monotonic() >= until:
                return answer
            if wait == 0:
                time.sleep(min(0.2, max(0.0, until - time.monotonic())))

    def run(self, run_id: str) -> RunState:
        """``GET /v1/runs/{id}``: whether the run goes on, or is paused/cancelled by a timeout."""
        return self._call("GET", f"/v1/runs/{quote(run_id, safe='')}", RunState)

    def events(
        self, last_event_id: int | None = None, *, max_line_bytes: int = MAX_LINE_BYTES
    ) -> EventStream:
        """``GET /v1/events``: this agent's own events, resumed after ``last_event_id``."""
        return EventStream(self, last_event_id, max_line_bytes=max_line_bytes)

    def _call(
        self,
        method: str,
        path: str,
        model: type[M],
        *,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> M:
        try:
            with self._http.stream(
                method, path, timeout=timeout if timeout is not None else self._timeout, **kwargs
            ) as response:
                body = bytearray()
                for chunk in response.iter_bytes():
                    body += chunk
                    if len(body) > MAX_BODY_BYTES:
                        raise MalformedResponse(
                            f"{method} {path}: an answer larger than {MAX_BODY_BYTES} bytes"
                        )
        except httpx.TransportError as err:
            raise Unavailable(f"cannot reach the service: {err}") from err
        if not response.is_success:
            raise self._error(response.status_code, bytes(body))
        try:
            return model.model_validate_json(bytes(body))
        except ValidationError as err:
            raise MalformedResponse(
                f"{method} {path}: the answer is not a {model.__name__}: "
                f"{err.errors()[0].get('msg', err)} ({_snippet(bytes(body))})"
            ) from None

    @staticmethod
    def _error(status: int, body: bytes) -> ServiceError | MalformedResponse:
        try:
            detail = json.loads(body)["error"]
            return ServiceError(status, str(detail["code"]), str(detail["message"]))
        except (ValueError, KeyError, TypeError):
            return MalformedResponse(
                f"the service answered {status} without an error body ({_snippet(body)})"
            )

def _snippet(body: bytes) -> str:
    text = body[:120].decode("utf-8", "replace")
    return repr(text) + ("…" if len(body) > 120 else "")
