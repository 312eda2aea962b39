"""The session's task list (TodoWrite): its items, their validation, and the port that keeps the list."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

TodoStatus = Literal["pending", "in_progress", "completed"]


class TodoItem(BaseModel):
    """One task: what to do, where it stands, and how to say it while it is being done."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)
    content: str = Field(min_length=1, description="What needs doing, in the imperative (e.g. 'Run the tests')")
    status: TodoStatus = Field(description="pending, in_progress or completed")
    active_form: str = Field(
        alias="activeForm", min_length=1, description="The same task as shown while it runs (e.g. 'Running the tests')"
    )

    @field_validator("content", "active_form")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value


def todo_problems(todos: Sequence[TodoItem]) -> list[str]:
    """What is wrong with a whole list (each item is already valid on its own)."""
    problems: list[str] = []
    running = [t.content for t in todos if t.status == "in_progress"]
    if len(running) > 1:
        problems.append(
            f"At most one task may be in_progress at a time; {len(running)} are: " + "; ".join(running)
        )
    return problems


def todos_json(todos: Sequence[TodoItem]) -> list[dict[str, str]]:
    """The list as the client protocol sends it (`activeForm` spelled so)."""
    return [todo.model_dump(by_alias=True) for todo in todos]


class TodoBoard(Protocol):
    """The port that keeps an agent's task list (and shows it where there is someone to see it)."""

    def current(self) -> tuple[TodoItem, ...]:
        """The list now."""
        ...

    def replace(self, todos: Sequence[TodoItem]) -> None:
        """Put a new list in place of the old one."""
        ...


class MemoryTodoBoard:
    """A TodoBoard that only remembers (a sub-agent's private list)."""

    def __init__(self) -> None:
        self._todos: tuple[TodoItem, ...] = ()

    def current(self) -> tuple[TodoItem, ...]:
        """The list now."""
        return self._todos

    def replace(self, todos: Sequence[TodoItem]) -> None:
        """Put a new list in place of the old one."""
        self._todos = tuple(todos)
