"""Model failures in terms a user can act on: which ones are worth retrying, and a sentence saying what to do.

Each failure has a `kind` a client can act on (VS Code offers its "Set API Key" command for `noApiKey`
and `apiKey`) and a message that names the setting or variable to change; none passes on an SDK
exception's own text as the whole story.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from handrail.errors import HandrailError
from handrail.wire.models import TurnError
from handrail.wire.names import TurnErrorKind as FailureKind

_RETRYABLE_ERROR_TYPES = {"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}
DEFAULT_API_URL = "https://api.anthropic.com"
KEY_SETTING = "the ANTHROPIC_API_KEY environment variable (in the environment the editor starts handrail in) or the " \
    "handrail.apiKey setting"
# the SDK's words when it has no key, token or credentials to send (it raises a TypeError)
_NO_AUTH_MESSAGE = "Could not resolve authentication method"


class ModelError(HandrailError):
    """The model could not be reached or answered with an error that retries did not cure."""

    def __init__(self, message: str, kind: FailureKind = "other") -> None:
        super().__init__(message)
        self.kind: FailureKind = kind


class StreamFault(HandrailError):
    """The stream broke in a way the SDK does not classify: it stalled, or sent events that do not parse."""


@dataclass(frozen=True)
class ModelFailure:
    """What went wrong, for the user: a kind to act on and a sentence saying what to do."""

    kind: FailureKind
    message: str

    def as_wire(self) -> TurnError:
        """The `error` field of a turn's result and its `turnEnd`."""
        return TurnError(kind=self.kind, message=self.message)


def no_api_key() -> ModelError:
    """The error for a model client with no key, token or credentials to send."""
    return ModelError(f"No API key is set for the model. Set {KEY_SETTING}.", "noApiKey")


def retry_after_seconds(exc: BaseException) -> float | None:
    """The wait an error response asks for (`retry-after-ms` or `retry-after` in seconds), if any."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            continue  # an HTTP date: rare for this API; fall back to our own backoff
        if seconds >= 0:
            return seconds
    return None


def _error_fields(exc: Any) -> tuple[str | None, str]:
    """The API error's type and message from an APIStatusError's body."""
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error") if isinstance(body.get("error"), dict) else {}
    error_type = error.get("type") if isinstance(error, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return (error_type if isinstance(error_type, str) else None), str(message or exc.message)


def is_retryable(exc: BaseException) -> bool:
    """Whether trying the same request again may succeed (overload, rate limits, server and network errors)."""
    import anthropic
    import httpx2

    if isinstance(exc, anthropic.APIConnectionError | httpx2.TransportError | StreamFault):
        return True
    if isinstance(exc, anthropic.APIStatusError):
        error_type, _ = _error_fields(exc)
        return error_type in _RETRYABLE_ERROR_TYPES or exc.status_code in {408, 409, 429, 529} or (
            exc.status_code >= 500
        )
    return False


def describe_failure(exc: BaseException, *, model: str = "", base_url: str | None = None) -> ModelFailure:
    """What a model failure means for the user and what to do about it."""
    import anthropic

    if isinstance(exc, ModelError):
        return ModelFailure(exc.kind, str(exc))
    if isinstance(exc, TypeError) and _NO_AUTH_MESSAGE in str(exc):
        return ModelFailure("noApiKey", str(no_api_key()))
    if isinstance(exc, anthropic.APIStatusError):
        return _status_failure(exc, model, base_url)
    if isinstance(exc, anthropic.CredentialsError):
        return ModelFailure("apiKey", f"The model's credentials could not be loaded ({exc}). Set {KEY_SETTING}.")
    if isinstance(exc, anthropic.APIConnectionError):
        where = base_url or DEFAULT_API_URL
        cause = exc.__cause__ or exc.__context__
        reason = f"{type(cause).__name__}: {cause}" if cause is not None else exc.message
        timed_out = isinstance(exc, anthropic.APITimeoutError)
        what = "The model API did not answer in time" if timed_out else "Could not reach the model API"
        return ModelFailure(
            "network",
            f"{what} at {where} ({reason}), even after retrying. Check your network connection and proxy, "
            "and the handrail.baseUrl setting (ANTHROPIC_BASE_URL) if you use a gateway; then ask again.",
        )
    if isinstance(exc, StreamFault):
        return ModelFailure("stream", f"The model's answer stream broke ({exc}), even after retrying. Ask again.")
    if isinstance(exc, UnicodeEncodeError):
        return ModelFailure(
            "apiKey", f"The API key or a header holds characters that cannot be sent ({exc.reason}). Set "
            f"{KEY_SETTING} again, without stray characters.",
        )
    return ModelFailure("other", f"The model request failed ({type(exc).__name__}: {exc}).")


def _status_failure(exc: Any, model: str, base_url: str | None) -> ModelFailure:
    error_type, message = _error_fields(exc)
    status = exc.status_code
    said = f"{status} {error_type or 'error'}: {message}"
    if status == 401:
        return ModelFailure("apiKey", f"The model API refused the API key ({said}). Set a valid key in {KEY_SETTING}.")
    if status == 402 or error_type == "billing_error":
        return ModelFailure(
            "billing", f"The model API refused the request for billing reasons ({said}). Check the plan and credit "
            "balance of the key's organization in the Anthropic Console.",
        )
    if status == 403:
        return ModelFailure(
            "forbidden", f"The API key is not allowed to do this ({said}). Check the key's organization and "
            "workspace in the Anthropic Console, or use another key or model (handrail.model).",
        )
    if status == 404:
        gateway = f", or check handrail.baseUrl ({base_url})" if base_url else ""
        return ModelFailure(
            "model", f"The model API does not know the model '{model}' ({said}). Set handrail.model (or "
            f"HANDRAIL_MODEL) to a model your key can use, such as claude-sonnet-5-5{gateway}.",
        )
    if status == 429 or error_type == "rate_limit_error":
        return ModelFailure(
            "rateLimited", f"The model API is rate-limiting this API key ({said}), even after retrying. Wait a "
            "minute and ask again, or raise the key's rate limits in the Anthropic Console.",
        )
    if status == 529 or error_type == "overloaded_error":
        return ModelFailure(
            "overloaded", f"The model API is overloaded ({said}), even after retrying. Try again in a minute or two.",
        )
    if status >= 500:
        return ModelFailure(
            "server", f"The model API failed ({said}), even after retrying. Try again; if it goes on, see "
            "status.anthropic.com.",
        )
    hint = ""
    if "effort" in message or "thinking" in message:
        hint = " Check the handrail.effort setting (off turns thinking off; low to max sets how hard it thinks)."
    return ModelFailure("badRequest", f"The model API refused the request ({said}).{hint}")
