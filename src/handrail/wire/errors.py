"""The errors a request is answered with, as the agent raises them (the language server turns each into the
JSON-RPC error of its `code`; no pygls here)."""

from __future__ import annotations

from handrail.errors import HandrailError

INVALID_REQUEST = -32600
INVALID_PARAMS = -32602


class RequestRefused(HandrailError):
    """A request the server answers with an error instead of a result; the message says why."""

    code = INVALID_REQUEST


class InvalidParams(RequestRefused):
    """The request's arguments are malformed or ask for something that cannot be (an unknown or disabled mode)."""

    code = INVALID_PARAMS


class InvalidRequest(RequestRefused):
    """The request cannot be carried out now (the session is still running a turn)."""

    code = INVALID_REQUEST
