"""The OAuth redirect caught on 127.0.0.1 (RFC 8252 loopback redirect): one tiny HTTP listener per sign-in.

The browser is sent to `http://127.0.0.1:<port>/callback?code=…&state=…`; the listener
answers with a page saying the sign-in finished and hands the parameters to the waiting
flow. Anything else (a favicon, another path) gets a 404 and does not end the wait.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from handrail.errors import HandrailError

CALLBACK_PATH = "/callback"
MAX_REQUEST_BYTES = 16_384
_DONE_PAGE = (
    "<!doctype html><meta charset=utf-8><title>handrail</title>"
    "<p>Signed in. You can close this tab and return to your editor.</p>"
)
_FAILED_PAGE = "<!doctype html><meta charset=utf-8><title>handrail</title><p>The sign-in did not succeed: {}</p>"


class SignInRefusedError(HandrailError):
    """The authorization server sent the browser back with an error instead of a code."""


@dataclass(frozen=True)
class Redirect:
    """The parameters the authorization server sent the browser back with."""

    code: str
    state: str | None
    iss: str | None


def _response(status: str, body: str) -> bytes:
    data = body.encode()
    head = f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {len(data)}\r\n"
    return (head + "Connection: close\r\n\r\n").encode() + data


class LoopbackListener:
    """Listens on 127.0.0.1:`port` until the redirect arrives or it is closed."""

    def __init__(self, server: asyncio.Server, port: int) -> None:
        self._server = server
        self.port = port
        self._arrived: asyncio.Queue[Redirect | SignInRefusedError] = asyncio.Queue()

    @classmethod
    async def open(cls, port: int = 0) -> LoopbackListener:
        """Listen on `port` (0: any free port); raises OSError when the port is taken."""
        holder: list[LoopbackListener] = []

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await holder[0]._serve(reader, writer)

        server = await asyncio.start_server(serve, "127.0.0.1", port)
        listener = cls(server, server.sockets[0].getsockname()[1])
        holder.append(listener)
        return listener

    @property
    def redirect_uri(self) -> str:
        """The redirect URI to register and send in the authorization request."""
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def wait(self) -> Redirect:
        """The next redirect's parameters (raises SignInRefusedError when the server sent an error)."""
        arrived = await self._arrived.get()
        if isinstance(arrived, SignInRefusedError):
            raise arrived
        return arrived

    async def close(self) -> None:
        """Stop listening."""
        self._server.close()
        with contextlib.suppress(Exception):
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            target = head[:MAX_REQUEST_BYTES].split(b"\r\n", 1)[0].decode("latin-1").split(" ")
            url = urlsplit(target[1] if len(target) == 3 and target[0] == "GET" else "")
            if url.path != CALLBACK_PATH:
                writer.write(_response("404 Not Found", "not found"))
                return
            query = {key: values[0] for key, values in parse_qs(url.query).items()}
            writer.write(self._settle(query))
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, OSError, ValueError):
            return
        finally:
            with contextlib.suppress(Exception):
                await writer.drain()
                writer.close()

    def _settle(self, query: dict[str, str]) -> bytes:
        if "error" in query:
            detail = query["error"] + (f": {query['error_description']}" if "error_description" in query else "")
            self._arrived.put_nowait(SignInRefusedError(detail))
            return _response("400 Bad Request", _FAILED_PAGE.format(_escape(detail)))
        if not query.get("code"):
            return _response("400 Bad Request", _FAILED_PAGE.format("no authorization code"))
        self._arrived.put_nowait(Redirect(query["code"], query.get("state"), query.get("iss")))
        return _response("200 OK", _DONE_PAGE)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
