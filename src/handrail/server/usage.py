"""Token usage summed over a turn's model requests (its sub-agents' included)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


def input_count(usage: Mapping[str, int]) -> int:
    """A response's input tokens, cache reads and writes included (all were sent)."""
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return sum(int(usage.get(key) or 0) for key in keys)


def output_count(usage: Mapping[str, int]) -> int:
    """A response's output tokens."""
    return int(usage.get("output_tokens") or 0)


@dataclass
class TurnUsage:
    """Input and output tokens of every request of one turn so far."""

    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, usage: Mapping[str, int]) -> None:
        """Count one response's usage (input counts cache reads and writes too: all were sent)."""
        self.input_tokens += input_count(usage)
        self.output_tokens += output_count(usage)

    def as_json(self) -> dict[str, int]:
        """The `usage` field of `turnEnd`."""
        return {"inputTokens": self.input_tokens, "outputTokens": self.output_tokens}
