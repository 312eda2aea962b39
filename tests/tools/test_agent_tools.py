"""The agent tools against in-memory ports: questions, plan mode, diagnostics (also in edit results), web pages."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import ValidationError

from handrail.tools.builtin.ask_user import ASK_USER_QUESTION
from handrail.tools.builtin.diagnostics import DIAGNOSTICS
from handrail.tools.builtin.edit import EDIT
from handrail.tools.builtin.plan_mode import ENTER_PLAN_MODE, EXIT_PLAN_MODE
from handrail.tools.builtin.read import READ
from handrail.tools.builtin.web_fetch import WEB_FETCH
from handrail.tools.context import ToolUseContext
from handrail.tools.editor_diagnostics import DiagnosticInfo, changed_lines, new_errors
from handrail.tools.errors import ToolError
from handrail.tools.questions import PlanVerdict, Question
from handrail.tools.web_page import FetchError, Page, Redirect, fetch_page, html_to_markdown, is_loopback, normalise_url
from tests.local_http import serve_http

from .support import run


@dataclass
class Answers:
    """A UserQuestions port answering from fixed values."""

    answers: Mapping[str, str] | None = None
    verdict: PlanVerdict = field(default_factory=lambda: PlanVerdict(True))
    asked: list[tuple[Question, ...]] = field(default_factory=list)
    plans: list[str] = field(default_factory=list)

    async def ask_questions(self, tool_use_id: str, questions: Sequence[Question]) -> Mapping[str, str] | None:
        self.asked.append(tuple(questions))
        return self.answers

    async def approve_plan(self, tool_use_id: str, plan: str) -> PlanVerdict:
        self.plans.append(plan)
        return self.verdict


@dataclass
class Modes:
    """A ModeControl port over one variable."""

    current: str = "acceptEdits"
    before: str | None = None

    def mode(self) -> str:
        return self.current

    def enter_plan_mode(self) -> None:
        self.before, self.current = self.current, "plan"

    def exit_plan_mode(self) -> str:
        self.current = self.before or "default"
        return self.current


def _question(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "question": "Which one?",
        "header": "Pick",
        "options": [{"label": "A", "description": "first"}, {"label": "B", "description": "second"}],
    }
    return {**base, **changes}


async def test_ask_user_question_reports_each_answer(ctx: ToolUseContext) -> None:
    port = Answers({"Which one?": "B", "And?": "free text"})
    questions = [_question(), _question(question="And?", multiSelect=True)]
    text = await run(ASK_USER_QUESTION, replace(ctx, questions=port), questions=questions)
    assert '"Which one?" = "B"' in text and '"And?" = "free text"' in text
    (asked,) = port.asked
    assert asked[1].multi_select and asked[0].options[1].description == "second"


@pytest.mark.parametrize(
    "questions",
    [
        [],
        [_question(header="far too long a header")],
        [_question(options=[{"label": "A", "description": ""}])],
        [_question(options=[{"label": x, "description": ""} for x in "ABCDE"])],
        [_question(options=[{"label": "A", "description": ""}, {"label": "A", "description": ""}])],
        [_question(), _question()],
        [_question()] * 5,
    ],
)
def test_ask_user_question_input_is_checked(questions: list[dict[str, Any]]) -> None:
    with pytest.raises(ValidationError):
        ASK_USER_QUESTION.input_model.model_validate({"questions": questions})


async def test_ask_user_question_declined_or_without_user_is_an_error(ctx: ToolUseContext) -> None:
    with pytest.raises(ToolError, match="no user"):
        await run(ASK_USER_QUESTION, ctx, questions=[_question()])
    with pytest.raises(ToolError, match="declined"):
        await run(ASK_USER_QUESTION, replace(ctx, questions=Answers(None)), questions=[_question()])


async def test_plan_mode_round_trip(ctx: ToolUseContext) -> None:
    modes, answers = Modes(), Answers(verdict=PlanVerdict(False, "smaller steps"))
    ctx = replace(ctx, modes=modes, questions=answers)
    with pytest.raises(ToolError, match="not in plan mode"):
        await run(EXIT_PLAN_MODE, ctx, plan="p")
    assert "Entered plan mode" in await run(ENTER_PLAN_MODE, ctx)
    assert "Already in plan mode" in await run(ENTER_PLAN_MODE, ctx)
    with pytest.raises(ToolError, match=r"stays in plan mode.*smaller steps"):
        await run(EXIT_PLAN_MODE, ctx, plan="first plan")
    assert modes.current == "plan"
    answers.verdict = PlanVerdict(True)
    assert "permission mode now: acceptEdits" in await run(EXIT_PLAN_MODE, ctx, plan="second plan")
    assert modes.current == "acceptEdits" and answers.plans == ["first plan", "second plan"]


# ---------------------------------------------------------------- diagnostics


def _error(line: int, message: str = "bad", severity: int = 1) -> DiagnosticInfo:
    return DiagnosticInfo(line=line, character=0, end_line=line, severity=severity, message=message, source="lint")


@dataclass
class Diagnostics:
    """An EditorDiagnostics port: `before` now, `after` once a write happened."""

    before: dict[Path, tuple[DiagnosticInfo, ...]]
    after: tuple[DiagnosticInfo, ...] | None
    available: bool = True

    def current(self, path: Path | None = None) -> Mapping[Path, tuple[DiagnosticInfo, ...]]:
        return {p: d for p, d in self.before.items() if path is None or p == path}

    async def after_write(self, path: Path) -> tuple[DiagnosticInfo, ...] | None:
        return self.after


def test_changed_lines_and_new_errors() -> None:
    old, new = "a\nb\nc\nd\n", "a\nB\nc\nd\ne\n"
    assert changed_lines(old, new) == ((1, 1), (4, 4))
    assert changed_lines("a\nb\nc\n", "a\nc\n") == ((1, 1),)  # a deletion marks the line after it
    after = [_error(1, "new"), _error(2, "untouched"), _error(4, "old"), _error(1, "warn", severity=2)]
    assert new_errors([_error(0, "old")], after, changed_lines(old, new)) == [after[0]]


async def test_edit_result_mentions_new_errors_in_changed_lines(tmp_path: Path, ectx: ToolUseContext) -> None:
    path = tmp_path / "m.py"
    path.write_text("x = 1\ny = 2\nz = 3\n")
    old = _error(2, "old problem")
    ports = Diagnostics({path: (old,)}, (_error(1, "name 'q' is not defined"), old))
    ctx = replace(ectx, diagnostics=ports)
    await run(READ, ctx, file_path=str(path))
    text = await run(EDIT, ctx, file_path=str(path), old_string="y = 2", new_string="y = q")
    assert "1 new error(s) in the lines just changed" in text and "2:1 error: name 'q' is not defined [lint]" in text
    assert "old problem" not in text
    ports.after = (old,)
    text = await run(EDIT, ctx, file_path=str(path), old_string="y = q", new_string="y = 4")
    assert "error" not in text


async def test_diagnostics_tool(tmp_path: Path, ctx: ToolUseContext) -> None:
    assert "does not share its diagnostics" in await run(DIAGNOSTICS, ctx)
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    ports = Diagnostics({a: (_error(3, "broken"), _error(0, "style", severity=2)), b: ()}, None)
    ctx = replace(ctx, diagnostics=ports)
    text = await run(DIAGNOSTICS, ctx)
    expected = ["a.py (1 error, 1 warning):", "  4:1 error: broken [lint]", "  1:1 warning: style [lint]"]
    assert text.splitlines() == expected
    assert "no diagnostics for b.py" in await run(DIAGNOSTICS, ctx, file_path=str(b))


# ---------------------------------------------------------------- web pages


def test_urls_are_upgraded_except_for_loopback() -> None:
    assert normalise_url("http://example.com/a#frag") == "https://example.com/a"
    assert normalise_url("http://127.0.0.1:8000/x") == "http://127.0.0.1:8000/x"
    assert normalise_url("http://localhost/x") == "http://localhost/x"
    assert is_loopback("[::1]") and is_loopback("127.3.4.5") and not is_loopback("10.0.0.1")
    for bad in ("ftp://example.com", "https://user:pw@example.com", "not a url", "https://" + "a" * 2100):
        with pytest.raises(FetchError):
            normalise_url(bad)


def test_html_becomes_markdown() -> None:
    html = "<html><head><title>T</title><style>p{}</style></head><body><h1>Big</h1><ul><li>one</li></ul></body></html>"
    assert html_to_markdown(html) == "# T\n\n# Big\n\n- one"


class _Pages(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        body = b"x" * 5000 if self.path == "/big" else b"plain text"
        if self.path == "/loop":
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.end_headers()
            return
        if self.path == "/away":
            self.send_response(302)
            self.send_header("Location", "https://example.com/")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()  # no Content-Length: the size limit must hold while reading
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def pages() -> Iterator[str]:
    with serve_http(_Pages) as url:
        yield url


async def test_fetch_limits_and_redirects(pages: str) -> None:
    async def deny(url: str) -> Any:
        return "deny"

    async def ask(url: str) -> Any:
        return "ask"

    page = await fetch_page(f"{pages}/small", ask)
    assert isinstance(page, Page) and page.text == "plain text" and page.content_type == "text/plain"
    with pytest.raises(FetchError, match="larger than the limit"):
        await fetch_page(f"{pages}/big", ask, max_bytes=1000)
    with pytest.raises(FetchError, match="redirected more than"):
        await fetch_page(f"{pages}/loop", ask)
    away = await fetch_page(f"{pages}/away", ask)
    assert isinstance(away, Redirect) and away.target == "https://example.com/"
    with pytest.raises(FetchError, match="permission rules deny"):
        await fetch_page(f"{pages}/away", deny)


async def test_web_fetch_keeps_a_page_for_a_while(pages: str, ctx: ToolUseContext) -> None:
    url = f"{pages}/cached"
    first = await run(WEB_FETCH, ctx, url=url, prompt="what is it?")
    second = await run(WEB_FETCH, ctx, url=url, prompt="and again?")
    assert "no small model is configured" in first and "plain text" in first and second == first
    assert _Pages.hits.count("/cached") == 1
