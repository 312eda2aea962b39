"""An OAuth-protected MCP server for the tests, on streamable HTTP at 127.0.0.1, built from the SDK's server auth.

It is its own authorization server: dynamic client registration, an authorization endpoint
that approves at once (as a user clicking "Allow" would), tokens, refresh and revocation.

    python mcp_oauth_server.py PORT LOG [--expires-in SECONDS]

LOG gets one line per event the tests wait for: `registered`, `authorized`, `token`,
`refreshed`, `revoked <kind>`, `call <bearer client>`. `--expires-in` is the lifetime the
client is told (0: every request after the first refreshes); the server itself accepts a
token until it is revoked.
"""

from __future__ import annotations

import argparse
import secrets
import time
from pathlib import Path

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class Provider:
    """An in-memory authorization server that approves every request."""

    def __init__(self, log: Path, expires_in: int) -> None:
        self.log = log
        self.expires_in = expires_in
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    def note(self, line: str) -> None:
        with self.log.open("a") as handle:
            handle.write(line + "\n")

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        self.note("registered")

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.note("authorized")
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        return self.codes.get(code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes, resource=resource)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(
            access_token=access, expires_in=self.expires_in, refresh_token=refresh, scope=" ".join(scopes) or None
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[code.code]
        self.note("token")
        return self._issue(code.client_id, code.scopes, code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh[refresh_token.token]
        self.note("refreshed")
        return self._issue(refresh_token.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.access.get(token)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        kind = "refresh" if isinstance(token, RefreshToken) else "access"
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)
        self.note(f"revoked {kind}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("log", type=Path)
    parser.add_argument("--expires-in", type=int, default=3600)
    args = parser.parse_args()
    base = f"http://127.0.0.1:{args.port}"
    provider = Provider(args.log, args.expires_in)
    server = MCPServer(
        "protected",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,  # type: ignore[arg-type]
            resource_server_url=f"{base}/mcp",  # type: ignore[arg-type]
            validate_token_resource=False,
            client_registration_options=ClientRegistrationOptions(enabled=True),
            revocation_options=RevocationOptions(enabled=True),
        ),
    )

    @server.tool(description="Say who is calling")
    def whoami() -> str:
        return "a signed-in client"

    server.run("streamable-http", host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
