"""Errors a tool raises to give the model an `is_error` result it can act on."""

from handrail.errors import HandrailError


class ToolError(HandrailError):
    """A failure the model should read: the message becomes the text of an `is_error` result."""
