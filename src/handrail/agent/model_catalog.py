"""What handrail knows of each model the installed anthropic SDK names: prices, thinking and effort.

Prices are the published list prices in USD per million tokens (5-minute cache writes; cache reads
as each model's price list gives them). A model this table does not know gets no cost estimate
(unless the `prices` setting gives one) and no thinking or effort fields (the API's defaults apply).

Thinking: `adaptive` lets the model decide how much to think (`thinking: {"type": "adaptive"}`;
the older `enabled` with a token budget is deprecated for these models). The off switch differs:
most models take `disabled`, the 5.5 generation's Sonnet and Haiku take `between_tools` (only short
notes between tool calls), and some models always think (they refuse both).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

OffSwitch = Literal["disabled", "between_tools"]


@dataclass(frozen=True)
class ModelPrices:
    """USD per million tokens. Above `long_prompt_tokens` of input (cache included) every price of that
    request is `long_prompt_factor` times higher."""

    input: float
    output: float
    cache_write: float
    cache_read: float
    long_prompt_tokens: int | None = None
    long_prompt_factor: float = 1.0


@dataclass(frozen=True)
class ModelInfo:
    """A model's prices and how it thinks."""

    prices: ModelPrices
    adaptive_thinking: bool = True
    off_switch: OffSwitch | None = "disabled"  # None: thinking cannot be turned off
    effort: bool = True


def _prices(input: float, output: float, cache_read: float, cache_write: float | None = None) -> ModelPrices:
    return ModelPrices(input, output, input * 1.25 if cache_write is None else cache_write, cache_read)


_FABLE_5_2 = ModelInfo(_prices(8, 40, 0.20), off_switch=None)
_FABLE_5_1 = ModelInfo(_prices(10, 50, 0.25), off_switch=None)
_FABLE_5 = ModelInfo(_prices(10, 50, 1.00), off_switch=None)
_OPUS_5 = ModelInfo(_prices(5, 25, 0.50))

MODELS: dict[str, ModelInfo] = {
    "claude-fable-5-2": _FABLE_5_2,
    "claude-mythos-5-2": _FABLE_5_2,
    "claude-haiku-5-5": ModelInfo(
        ModelPrices(0.10, 0.50, 0.125, 0.01, long_prompt_tokens=100_000, long_prompt_factor=5.0),
        off_switch="between_tools",
    ),
    "claude-sonnet-5-5": ModelInfo(_prices(2, 10, 0.10), off_switch="between_tools"),
    "claude-fable-5-1": _FABLE_5_1,
    "claude-mythos-5-1": _FABLE_5_1,
    "claude-opus-5-5": ModelInfo(_prices(4, 20, 0.20), off_switch=None),
    "claude-sonnet-5": ModelInfo(_prices(2, 10, 0.20)),
    "claude-fable-5": _FABLE_5,
    "claude-mythos-5": _FABLE_5,
    "claude-opus-5": _OPUS_5,
    "claude-opus-4-8": _OPUS_5,
    "claude-opus-4-7": ModelInfo(_prices(5, 25, 0.50), off_switch=None),
    "claude-opus-4-6": _OPUS_5,
    "claude-sonnet-4-6": ModelInfo(_prices(3, 15, 0.30)),
    "claude-haiku-4-5": ModelInfo(_prices(1, 5, 0.10), adaptive_thinking=False, effort=False),
    "claude-opus-4-5": ModelInfo(_prices(5, 25, 0.50), adaptive_thinking=False),
}


def model_info(model: str) -> ModelInfo | None:
    """What is known of `model`: by its id, or the id it extends (a dated snapshot, a `[1m]` variant)."""
    if model in MODELS:
        return MODELS[model]
    known = [name for name in MODELS if model.startswith(name + "-") or model.startswith(name + "[")]
    return MODELS[max(known, key=len)] if known else None
