"""The small, fast model call tools use (WebFetch), through the session's model client."""

from __future__ import annotations

import asyncio

from handrail.agent.model_client import ModelClient
from handrail.tools.small_model import SmallModelError

TIME_LIMIT_SECONDS = 120.0


class ClientSmallModel:
    """Implements the tool SmallModel port with one streamed request and no tools."""

    def __init__(self, client: ModelClient) -> None:
        self._client = client

    async def complete(self, *, system: str, prompt: str) -> str:
        """The model's text answer; raises SmallModelError when the request fails."""
        parts: list[str] = []
        try:
            async with asyncio.timeout(TIME_LIMIT_SECONDS):
                response = await self._client.stream_once(
                    system=system,
                    messages=[{"role": "user", "content": prompt}],
                    tools=(),
                    on_text=parts.append,
                    cache=False,  # one request: a cache entry would cost more than it saves
                )
        except TimeoutError as exc:
            raise SmallModelError(f"no answer within {TIME_LIMIT_SECONDS:.0f} seconds") from exc
        except Exception as exc:
            raise SmallModelError(self._client.describe(exc).message) from exc
        text = response.text or "".join(parts)
        if not text.strip():
            raise SmallModelError("the model gave an empty answer")
        return text
