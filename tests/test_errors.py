"""The exception tree: every exception handrail defines derives from HandrailError and stands in the documented tree
where it really is (its parent, its module, whether it is a ValueError too)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from dataclasses import dataclass

import handrail
from handrail import errors
from handrail.errors import HandrailError

SKIPPED = ("handrail.__main__", "handrail.demo.sample")
ENTRY = re.compile(r"^(?P<indent> *)\* (?P<name>\w+)(?: — (?P<module>[\w/]+\.py)?)?")


@dataclass(frozen=True)
class Documented:
    parent: str | None
    module: str | None
    value_error: bool


def _documented() -> dict[str, Documented]:
    """The tree in the module docstring: each name with its parent, module and ValueError mark."""
    doc = errors.__doc__
    assert doc is not None
    found: dict[str, Documented] = {}
    parents: list[str] = []
    lines = doc.splitlines()
    for index, line in enumerate(lines):
        match = ENTRY.match(line)
        if match is None:
            continue
        depth = len(match["indent"]) // 2
        parents = parents[:depth]
        entry = line + (lines[index + 1] if index + 1 < len(lines) and not ENTRY.match(lines[index + 1]) else "")
        module = match["module"]
        value_error = "(ValueError)" in entry
        if parents:  # a child is in its parent's module unless it names another, and a ValueError when it is
            module = module or found[parents[-1]].module
            value_error = value_error or found[parents[-1]].value_error
        found[match["name"]] = Documented(parents[-1] if parents else None, module, value_error)
        parents.append(match["name"])
    return found


def _defined() -> dict[str, type[BaseException]]:
    """Every public exception class a handrail module defines."""
    classes: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(handrail.__path__, "handrail."):
        if info.name.startswith(SKIPPED):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == info.name
                and not name.startswith("_")
            ):
                classes[name] = value
    return classes


def _module_path(cls: type) -> str:
    return cls.__module__.removeprefix("handrail.").replace(".", "/") + ".py"


def test_every_exception_derives_from_the_root_and_is_documented_where_it_is() -> None:
    documented = _documented()
    defined = _defined()
    assert set(defined) - {"HandrailError"} == set(documented) - {"HandrailError"}, "update handrail/errors.py"
    for name, cls in defined.items():
        assert issubclass(cls, HandrailError), f"{name} does not derive from HandrailError"
        if cls is HandrailError:
            continue
        entry = documented[name]
        parent = next(base for base in cls.__mro__[1:] if issubclass(base, HandrailError))
        assert entry.parent == parent.__name__, f"{name}: documented under {entry.parent}, derives from {parent}"
        assert entry.module == _module_path(cls), f"{name}: documented in {entry.module}, lives in {cls.__module__}"
        assert entry.value_error == issubclass(cls, ValueError), f"{name}: the ValueError mark is wrong"


def test_the_tree_parser_reads_nesting_and_marks() -> None:
    documented = _documented()
    assert documented["HandrailError"].parent is None
    assert documented["WriteConflictError"] == Documented("ToolError", "tools/filesystem.py", False)
    assert documented["StringNotFoundError"] == Documented("EditError", "tools/text_ops.py", True)
    assert documented["ClassifierAnswerError"].value_error  # its mark is on the continuation line
