"""Token usage and its estimated cost, per turn (its sub-agents' requests included) and per session.

Each response's usage splits its input three ways, as the API bills it: plain input, cache writes and
cache reads. Cost is estimated from the model's list prices (`model_catalog`) unless the `prices`
setting gives a model's prices; a request of a model with no known price leaves the cost unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from handrail.agent.model_catalog import ModelPrices, model_info
from handrail.wire import models as wire

PriceBook = Callable[[str], ModelPrices | None]
"""A model's prices by its id (None when unknown)."""

_PER_MILLION = 1_000_000


def input_count(usage: Mapping[str, int]) -> int:
    """A response's input tokens, cache reads and writes included (all were sent)."""
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return sum(int(usage.get(key) or 0) for key in keys)


def output_count(usage: Mapping[str, int]) -> int:
    """A response's output tokens."""
    return int(usage.get("output_tokens") or 0)


def request_cost(usage: Mapping[str, int], prices: ModelPrices) -> float:
    """What one response cost in USD."""
    plain = int(usage.get("input_tokens") or 0)
    written = int(usage.get("cache_creation_input_tokens") or 0)
    read = int(usage.get("cache_read_input_tokens") or 0)
    cost = (
        plain * prices.input + written * prices.cache_write + read * prices.cache_read
        + output_count(usage) * prices.output
    ) / _PER_MILLION
    long = prices.long_prompt_tokens is not None and input_count(usage) > prices.long_prompt_tokens
    return cost * prices.long_prompt_factor if long else cost


def parse_prices(setting: object) -> dict[str, ModelPrices]:
    """The `prices` setting: `{model: {input, output, cacheWrite?, cacheRead?}}` in USD per million tokens
    (cache writes default to 1.25x input, reads to 0.1x). Entries that are not of that shape are ignored."""
    if not isinstance(setting, Mapping):
        return {}
    book: dict[str, ModelPrices] = {}
    for model, entry in setting.items():
        if not isinstance(entry, Mapping):
            continue
        try:
            base, output = float(entry["input"]), float(entry["output"])
            write = float(entry.get("cacheWrite", base * 1.25))
            read = float(entry.get("cacheRead", base * 0.1))
        except (KeyError, TypeError, ValueError):
            continue
        book[str(model)] = ModelPrices(base, output, write, read)
    return book


def price_book(overrides: Mapping[str, ModelPrices]) -> PriceBook:
    """Prices from `overrides` first, then the catalog's list prices."""

    def prices(model: str) -> ModelPrices | None:
        if model in overrides:
            return overrides[model]
        info = model_info(model)
        return info.prices if info is not None else None

    return prices


@dataclass
class UsageTotals:
    """Tokens of a series of model requests and what they cost."""

    input_tokens: int = 0  # plain input, billed at the input price
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_requests: int = 0  # requests of models with no known price: the cost leaves them out

    def add(self, usage: Mapping[str, int], prices: ModelPrices | None) -> None:
        """Count one response's usage."""
        self.input_tokens += int(usage.get("input_tokens") or 0)
        self.cache_read_tokens += int(usage.get("cache_read_input_tokens") or 0)
        self.cache_write_tokens += int(usage.get("cache_creation_input_tokens") or 0)
        self.output_tokens += output_count(usage)
        if prices is None:
            self.unpriced_requests += 1
        else:
            self.cost_usd += request_cost(usage, prices)

    def as_wire(self) -> wire.UsageTotals:
        """The totals as a client sees them (`costUsd` null when no request could be priced)."""
        priced = self.unpriced_requests == 0 or self.cost_usd > 0
        return wire.UsageTotals(
            input_tokens=self.input_tokens,
            cache_read_tokens=self.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens,
            output_tokens=self.output_tokens,
            cost_usd=round(self.cost_usd, 6) if priced else None,
        )


@dataclass
class TurnUsage:
    """The usage of one turn's model requests, added to its session's totals as it goes."""

    prices: PriceBook = field(default=price_book({}))
    session: UsageTotals = field(default_factory=UsageTotals)
    turn: UsageTotals = field(default_factory=UsageTotals)

    def add(self, usage: Mapping[str, int], model: str) -> None:
        """Count one response of `model`."""
        prices = self.prices(model)
        self.turn.add(usage, prices)
        self.session.add(usage, prices)

    def as_wire(self, context_tokens: int = 0, context_window: int = 0) -> wire.Usage:
        """The `usage` field of `turnEnd`: the turn's totals, the session's, and how full the context window
        is (the tokens the last request and its answer took, against the window compaction keeps to)."""
        return wire.Usage(
            **self.turn.as_wire().model_dump(),
            session=self.session.as_wire(),
            context_tokens=context_tokens,
            context_window=context_window,
        )
