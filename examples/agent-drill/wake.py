"""What wakes a parked agent of the drill (drill.py): the agent event stream, or a receiver of
the service's signed webhooks. Each hands a settled decision to ``Platform.wake``."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING

from assent_sdk import (
    Cancelled,
    Client,
    Denied,
    Granted,
    TimedOut,
    WebhookVerificationFailed,
    verify_webhook,
)

if TYPE_CHECKING:
    from drill import Platform


class EventStreamWake:
    """Wakes parked agents from the agent event stream (``approval.settled``). It starts after
    ``last_event_id`` (0: the whole replay window, so a decision taken before the stream
    connected is not missed; a platform keeps the last id it handled across restarts). Told the
    window moved past it (``reset``), it asks the service about each parked approval once."""

    def __init__(self, client: Client, platform: Platform, last_event_id: int = 0):
        self.client = client
        self.stream = client.events(last_event_id=last_event_id)
        self.platform = platform
        self.thread = threading.Thread(target=self._follow, daemon=True)
        self.error: BaseException | None = None

    def start(self) -> EventStreamWake:
        self.thread.start()
        return self

    def _follow(self) -> None:
        try:
            for event in self.stream:
                if event.type == "reset":
                    for approval_id in self.platform.parked():
                        answer = self.client.decision(approval_id)
                        if isinstance(answer, (Granted, Denied, TimedOut, Cancelled)):
                            self.platform.wake(approval_id, answer, "event")
                    continue
                decision = event.decision
                if isinstance(decision, (Granted, Denied, TimedOut, Cancelled)):
                    self.platform.wake(decision.approval_id, decision, "event")
        except BaseException as err:  # surfaced by the test / the demo
            self.error = err

    def stop(self) -> None:
        self.stream.close()
        self.thread.join(timeout=10)


class WebhookWake:
    """Wakes parked agents from the service's signed webhooks: a receiver on loopback that
    verifies each delivery (Standard Webhooks, the secret ``assent webhooks add`` printed),
    answers 204, drops retries of a delivery it already took (same ``webhook-id``), and refuses
    anything that does not verify (401) or is too big (413)."""

    MAX_BODY = 1 << 20

    def __init__(self, platform: Platform, secret: str | None = None):
        self.platform = platform
        self.secret = secret
        self.seen: set[str] = set()
        self.refused: list[str] = []
        self.delivered: list[str] = []
        wake = self

        class Receiver(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                if length > wake.MAX_BODY:
                    self._answer(413)
                    return
                body = self.rfile.read(length)
                try:
                    message = verify_webhook(wake.secret or "", body, dict(self.headers.items()))
                except (WebhookVerificationFailed, ValueError) as err:
                    wake.refused.append(str(err))
                    self._answer(401)
                    return
                self._answer(204)
                if message.webhook_id in wake.seen:
                    return
                wake.seen.add(message.webhook_id)
                wake.delivered.append(message.type)
                if message.decision is not None:
                    platform.wake(message.decision.approval_id, message.decision, "webhook")

            def _answer(self, status: int) -> None:
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/assent"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> WebhookWake:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
