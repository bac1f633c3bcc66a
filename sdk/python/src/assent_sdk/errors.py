"""What can go wrong talking to the service, as exceptions with a stable shape. Decisions are
never errors: a denial or a timeout is a value (see :mod:`assent_sdk.results`)."""

from __future__ import annotations


class AssentError(Exception):
    """Base of every error this SDK raises."""


class ServiceError(AssentError):
    """The service answered with an error body: ``code`` is its stable error code
    (``unauthorized``, ``forbidden``, ``not_found``, ``unprocessable`` …)."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"the service answered {status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


class MalformedResponse(AssentError):
    """The service's answer is not what its OpenAPI document says (not JSON, a missing field,
    an event line past the size limit …)."""


class Unavailable(AssentError):
    """The service could not be reached (refused, reset, timed out)."""


class WebhookVerificationFailed(AssentError):
    """A webhook's signature, id or timestamp did not verify: a tampered body, a wrong secret,
    missing headers, or a timestamp outside the window. Never act on such a message."""
