"""Errors a tool raises to give the model an `is_error` result it can act on."""


class ToolError(Exception):
    """A failure the model should read: the message becomes the text of an `is_error` result."""
