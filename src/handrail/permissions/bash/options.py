"""Splitting a command's words into options (with their values) and operands, the way GNU tools read them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from handrail.permissions.bash.model import Word


def option_set(names: str) -> frozenset[str]:
    """A set of option names written as one space-separated string."""
    return frozenset(names.split())


@dataclass
class Scan:
    """A command line split: options with their values, operands, where `--` stood, whether a word was unresolved."""

    options: list[tuple[str, Word | None]] = field(default_factory=list)
    operands: list[Word] = field(default_factory=list)
    after_dashdash: int | None = None  # index into operands where `--` was
    unresolved: bool = False


def scan(
    argv: Sequence[Word], valued: frozenset[str], *, start: int = 1, two_valued: frozenset[str] = frozenset()
) -> Scan:
    """Split argv into options (with their values) and operands, GNU style (options anywhere before `--`)."""
    result = Scan()
    i = start
    n = len(argv)
    while i < n:
        word = argv[i]
        text = word.text
        if not word.resolved:
            result.unresolved = True
        if result.after_dashdash is not None or text == "-" or not text.startswith("-") or not word.resolved:
            if text == "--" and result.after_dashdash is None and word.resolved:
                result.after_dashdash = len(result.operands)
            else:
                result.operands.append(word)
            i += 1
            continue
        if text == "--":
            result.after_dashdash = len(result.operands)
            i += 1
            continue
        if text.startswith("--"):
            name, eq, _ = text.partition("=")
            if eq:
                result.options.append((name, word.sliced(len(name) + 1)))
                i += 1
            elif name in two_valued:
                result.options.append((name, argv[i + 2] if i + 2 < n else None))
                i += 3
            elif name in valued:
                result.options.append((name, argv[i + 1] if i + 1 < n else None))
                i += 2
            else:
                result.options.append((name, None))
                i += 1
            continue
        if text in valued:  # also multi-letter single-dash options (`-cols`, `-newer`)
            result.options.append((text, argv[i + 1] if i + 1 < n else None))
            i += 2
            continue
        j = 1
        step = 1
        while j < len(text):
            name = "-" + text[j]
            if name in valued:
                rest = text[j + 1 :]
                if rest:
                    result.options.append((name, word.sliced(j + 1)))
                else:
                    result.options.append((name, argv[i + 1] if i + 1 < n else None))
                    step = 2
                break
            result.options.append((name, None))
            j += 1
        i += step
    return result


def first_forbidden(options: Sequence[tuple[str, Word | None]], forbidden: frozenset[str]) -> str | None:
    """The first of `options` that is one of `forbidden`, if any."""
    for name, _ in options:
        if name in forbidden:
            return name
    return None


def glob_before_dashdash(result: Scan) -> bool:
    """Whether an unquoted glob stands among the operands before `--` (it could expand into an option)."""
    limit = result.after_dashdash if result.after_dashdash is not None else len(result.operands)
    return any(w.glob for w in result.operands[:limit])


def option_hit(options: Sequence[tuple[str, Word | None]], names: frozenset[str]) -> bool:
    """Whether one of `names` (`-x`, or `-x=value` for an option with that value) is among `options`."""
    return any(name in names or (value is not None and f"{name}={value.text}" in names) for name, value in options)
