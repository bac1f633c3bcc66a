"""Hostile or broken answers (a stand-in server on loopback) end in clear errors, never in a
wrong value or an unbounded read."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from assent_sdk import Client, MalformedResponse
from service import shell


class Canned(BaseHTTPRequestHandler):
    status = 200
    content_type = "application/json"
    body = b""

    def do_GET(self):
        self._answer()

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self._answer()

    def _answer(self):
        self.send_response(self.status)
        self.send_header("content-type", self.content_type)
        self.send_header("content-length", str(len(self.body)))
        self.end_headers()
        try:
            self.wfile.write(self.body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


@pytest.fixture
def canned():
    servers = []

    def serve(status: int, body: bytes, content_type: str = "application/json") -> str:
        handler = type("H", (Canned,), {"status": status, "body": body, "content_type": content_type})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    "body, says",
    [
        (b"<html>hello</html>", "not a SubmitResponse"),
        (b'{"status": "allowed"}', "not a SubmitResponse"),
        (b'{"action_id":"a","action_hash":"h","decision":"ask","risk":"low","reasons":[],'
         b'"rule":"r","offered_scopes":["once"],"status":"pending"}',
         "without an approval_id"),
        (b'{"action_id":"a","action_hash":"h","decision":"ask","risk":"low","reasons":[],'
         b'"rule":"r","status":"maybe"}', "not a SubmitResponse"),
    ],
)
def test_a_malformed_submission_answer_is_a_clear_error(canned, body, says):
    with Client(canned(200, body), "t") as client:
        with pytest.raises(MalformedResponse) as err:
            client.submit(shell("r", "npm test"))
    assert says in str(err.value), f"the error says what was wrong: {err.value}"


def test_an_error_status_without_an_error_body_is_a_clear_error(canned):
    with Client(canned(502, b"<h1>Bad Gateway</h1>", "text/html"), "t") as client:
        with pytest.raises(MalformedResponse) as err:
            client.decision("appr-1")
    assert "502 without an error body" in str(err.value), err.value


def test_a_huge_event_line_is_refused_not_buffered(canned):
    huge = b"data: " + b"x" * (3 << 20) + b"\n\n"
    with Client(canned(200, huge, "text/event-stream"), "t") as client:
        with pytest.raises(MalformedResponse) as err:
            next(iter(client.events()))
    assert "longer than 1048576 bytes" in str(err.value), err.value


@pytest.mark.parametrize(
    "data, says",
    [
        (b"data: {not json\n\n", "not JSON"),
        (b'data: {"type":"approval.settled","at":"2026-01-01T00:00:00Z"}\n\n', "without its 'id'"),
        (b'data: {"id":1,"type":"approval.settled","at":"2026-01-01T00:00:00Z",'
         b'"approval":{"approval_id":"a"}}\n\n', "unlike the OpenAPI document"),
    ],
)
def test_a_malformed_event_is_a_clear_error(canned, data, says):
    with Client(canned(200, data, "text/event-stream"), "t") as client:
        with pytest.raises(MalformedResponse) as err:
            next(iter(client.events()))
    assert says in str(err.value), err.value


def test_an_endless_answer_is_refused_past_the_bound(canned):
    with Client(canned(200, b"[" + b"0," * (5 << 20) + b"0]"), "t") as client:
        with pytest.raises(MalformedResponse) as err:
            client.decision("appr-1")
    assert "larger than 8388608 bytes" in str(err.value), err.value
