"""AskUserQuestion: ask the user multiple-choice questions and give the model their answers."""

from __future__ import annotations

from pydantic import Field, model_validator

from handrail.tools.builtin._common import ToolInput, allow_check
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.protocol import ToolResult, build_tool
from handrail.tools.questions import Question, QuestionOption

HEADER_MAX_CHARS = 12


class OptionInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    label: str = Field(
        min_length=1, description="The display text for this option that the user will see and select (1-5 words)"
    )
    description: str = Field(description="Explanation of what this option means or what will happen if chosen")


class QuestionInput(ToolInput):
    question: str = Field(min_length=1, description="The complete question to ask the user, ending with '?'")
    header: str = Field(
        min_length=1,
        max_length=HEADER_MAX_CHARS,
        description=f"Very short label displayed as a chip/tag (max {HEADER_MAX_CHARS} chars)",
    )
    options: list[OptionInput] = Field(
        min_length=2, max_length=4, description="The available choices (2-4 options); 'Other' is added automatically"
    )
    multi_select: bool = Field(
        default=False, alias="multiSelect", description="Set to true to allow the user to select multiple options"
    )

    @model_validator(mode="after")
    def _distinct_labels(self) -> QuestionInput:
        labels = [option.label for option in self.options]
        if len(set(labels)) != len(labels):
            raise ValueError("option labels must be distinct within a question")
        return self


class AskUserQuestionInput(ToolInput):
    questions: list[QuestionInput] = Field(
        min_length=1, max_length=4, description="Questions to ask the user (1-4 questions)"
    )

    @model_validator(mode="after")
    def _distinct_questions(self) -> AskUserQuestionInput:
        texts = [question.question for question in self.questions]
        if len(set(texts)) != len(texts):
            raise ValueError("question texts must be distinct")
        return self


PROMPT = """Use this tool when you need to ask the user questions during execution. This allows you to:
1. Gather user preferences or requirements
2. Clarify ambiguous instructions
3. Get decisions on implementation choices as you work
4. Offer choices to the user about what direction to take.

Usage notes:
- Users will always be able to select "Other" to provide custom text input
- Use multiSelect: true to allow multiple answers to be selected for a question
- If you recommend a specific option, make that the first option in the list and add "(Recommended)" at the end of the label
- The answers come back as the result of this tool; a declined question is an error result, and then you should not assume an answer"""  # noqa: E501


def _questions(value: AskUserQuestionInput) -> tuple[Question, ...]:
    return tuple(
        Question(
            question=q.question,
            header=q.header,
            options=tuple(QuestionOption(o.label, o.description) for o in q.options),
            multi_select=q.multi_select,
        )
        for q in value.questions
    )


async def _call(value: AskUserQuestionInput, ctx: ToolUseContext) -> ToolResult:
    if ctx.questions is None:
        raise ToolError("There is no user to ask here. Decide yourself, and say which assumption you made.")
    answers = await ctx.questions.ask_questions(ctx.tool_use_id, _questions(value))
    if answers is None:
        raise ToolError(
            "The user declined to answer the questions. Do not assume an answer: continue with what you know, "
            "or ask differently."
        )
    lines = ["The user answered your questions:"]
    for question in value.questions:
        answer = answers.get(question.question)
        lines.append(f'- "{question.question}" = "{answer}"' if answer else f'- "{question.question}" (no answer)')
    lines.append("You can now continue with the user's answers in mind.")
    return ToolResult("\n".join(lines))


ASK_USER_QUESTION = build_tool(
    name="AskUserQuestion",
    input_model=AskUserQuestionInput,
    description="Ask the user multiple-choice questions",
    prompt=PROMPT,
    search_hint="ask the user a question choose option clarify",
    call=_call,
    is_read_only=lambda value: True,
    check_permissions=allow_check("asking the user needs no approval"),
    summary=lambda value: "Ask: " + "; ".join(q.header for q in value.questions),
    interrupt_behavior="cancel",
)
