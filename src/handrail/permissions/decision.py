"""The outcome of asking whether a tool call may run, with the reason that explains it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Behavior = Literal["allow", "deny", "ask"]
CheckBehavior = Literal["allow", "deny", "ask", "passthrough"]

ReasonType = Literal[
    "rule",
    "mode",
    "read_only_in_workspace",
    "tool",
    "user",
    "default",
    "outside_workspace",
    "safety_check",
    "working_dir",
    "hook",
    "classifier",
    "other",
]


@dataclass(frozen=True)
class DecisionReason:
    """Why a decision was taken: the kind of reason, and words a user can read."""

    type: ReasonType
    message: str
    rule: str | None = None


@dataclass(frozen=True)
class PermissionCheck:
    """A tool's own opinion on one call, given before the general pipeline decides.

    `passthrough` leaves the decision to the pipeline (whose default is to ask).
    `diff` is a preview of the change for prompts; `suggestions` are rules an
    "always allow" answer would add.
    """

    behavior: CheckBehavior = "passthrough"
    message: str = ""
    diff: str | None = None
    suggestions: tuple[str, ...] = ()
    # an ask that no rule and no mode may settle (a flagged shell command, a path outside the working dirs)
    safety: bool = False


@dataclass(frozen=True)
class PermissionDecision:
    """The pipeline's verdict on one tool call."""

    behavior: Behavior
    reason: DecisionReason
    diff: str | None = None
    suggestions: tuple[str, ...] = field(default=())
