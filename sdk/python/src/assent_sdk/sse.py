"""A small server-sent-events reader over a byte iterator, with a bound on each line: a
server (or something in between) sending an endless line gets a clear error, not all memory."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .errors import MalformedResponse

#: Longest line (and event) accepted by default: 1 MiB; the service's biggest events (an
#: approval with its evidence) are far below.
MAX_LINE_BYTES = 1 << 20


@dataclass
class SseEvent:
    event: str | None
    id: str | None
    data: str


def _lines(chunks: Iterable[bytes], max_line: int) -> Iterator[bytes]:
    buffer = b""
    for chunk in chunks:
        buffer += chunk
        while True:
            cut = -1
            for sep in (b"\n", b"\r"):
                at = buffer.find(sep)
                if at != -1 and (cut == -1 or at < cut):
                    cut = at
            if cut == -1:
                break
            line = buffer[:cut]
            rest = buffer[cut + 1 :]
            if buffer[cut : cut + 1] == b"\r" and rest.startswith(b"\n"):
                rest = rest[1:]
            elif buffer[cut : cut + 1] == b"\r" and not rest:
                # A "\r" at a chunk's end may be the first half of "\r\n": wait for more.
                break
            if len(line) > max_line:
                raise MalformedResponse(f"an event line longer than {max_line} bytes")
            yield line
            buffer = rest
        if len(buffer) > max_line:
            raise MalformedResponse(f"an event line longer than {max_line} bytes")
    if buffer:
        yield buffer.rstrip(b"\r")


def parse(chunks: Iterable[bytes], max_line: int = MAX_LINE_BYTES) -> Iterator[SseEvent]:
    """The events of an SSE body (comments, such as the service's heartbeat, are skipped)."""
    event: str | None = None
    last_id: str | None = None
    data: list[str] = []
    size = 0
    for raw in _lines(chunks, max_line):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise MalformedResponse(f"an event line that is not UTF-8: {err}") from None
        if not line:
            if data:
                yield SseEvent(event, last_id, "\n".join(data))
            event, data, size = None, [], 0
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            size += len(value)
            if size > max_line:
                raise MalformedResponse(f"an event longer than {max_line} bytes")
            data.append(value)
        elif field == "event":
            event = value
        elif field == "id":
            last_id = value
