"""The outcome of asking whether a tool call may run, with the reason that explains it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Behavior = Literal["allow", "deny", "ask"]
CheckBehavior = Literal["allow", "deny", "ask", "passthrough"]
# how a call touches a path: reads it, writes it, runs it, reads everything below it, or moves into it
# `mention`: a file named to a program handrail does not know (`gh gist create .env`): it may read it
TouchKind = Literal["read", "write", "run", "search", "enter", "mention"]

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


@dataclass(frozen=True, slots=True)
class Touch:
    """One file or folder a call touches, resolved, for the pipeline to decide as Read or Edit would.

    `written` is the path made absolute as written (`..` folded), `real` the same path with its
    symlinks resolved; rules see both. `named` says an exact rule the user wrote covers the
    command that touches it. For a folder a command searches recursively, `below` holds the
    (written, resolved) paths found in it that rules or the working directories must see, and
    `unchecked` says it held too much to look through.
    """

    kind: TouchKind
    written: str
    real: str
    named: bool = False
    below: tuple[tuple[str, str], ...] = ()
    unchecked: bool = False

    @property
    def forms(self) -> tuple[str, ...]:
        """The forms rules are matched against: as written, and resolved when that differs."""
        return (self.written,) if self.written == self.real else (self.written, self.real)


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
    # what the call touches beyond the tool's own paths (a Bash command's files), decided by the pipeline
    touches: tuple[Touch, ...] = ()


PASSTHROUGH = PermissionCheck()  # the opinion of a tool that leaves its calls to the pipeline (checks never change)


@dataclass(frozen=True)
class PermissionDecision:
    """The pipeline's verdict on one tool call."""

    behavior: Behavior
    reason: DecisionReason
    diff: str | None = None
    suggestions: tuple[str, ...] = field(default=())
