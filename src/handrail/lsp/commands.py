"""The server's commands: each one's arguments parsed into its parameter model, run by the agent host, and its
result sent as the wire contract says.

Every command takes one argument object (`arguments: [{...}]`); one whose fields are all optional may also be
called with none, and an empty array stands for an empty object (Lua clients cannot tell them apart). A call
that does not fit is answered InvalidParams, as pygls answers its own requests' bad params, and the agent's
refusals are answered with their own error codes.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel, RootModel, ValidationError
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from handrail.lsp.lsp_values import to_plain
from handrail.wire import names
from handrail.wire.errors import RequestRefused
from handrail.wire.models import COMMAND_MODELS, to_wire

if TYPE_CHECKING:
    from handrail.lsp.server import HandrailServer

P = TypeVar("P", bound=BaseModel)


def command_params(model: type[P], command: str, args: Sequence[Any]) -> P:
    """The one argument object of a `workspace/executeCommand` call as `model`; InvalidParams when it does not fit."""
    if len(args) > 1 or (not args and _required(model)):
        raise JsonRpcInvalidParams(
            f"{command} takes one argument object, as arguments {_example(model)}; it was called with "
            f"{len(args) or 'none'}"
        )
    given = to_plain(args[0]) if args else {}
    if given == []:
        given = {}
    try:
        return model.model_validate(given)
    except ValidationError as exc:
        raise JsonRpcInvalidParams(f"{command}: {_explained(exc)}") from exc


def _example(model: type[BaseModel]) -> str:
    """The argument list a command takes, written out: its required fields, then its optional ones."""
    fields = sorted(model.model_fields.items(), key=lambda item: not item[1].is_required())
    shown = [
        f'"{field.alias or name}": ' + ("…" if field.is_required() else "… (optional)") for name, field in fields
    ]
    return "[{" + ", ".join(shown) + "}]"


def _required(model: type[BaseModel]) -> bool:
    return any(field.is_required() for field in model.model_fields.values())


def _explained(error: ValidationError) -> str:
    """The problems of an argument object, one clause each: where, what was expected, and what was given."""
    clauses = []
    for problem in error.errors(include_url=False):
        where = ".".join(str(part) for part in problem["loc"]) or "the argument"
        given = "" if problem["type"] == "missing" else f" (got {problem['input']!r:.200})"
        clauses.append(f"{where}: {problem['msg']}{given}")
    return "; ".join(clauses)


@dataclass(frozen=True)
class Command(Generic[P]):
    """A command: the operation that answers it (its parameter model is the wire contract's)."""

    run: Callable[[HandrailServer, P], Awaitable[BaseModel] | BaseModel]
    # `$/cancelRequest` for the call cancels the operation (a turn), rather than only answering the client
    cancellable: bool = False


COMMANDS: dict[str, Command[Any]] = {
    names.ASK_COMMAND: Command(lambda ls, p: ls.agent.ask(p, ls.editor_ports()), cancellable=True),
    names.START_ASK_COMMAND: Command(lambda ls, p: ls.agent.start_ask(p, ls.editor_ports(), ls.turn_finished)),
    names.CANCEL_COMMAND: Command(lambda ls, p: ls.agent.cancel(p)),
    names.SET_MODE_COMMAND: Command(lambda ls, p: ls.agent.set_mode(p, ls.editor_ports())),
    names.PERMISSIONS_COMMAND: Command(lambda ls, p: ls.agent.permissions(p)),
    names.APPROVE_COMMAND: Command(lambda ls, p: ls.agent.approve_project_settings(p)),
    names.MCP_STATUS_COMMAND: Command(lambda ls, p: ls.agent.mcp_status()),
    names.APPROVE_MCP_COMMAND: Command(lambda ls, p: ls.agent.approve_mcp_server(p)),
    names.RESTART_MCP_COMMAND: Command(lambda ls, p: ls.agent.restart_mcp_server(p)),
    names.BACKGROUND_TASKS_COMMAND: Command(lambda ls, p: ls.agent.background_tasks(p)),
    names.SIGN_IN_MCP_COMMAND: Command(lambda ls, p: ls.agent.sign_in_mcp_server(p)),
    names.SIGN_OUT_MCP_COMMAND: Command(lambda ls, p: ls.agent.sign_out_mcp_server(p)),
    names.MCP_PROMPTS_COMMAND: Command(lambda ls, p: ls.agent.mcp_prompts()),
    names.RUN_MCP_PROMPT_COMMAND: Command(
        lambda ls, p: ls.agent.run_mcp_prompt(p, ls.editor_ports()), cancellable=True
    ),
    names.MCP_RESOURCES_COMMAND: Command(lambda ls, p: ls.agent.mcp_resources()),
}


async def run_command(ls: HandrailServer, name: str, args: Sequence[Any]) -> Any:
    """Run the command `name` with the call's arguments; its result as JSON."""
    command = COMMANDS[name]
    if command.cancellable:
        ls.protocol.track_current_request()
    params = command_params(COMMAND_MODELS[name][0], name, args)
    try:
        result = command.run(ls, params)
        answer = await result if inspect.isawaitable(result) else result
    except RequestRefused as refused:
        raise JsonRpcException(str(refused), refused.code) from refused
    return to_wire(answer) if not isinstance(answer, RootModel) else answer.model_dump(mode="json", by_alias=True)
