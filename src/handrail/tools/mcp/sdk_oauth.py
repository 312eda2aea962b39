"""OAuth for remote MCP servers through the SDK's client auth (`OAuthClientProvider`); imported by `sdk_adapter`.

Every http/sse server without an `Authorization` header gets a provider; it acts only on
a 401. Tokens, the client registration, the authorization server's metadata and the token's
expiry live in the server's sign-in file (`sign_in_files.py`), so a restart refreshes an
expired token instead of asking the user again.

A connection made in the background never opens a browser: when the server needs the
user, the flow stops with `McpSignInRequiredError` and the server waits in the state
"needsSignIn". Signing in (a command, or the notification's action) connects again
*interactively*: the browser is opened through the editor and the redirect is caught on
127.0.0.1 (`loopback.py`), on the port the client registration names.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit

import httpx2
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthMetadata, OAuthToken
from pydantic import ValidationError

from handrail.tools.mcp.loopback import LoopbackListener
from handrail.tools.mcp.model import McpSignInRequiredError
from handrail.tools.mcp.sign_in_files import SIGN_IN_SECONDS, SignInFile

REVOKE_SECONDS = 10.0
ModelT = TypeVar("ModelT", OAuthToken, OAuthClientInformationFull, OAuthMetadata)
OpenBrowser = Callable[[str], Awaitable[bool]]


class FileTokenStorage:
    """The SDK's `TokenStorage` over a sign-in file; also records when the token expires and where to refresh it."""

    def __init__(self, file: SignInFile, provider_metadata: Callable[[], OAuthMetadata | None]) -> None:
        self._file = file
        self._metadata = provider_metadata

    async def _read(self) -> dict[str, Any]:
        return await asyncio.to_thread(self._file.read)

    async def _update(self, **fields: Any) -> None:
        await asyncio.to_thread(self._file.update, **fields)

    async def get_tokens(self) -> OAuthToken | None:
        """The stored tokens (None when there are none or they are unreadable)."""
        return _parse(OAuthToken, (await self._read()).get("tokens"))

    async def set_tokens(self, tokens: OAuthToken) -> None:
        """Keep new tokens, when they expire, and the metadata that says where to refresh and revoke them."""
        expires_at = time.time() + tokens.expires_in if tokens.expires_in is not None else None
        metadata = self._metadata()
        await self._update(
            tokens=tokens.model_dump(mode="json", exclude_none=True),
            expires_at=expires_at,
            metadata=metadata.model_dump(mode="json", exclude_none=True) if metadata is not None else None,
        )

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        """The stored client registration."""
        return _parse(OAuthClientInformationFull, (await self._read()).get("client"))

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        """Keep a new client registration."""
        await self._update(client=client_info.model_dump(mode="json", exclude_none=True))


def _parse(model: type[ModelT], value: Any) -> ModelT | None:
    if not isinstance(value, dict):
        return None
    try:
        return model.model_validate(value)
    except ValidationError:
        return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


async def _loopback(file: SignInFile) -> LoopbackListener:
    """A listener on the port the registration names; a new port (and a new registration) when it is taken."""
    stored = await asyncio.to_thread(file.read)
    port = stored.get("redirect_port")
    if isinstance(port, int) and "client" in stored:
        with contextlib.suppress(OSError):
            return await LoopbackListener.open(port)
    listener = await LoopbackListener.open(0)
    await asyncio.to_thread(file.update, redirect_port=listener.port, client=None)
    return listener


async def _background_port(file: SignInFile) -> int:
    stored = await asyncio.to_thread(file.read)
    port = stored.get("redirect_port")
    if isinstance(port, int):
        return port
    port = _free_port()
    await asyncio.to_thread(file.update, redirect_port=port)
    return port


@asynccontextmanager
async def oauth_provider(server_url: str, file: SignInFile, open_browser: OpenBrowser | None) -> AsyncIterator[Any]:
    """An httpx auth for `server_url`; with `open_browser` the user signs in when the server asks, else
    a needed sign-in raises `McpSignInRequiredError`."""
    listener = await _loopback(file) if open_browser is not None else None
    try:
        port = listener.port if listener is not None else await _background_port(file)
        metadata = OAuthClientMetadata(
            client_name="handrail",
            redirect_uris=[f"http://127.0.0.1:{port}/callback"],  # type: ignore[list-item]
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        )
        holder: list[OAuthClientProvider] = []

        async def redirect(url: str) -> None:
            if open_browser is None:
                raise McpSignInRequiredError(_origin(url))
            await open_browser(url)

        async def callback() -> AuthorizationCodeResult:
            assert listener is not None
            async with asyncio.timeout(SIGN_IN_SECONDS):
                found = await listener.wait()
            return AuthorizationCodeResult(code=found.code, state=found.state, iss=found.iss)

        storage = FileTokenStorage(file, lambda: holder[0].context.oauth_metadata if holder else None)
        provider = OAuthClientProvider(
            server_url, metadata, storage, redirect_handler=redirect, callback_handler=callback
        )
        holder.append(provider)
        # what a restart must not forget: where the tokens are refreshed, and when they expire
        stored = await asyncio.to_thread(file.read)
        provider.context.oauth_metadata = _parse(OAuthMetadata, stored.get("metadata"))
        expires_at = stored.get("expires_at")
        provider.context.token_expiry_time = float(expires_at) if isinstance(expires_at, int | float) else None
        yield provider
    finally:
        if listener is not None:
            await listener.close()


async def revoke(file: SignInFile) -> str:
    """Revoke the stored tokens at the authorization server (RFC 7009) when it offers revocation; a sentence
    saying what was done. The file itself is left for the caller to remove."""
    stored = await asyncio.to_thread(file.read)
    tokens = _parse(OAuthToken, stored.get("tokens"))
    client = _parse(OAuthClientInformationFull, stored.get("client"))
    metadata = _parse(OAuthMetadata, stored.get("metadata"))
    if tokens is None or client is None:
        return "no tokens were stored"
    if metadata is None or metadata.revocation_endpoint is None:
        return "the authorization server offers no revocation; the tokens were forgotten here"
    revoked: list[str] = []
    async with httpx2.AsyncClient(timeout=REVOKE_SECONDS) as http:
        for kind, token in (("refresh_token", tokens.refresh_token), ("access_token", tokens.access_token)):
            if not token:
                continue
            try:
                if await _revoke_one(http, str(metadata.revocation_endpoint), client, token, kind):
                    revoked.append(kind.replace("_", " "))
            except httpx2.HTTPError as exc:
                return f"revoking failed ({type(exc).__name__}); the tokens were forgotten here"
    if not revoked:
        return "the authorization server refused to revoke the tokens; they were forgotten here"
    return f"revoked the {' and the '.join(revoked)} at {_origin(str(metadata.revocation_endpoint))}"


async def _revoke_one(
    http: httpx2.AsyncClient, endpoint: str, client: OAuthClientInformationFull, token: str, kind: str
) -> bool:
    """One RFC 7009 request, authenticated as the client registered; whether the server accepted it."""
    data = {"token": token, "token_type_hint": kind, "client_id": client.client_id}
    headers: dict[str, str] = {}
    if client.client_secret and client.token_endpoint_auth_method == "client_secret_basic":
        pair = f"{quote(client.client_id, safe='')}:{quote(client.client_secret, safe='')}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    elif client.client_secret:
        data["client_secret"] = client.client_secret
    response = await http.post(endpoint, data=data, headers=headers)
    if response.status_code == 400 and "client_secret" not in data:
        # a public client has no secret, yet some servers (the MCP SDK's own) want the field present
        response = await http.post(endpoint, data={**data, "client_secret": ""}, headers=headers)
    return response.status_code == 200
