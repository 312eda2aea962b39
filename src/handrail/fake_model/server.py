"""A scripted fake of the Anthropic Messages API, served over HTTP on 127.0.0.1.

Stdlib only: a ThreadingHTTPServer in a daemon thread. Each POST /v1/messages
consumes one step of the script and answers exactly as the real API would
(SSE for `"stream": true`, a Message JSON otherwise), so the real `anthropic`
SDK can be pointed at it with `base_url`.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import socketserver
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, cast
from urllib.parse import urlsplit

from handrail.fake_model import sse
from handrail.fake_model.prompt_cache import PromptCache, breakpoint_complaint
from handrail.fake_model.script import (
    Drop,
    Hold,
    HttpError,
    Malformed,
    Reply,
    Script,
    Step,
    StreamError,
    Thinking,
    ToolUse,
    status_for_error_type,
    thinking_signature,
)

EXHAUSTED_MESSAGE = "fake model: script exhausted"

# How often a held stream checks for its release or for the client going away.
_HOLD_POLL_SECONDS = 0.05


def validate_request(body: object) -> str | None:
    """Return the real API's complaint about `body`, or None if it is acceptable.

    Checks only what catches agent bugs: a non-empty `messages`, and that every
    assistant tool_use is answered by exactly one tool_result at the start of
    the next user message (and no tool_result answers nothing); a server_tool_use is
    answered by a result block in its own message.
    """
    if not isinstance(body, dict):
        return "request body must be a JSON object"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            return f"messages.{i}: each message needs a role of 'user' or 'assistant'"
    for i, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        unanswered = _unanswered_server_tools(message)
        if unanswered:
            return (
                f"messages.{i}: `server_tool_use` ids were found without corresponding result blocks in the same "
                f"message: {', '.join(map(str, unanswered))}"
            )
        tool_use_ids = [b.get("id") for b in _blocks(message) if b.get("type") == "tool_use"]
        if not tool_use_ids:
            continue
        reply = messages[i + 1] if i + 1 < len(messages) else None
        results = _leading_tool_result_ids(reply) if reply and reply["role"] == "user" else []
        missing = [t for t in tool_use_ids if t not in results]
        if missing:
            return (
                f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                f"{', '.join(map(str, missing))}. Each `tool_use` block must have a corresponding "
                "`tool_result` block in the next message."
            )
    for i, message in enumerate(messages):
        if message["role"] != "user":
            continue
        blocks = _blocks(message)
        results = _leading_tool_result_ids(message)
        if any(b.get("type") == "tool_result" for b in blocks[len(results) :]):
            return f"messages.{i}: `tool_result` blocks must come before any other content"
        if len(set(results)) != len(results):
            return f"messages.{i}: each `tool_use` must have exactly one `tool_result`"
        previous = messages[i - 1] if i > 0 else None
        expected = (
            {b.get("id") for b in _blocks(previous) if b.get("type") == "tool_use"}
            if previous and previous["role"] == "assistant"
            else set()
        )
        unexpected = [r for r in results if r not in expected]
        if unexpected:
            return (
                f"messages.{i}.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "
                f"{', '.join(map(str, unexpected))}. Each `tool_result` block must have a corresponding "
                "`tool_use` block in the previous message."
            )
    return None


SentThinking = tuple[tuple[str, str], ...]
"""The (thinking, signature) blocks of a message the fake sent, in order."""


def thinking_complaint(body: dict[str, Any], sent: Mapping[str, SentThinking]) -> str | None:
    """The API's complaint about the thinking blocks sent back, given what the fake sent with each tool_use.

    A thinking block must come back exactly as it was sent (its signature covers its text), and an
    assistant message that called tools keeps the thinking it was sent with, first and in order.
    """
    for i, message in enumerate(body.get("messages") or []):
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        blocks = _blocks(message)
        for j, block in enumerate(blocks):
            if block.get("type") == "thinking" and block.get("signature") != thinking_signature(
                str(block.get("thinking", ""))
            ):
                return f"messages.{i}.content.{j}: Invalid `signature` in `thinking` block"
        expected = next((sent[b["id"]] for b in blocks if b.get("type") == "tool_use" and b.get("id") in sent), None)
        if not expected:
            continue
        actual = tuple((str(b.get("thinking")), str(b.get("signature"))) for b in blocks if b.get("type") == "thinking")
        if actual != expected or blocks[0].get("type") != "thinking":
            found = blocks[0].get("type") if blocks else "nothing"
            return (
                f"messages.{i}.content.0: Expected `thinking` or `redacted_thinking`, but found `{found}`. The "
                "thinking blocks of an assistant message that used tools must be passed back unmodified, first "
                "and in their original order."
            )
    return None


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict)]


def _unanswered_server_tools(message: dict[str, Any]) -> list[object]:
    """server_tool_use ids of an assistant message that no `*_tool_result` block of the same message answers."""
    blocks = _blocks(message)
    answered = {b.get("tool_use_id") for b in blocks if str(b.get("type", "")).endswith("_tool_result")}
    return [b.get("id") for b in blocks if b.get("type") == "server_tool_use" and b.get("id") not in answered]


def _leading_tool_result_ids(message: dict[str, Any]) -> list[object]:
    ids: list[object] = []
    for block in _blocks(message):
        if block.get("type") != "tool_result":
            break
        ids.append(block.get("tool_use_id"))
    return ids


class FakeModel:
    """The fake API server; `with FakeModel(script) as fake:` starts and stops it."""

    def __init__(
        self, script: Script | Sequence[Step] = (), *, count_usage: bool = False,
        min_cacheable_tokens: int | None = None,
    ) -> None:
        """`count_usage` reports every reply's input as the API bills the request (as `counted` does for one);
        `min_cacheable_tokens` overrides the model's minimum cacheable prefix."""
        steps = script.steps if isinstance(script, Script) else script
        self._steps: deque[Step] = deque(steps)
        self._count_usage = count_usage
        self._cache = PromptCache(min_cacheable_tokens)
        self._sent_thinking: dict[str, SentThinking] = {}
        self._usages: list[dict[str, Any]] = []
        self._requests: list[dict[str, Any]] = []
        self._errors: list[str] = []
        self._answering_seconds = 0.0
        self._cond = threading.Condition()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------

    def start(self) -> str:
        """Start serving on an ephemeral port and return the base URL."""
        if self._server is not None:
            return self.base_url
        self._stopping.clear()
        server = _Server(("127.0.0.1", 0), _Handler)
        server.fake = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-model", daemon=True
        )
        self._thread.start()
        return self.base_url

    def stop(self) -> None:
        """Stop serving; held streams are abandoned."""
        server, thread = self._server, self._thread
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.server_close()
        if thread is not None:
            thread.join()
        self._server = self._thread = None

    def __enter__(self) -> FakeModel:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:<port>`; only valid once started."""
        if self._server is None:
            raise RuntimeError("FakeModel is not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # -- script and observations -----------------------------------------------

    def add(self, *steps: Step) -> None:
        """Append steps to the end of the script."""
        with self._cond:
            self._steps.extend(steps)

    @property
    def remaining(self) -> int:
        """How many steps have not been consumed yet."""
        with self._cond:
            return len(self._steps)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """A copy of every JSON body received on /v1/messages, in order."""
        with self._cond:
            return list(self._requests)

    def forget_requests(self) -> None:
        """Drop the requests recorded so far (a long run would otherwise keep every body it was sent)."""
        with self._cond:
            self._requests.clear()
            self._usages.clear()

    @property
    def usages(self) -> list[dict[str, Any]]:
        """The input usage reported for each request answered with a complete reply, in order."""
        with self._cond:
            return list(self._usages)

    @property
    def answering_seconds(self) -> float:
        """Seconds spent answering requests so far, from a request's body read to its response written.

        A real model's latency, not the client's: benchmarks of a "zero-latency" model leave it out.
        """
        with self._cond:
            return self._answering_seconds

    @property
    def errors(self) -> list[str]:
        """Errors the fake itself produced (validation 400s, exhaustion, crashes)."""
        with self._cond:
            return list(self._errors)

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Block until at least `n` requests arrived and return them; TimeoutError if not."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self._requests) >= n, timeout):
                raise TimeoutError(f"fake model got {len(self._requests)} of {n} requests within {timeout}s")
            return list(self._requests)

    # -- used by the handler ---------------------------------------------------

    def _add_answering(self, seconds: float) -> None:
        with self._cond:
            self._answering_seconds += seconds

    def _record_error(self, message: str) -> None:
        with self._cond:
            self._errors.append(message)

    def _take_step(self, body: dict[str, Any]) -> Step:
        """Record `body` and return the step answering it (a synthetic error if none)."""
        with self._cond:
            self._requests.append(body)
            self._cond.notify_all()
            # Rejected requests consume no step: the real model never saw them.
            complaint = (
                validate_request(body) or breakpoint_complaint(body) or thinking_complaint(body, self._sent_thinking)
            )
            if complaint is not None:
                self._errors.append(f"400 invalid_request_error: {complaint}")
                return HttpError(400, "invalid_request_error", complaint)
            if not self._steps:
                self._errors.append(f"500 api_error: {EXHAUSTED_MESSAGE}")
                return _NoRetryError(500, "api_error", EXHAUSTED_MESSAGE)
            step = self._steps.popleft()
        # Resolved outside the lock so a callable may itself call add().
        while callable(step):
            step = step(body)
        self._remember_thinking(step)
        return step

    def _remember_thinking(self, step: Step) -> None:
        reply = step if isinstance(step, Reply) else getattr(step, "reply", None)
        if not isinstance(reply, Reply):
            return
        thinking = tuple((b.thinking, b.signature) for b in reply.blocks if isinstance(b, Thinking))
        if thinking:
            with self._cond:
                for block in reply.blocks:
                    if isinstance(block, ToolUse):
                        self._sent_thinking[block.id] = thinking

    def _input_usage(self, body: dict[str, Any], reply: Reply) -> dict[str, Any] | None:
        """Bill a request answered with a complete `reply` (its prefixes are cached from now on); the input usage
        to report, or None for the reply's scripted count."""
        usage = self._cache.account(body).as_usage()
        counted = reply.usage_in is None or self._count_usage
        with self._cond:
            self._usages.append(usage if counted else {"input_tokens": reply.usage_in})
        return usage if counted else None


class _NoRetryError(HttpError):
    """An error the SDK must not retry, so the test fails at once."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeModel

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn, a reverse DNS lookup that
        # can take seconds on a machine without a resolver.
        socketserver.TCPServer.server_bind(self)
        self.server_name = "127.0.0.1"
        self.server_port = self.server_address[1]


class _ClientGone(Exception):
    """The client closed the connection while a response was being written."""


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.1 so SSE can use chunked encoding: an abrupt close is then
    # detectable by the client, unlike an HTTP/1.0 body ended by EOF.
    protocol_version = "HTTP/1.1"
    server_version = "handrail-fake-model"
    # One small write per event: with Nagle's algorithm each waits for the client's delayed
    # ACK (~40 ms), which made a "zero-latency" model take ~50 ms per response.
    disable_nagle_algorithm = True
    # Buffered: `_write` says when bytes go out. A scripted Reply is known whole at once (a zero-latency
    # model), so its headers and events leave in one write rather than a syscall and a client wake-up each.
    wbufsize = 64 * 1024

    _headers_sent = False

    @property
    def fake(self) -> FakeModel:
        return cast(_Server, self.server).fake

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet: no access log."""

    def do_POST(self) -> None:
        self._guarded(self._post)

    def do_GET(self) -> None:
        self._guarded(self._not_found)

    do_PUT = do_DELETE = do_PATCH = do_GET

    def _guarded(self, handler: Callable[[], None]) -> None:
        self._headers_sent = False
        try:
            handler()
        except (_ClientGone, ConnectionError):
            self.close_connection = True
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            self.fake._record_error(f"500 api_error: fake model crashed: {exc!r}")
            if self._headers_sent:
                self._abort()
            else:
                try:
                    self._send_error(_NoRetryError(500, "api_error", f"fake model crashed: {exc!r}"))
                except OSError:
                    self.close_connection = True

    def _read_body(self) -> bytes:
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _not_found(self) -> None:
        self._read_body()
        self._send_error(HttpError(404, "not_found_error", f"Not found: {self.command} {self.path}"))

    def _post(self) -> None:
        raw = self._read_body()
        started = time.perf_counter()
        try:
            self._answer(raw)
        finally:
            self.fake._add_answering(time.perf_counter() - started)

    def _answer(self, raw: bytes) -> None:
        if urlsplit(self.path).path != "/v1/messages":
            self._send_error(HttpError(404, "not_found_error", f"Not found: POST {self.path}"))
            return
        try:
            body = json.loads(raw)
        except ValueError as exc:
            self.fake._record_error(f"400 invalid_request_error: body is not JSON: {exc}")
            self._send_error(HttpError(400, "invalid_request_error", f"body is not JSON: {exc}"))
            return
        if not isinstance(body, dict):
            self.fake._record_error("400 invalid_request_error: body is not a JSON object")
            self._send_error(HttpError(400, "invalid_request_error", "body is not a JSON object"))
            return
        step = self.fake._take_step(body)
        model = str(body.get("model") or "claude-fake")
        if body.get("stream"):
            self._stream(step, model, body)
        else:
            self._respond(step, model, body)

    # -- non-streaming -----------------------------------------------------------

    def _respond(self, step: Step, model: str, body: dict[str, Any]) -> None:
        if isinstance(step, HttpError):
            self._send_error(step)
        elif isinstance(step, Reply):
            self._send_json(200, sse.message_json(step, model, input_usage=self.fake._input_usage(body, step)))
        elif isinstance(step, StreamError):
            error_type = step.error_type
            self._send_error(HttpError(status_for_error_type(error_type), error_type, step.message))
        elif isinstance(step, Drop):
            self._abort()
        elif isinstance(step, Malformed):
            self._send_body(200, step.data)
        elif isinstance(step, Hold):
            step.held.set()
            if self._hold(step):
                usage = self.fake._input_usage(body, step.reply)
                self._send_json(200, sse.message_json(step.reply, model, input_usage=usage))
        else:
            raise TypeError(f"not a script step: {step!r}")

    # -- streaming -----------------------------------------------------------------

    def _stream(self, step: Step, model: str, body: dict[str, Any]) -> None:
        if isinstance(step, HttpError):
            self._send_error(step)
            return
        if isinstance(step, Reply):
            events = sse.reply_events(step, model, input_usage=self.fake._input_usage(body, step))
            self._start_stream()
            self._send_events(events, flush=False)
            self._end_stream()
        elif isinstance(step, StreamError):
            self._stream_until_cut(step, model)
            self._send_events([sse.error_body(step.error_type, step.message)])
            self._end_stream()
        elif isinstance(step, Drop):
            self._stream_until_cut(step, model)
            self._abort()
        elif isinstance(step, Malformed):
            self._stream_until_cut(step, model)
            self._send_chunk(step.data)
            self._end_stream()
        elif isinstance(step, Hold):
            # Set before sending, so a client that has seen the part before the
            # hold can rely on `held` without racing the server.
            step.held.set()
            rest = self._stream_until_cut(step, model, self.fake._input_usage(body, step.reply))
            if self._hold(step):
                self._send_events(rest)
                self._end_stream()
        else:
            raise TypeError(f"not a script step: {step!r}")

    def _stream_until_cut(
        self, fault: StreamError | Drop | Malformed | Hold, model: str, input_usage: dict[str, Any] | None = None
    ) -> list[sse.Event]:
        """Start the stream of `fault.reply` and send its events up to the fault's cut; returns the rest."""
        events = sse.reply_events(fault.reply, model, input_usage=input_usage)
        cut = sse.cut_index(events, fault.after_blocks, fault.partial_block)
        self._start_stream()
        self._send_events(events[:cut])
        return events[cut:]

    def _hold(self, hold: Hold) -> bool:
        """Wait for `hold.release`; False (connection aborted) if the client left or the server stops."""
        while not hold.release.is_set():
            if self.fake._stopping.is_set() or self._client_gone(hold.release):
                hold.abandoned.set()
                self._abort()
                return False
        return True

    def _client_gone(self, release: threading.Event) -> bool:
        """Wait up to one poll interval and report whether the client closed the connection."""
        readable, _, _ = select.select([self.connection], [], [], _HOLD_POLL_SECONDS)
        if not readable:
            return False
        try:
            # The request was fully read, so readable means EOF (or a reset).
            peeked = self.connection.recv(1, socket.MSG_PEEK)
        except OSError:
            return True
        if peeked:
            # Unexpected bytes (a pipelined request?): not gone; don't spin on them.
            release.wait(_HOLD_POLL_SECONDS)
        return not peeked

    # -- low-level writing ---------------------------------------------------------

    def _send_json(self, status: int, obj: object, headers: Iterable[tuple[str, str]] = ()) -> None:
        self._send_body(status, json.dumps(obj).encode(), [("request-id", sse.new_request_id()), *headers])

    def _send_body(self, status: int, data: bytes, headers: Iterable[tuple[str, str]] = ()) -> None:
        """A whole response with a JSON content type (`data` need not be valid JSON)."""
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self._headers_sent = True
        self._write(data)

    def _send_error(self, error: HttpError) -> None:
        headers: list[tuple[str, str]] = []
        if error.retry_after is not None:
            headers.append(("retry-after", f"{error.retry_after:g}"))
        if error.retry_after is not None or error.status in (408, 409, 429) or error.status >= 500:
            # The SDK prefers retry-after-ms, and treats 0 as "unspecified" (falling
            # back to its 0.5 s+ exponential backoff), so send at least 1 ms.
            retry_ms = error.retry_after * 1000 if error.retry_after else 0.0
            headers.append(("retry-after-ms", f"{max(retry_ms, 1.0):g}"))
        if isinstance(error, _NoRetryError):
            headers.append(("x-should-retry", "false"))
        body = sse.error_body(error.resolved_error_type, error.resolved_message)
        self._send_json(error.status, body, headers)

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("request-id", sse.new_request_id())
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        self._headers_sent = True

    def _send_events(self, events: Iterable[sse.Event], *, flush: bool = True) -> None:
        # One chunk per event; flushed one by one (unless the caller sends the rest at once), so
        # the client sees each event as soon as it is "generated", up to a fault's cut.
        for event in events:
            self._send_chunk(sse.encode_event(event), flush=flush)

    def _send_chunk(self, data: bytes, *, flush: bool = True) -> None:
        self._write(b"%x\r\n%s\r\n" % (len(data), data), flush=flush)

    def _end_stream(self) -> None:
        self._write(b"0\r\n\r\n")

    def _write(self, data: bytes, *, flush: bool = True) -> None:
        try:
            self.wfile.write(data)
            if flush:
                self.wfile.flush()
        except OSError as exc:
            raise _ClientGone from exc

    def _abort(self) -> None:
        """Close the connection now, mid-response if need be."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
