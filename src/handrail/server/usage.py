"""Token usage summed over a turn's model requests (its sub-agents' included)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass
class TurnUsage:
    """Input and output tokens of every request of one turn so far."""

    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, usage: Mapping[str, int]) -> None:
        """Count one response's usage (input counts cache reads and writes too: all were sent)."""
        self.input_tokens += sum(
            int(usage.get(key) or 0)
            for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        self.output_tokens += int(usage.get("output_tokens") or 0)

    def as_json(self) -> dict[str, int]:
        """The `usage` field of `turnEnd`."""
        return {"inputTokens": self.input_tokens, "outputTokens": self.output_tokens}
