"""Questions to the user: `handrail/askUser` where declared, else one `window/showMessageRequest` per question.

Plan approval goes the same ways: `handrail/permission` for tool ExitPlanMode with the plan where
declared, else a message with "Approve plan" / "Keep planning".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from handrail.lsp.chat import ChatChannel
from handrail.lsp.client_features import ClientFeatures
from handrail.lsp.lsp_values import field_of
from handrail.lsp.plain_prompts import PlainPrompts, send_cancellable
from handrail.lsp.prompter import permission_params
from handrail.permissions.visible import cut_middle, visible
from handrail.tools.context import PermissionRequest
from handrail.tools.questions import PlanVerdict, Question
from handrail.wire.names import ASK_USER_METHOD, PERMISSION_METHOD

APPROVE_PLAN = "Approve plan"
KEEP_PLANNING = "Keep planning"
_PLAN_CHARS_IN_MESSAGE = 4000


def question_params(question: Question) -> dict[str, Any]:
    """A question as the protocol carries it."""
    return {
        "question": question.question,
        "header": question.header,
        "options": [{"label": o.label, "description": o.description} for o in question.options],
        "multiSelect": question.multi_select,
    }


def question_message(question: Question) -> str:
    """The text of a plain-LSP question: the question, then what each option means."""
    lines = [f"[{question.header}] {question.question}"]
    lines += [f"• {o.label}: {o.description}" if o.description else f"• {o.label}" for o in question.options]
    if question.multi_select:
        lines.append("(Several answers were allowed; this editor can take one.)")
    return "\n".join(lines)


class LspQuestions:
    """Implements the tool UserQuestions port for the LSP client."""

    def __init__(
        self, server: LanguageServer, features: ClientFeatures, chat: ChatChannel, plain: PlainPrompts
    ) -> None:
        self._server = server
        self._features = features
        self._chat = chat
        self._plain = plain

    async def ask_questions(self, tool_use_id: str, questions: Sequence[Question]) -> Mapping[str, str] | None:
        """Ask every question; None when the user declined (closed a prompt without answering)."""
        with self._chat.prompt(tool_use_id):
            if self._features.ask_user:
                return await self._ask_rich(tool_use_id, questions)
            return await self._ask_plain(questions)

    async def _ask_plain(self, questions: Sequence[Question]) -> Mapping[str, str] | None:
        answers: dict[str, str] = {}
        for question in questions:
            params = types.ShowMessageRequestParams(
                type=types.MessageType.Info,
                message=question_message(question),
                actions=[types.MessageActionItem(title=o.label) for o in question.options],
            )
            title = (await self._plain.ask(params)).title  # an editor that cannot ask: declined
            if not title:
                return None
            answers[question.question] = title
        return answers

    async def _ask_rich(self, tool_use_id: str, questions: Sequence[Question]) -> Mapping[str, str] | None:
        params = {
            "sessionId": self._chat.session_id,
            "toolUseId": tool_use_id,
            "questions": [question_params(q) for q in questions],
        }
        result = await send_cancellable(self._server, ASK_USER_METHOD, params)
        given = field_of(result, "answers")
        if given is None:
            return None
        answers: dict[str, str] = {}
        for question in questions:
            answer = field_of(given, question.question)
            if isinstance(answer, list):  # tolerate a list of labels for multi-select
                answer = ", ".join(str(a) for a in answer)
            if isinstance(answer, str) and answer.strip():
                answers[question.question] = answer.strip()
        return answers or None

    async def approve_plan(self, tool_use_id: str, plan: str) -> PlanVerdict:
        """Show the plan and ask for approval, the way permission prompts are asked."""
        with self._chat.prompt(tool_use_id):
            verdict = await self._approve(tool_use_id, plan)
        self._chat.permission(tool_use_id, "allow" if verdict.approved else "deny")
        return verdict

    async def _approve(self, tool_use_id: str, plan: str) -> PlanVerdict:
        if self._features.permission_request:
            request = PermissionRequest(
                tool_name="ExitPlanMode",
                tool_use_id=tool_use_id,
                input={"plan": plan},
                summary="Approve the plan and leave plan mode",
                reason="the agent finished planning and asks to start changing things",
            )
            answer = await send_cancellable(
                self._server, PERMISSION_METHOD, permission_params(self._chat.session_id, request)
            )
            decision = field_of(answer, "decision")
            feedback = field_of(answer, "feedback")
            verdict = PlanVerdict(decision in ("allow", "allowAlways"), feedback if isinstance(feedback, str) else None)
        else:
            shown = cut_middle(visible(plan, keep_newlines=True), _PLAN_CHARS_IN_MESSAGE)
            params_plain = types.ShowMessageRequestParams(  # the safe action first (editors pre-select it)
                type=types.MessageType.Info,
                message=f"handrail's plan (approve to leave plan mode and let it make changes):\n\n{shown}",
                actions=[types.MessageActionItem(title=KEEP_PLANNING), types.MessageActionItem(title=APPROVE_PLAN)],
            )
            verdict = PlanVerdict((await self._plain.ask(params_plain)).title == APPROVE_PLAN)
        return verdict
