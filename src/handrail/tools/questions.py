"""The port for questions to the user that are not permission prompts: AskUserQuestion and plan approval."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class QuestionOption:
    """One choice of a question: a short label and what it means."""

    label: str
    description: str = ""


@dataclass(frozen=True)
class Question:
    """A question with 2-4 options; `multi_select` lets the user pick several."""

    question: str
    header: str
    options: tuple[QuestionOption, ...]
    multi_select: bool = False


@dataclass(frozen=True)
class PlanVerdict:
    """The user's answer to a plan: approved or not, and what they said."""

    approved: bool
    feedback: str | None = None


class UserQuestions(Protocol):
    """Asks the user; the server implements it over LSP, tests in memory."""

    async def ask_questions(self, tool_use_id: str, questions: Sequence[Question]) -> Mapping[str, str] | None:
        """The answer to each question by its text (labels joined by ", ", or free text); None when declined."""
        ...

    async def approve_plan(self, tool_use_id: str, plan: str) -> PlanVerdict:
        """Show the plan and ask whether to go ahead with it."""
        ...
