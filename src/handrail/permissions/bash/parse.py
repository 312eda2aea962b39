"""Cut a command line into simple commands with tree-sitter-bash.

`parse(source)` returns a `ParsedScript`: every simple command that could run (also those in
pipelines, lists, subshells, groups, command and process substitutions, here-doc pipelines,
loops, conditionals and function bodies), each with its argv after quote removal, its leading
assignments, its redirections and its structural context.

What cannot be known without running anything is marked, never guessed: a word built from an
expansion is unresolved (``resolved=False``, mask ``x``) and problems are recorded by id
(``parse_error``, ``arithmetic``, ``brace_expansion``...). The one substitution read statically
is the literal here-doc, ``"$(cat <<'EOF' ... EOF)"``, whose value is its body.

Known differences between tree-sitter and bash are reported as problems too (a here-doc whose
end line is not exactly its delimiter, a `$` tree-sitter did not read as an expansion).
"""

from __future__ import annotations

import bisect
import functools
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

from handrail.permissions.bash.model import (
    Assignment,
    CommandKind,
    ParsedScript,
    Reason,
    Redirect,
    RedirectKind,
    SimpleCommand,
    Word,
)

_LOCAL = threading.local()
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


@functools.cache
def _language() -> Language:
    return Language(tree_sitter_bash.language())


def _parser() -> Parser:
    """One parser per thread (tree-sitter parsers are not thread safe), sharing one language."""
    parser: Parser | None = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = Parser(_language())
        _LOCAL.parser = parser
    return parser


PROBLEM_MESSAGES: dict[str, str] = {
    "parse_error": "the command does not parse as shell syntax",
    "incomplete_command": "the command is incomplete (a missing word or a dangling operator)",
    "unknown_syntax": "the command uses shell syntax the analyser does not know",
    "unresolved_expansion": "a `$` the shell may expand and the analyser cannot read",
    "arithmetic": "arithmetic expansion or evaluation (it can run commands through array subscripts)",
    "brace_expansion": "brace expansion (`{a,b}` turns one word into several)",
    "locale_string": 'a `$"..."` locale-translated string',
    "prompt_expansion": "`${var@P}` expands a prompt string, which can run commands",
    "heredoc_ambiguous": "a here-doc whose end the shell and the analyser may see differently",
    "array_value": "an array assignment",
    "glob_command": "a command name with wildcards, only known once the shell expands it",
    "word_split": "two words written together that the shell joins into one (the analyser reads them apart)",
}


def parse(source: str) -> ParsedScript:
    """Parse one command line (never raises for bad shell syntax: problems are recorded)."""
    data = source.encode("utf-8", "surrogatepass")
    tree = _parser().parse(data)
    walker = _Walker(source, data)
    root = tree.root_node
    walker.sequence(root.children, frozenset(), (), False)
    if _mislabelled_token(root, data):
        walker.problem("word_split")
    if root.has_error:
        walker.problem("parse_error")
        if _has_missing(root):
            walker.problem("incomplete_command")
    return walker.result(root.has_error)


def _mislabelled_token(root: Node, data: bytes) -> bool:
    """Whether tree-sitter gave some token a type that is not its text (`-<<` read as `<<`, `$$` as `$`).

    Such a token means tree-sitter folded part of a word into it; what bash reads differs.
    """
    cursor = root.walk()
    while True:
        node = cursor.node
        if (
            node is not None
            and not node.is_named
            and node.end_byte > node.start_byte
            and data[node.start_byte : node.end_byte] != node.type.encode()
        ):
            return True
        if cursor.goto_first_child() or cursor.goto_next_sibling():
            continue
        while True:
            if not cursor.goto_parent():
                return False
            if cursor.goto_next_sibling():
                break


def _has_missing(node: Node) -> bool:
    if node.is_missing:
        return True
    return any(_has_missing(child) for child in node.children if child.has_error or child.is_missing)


STATEMENTS = frozenset(
    {
        "command",
        "redirected_statement",
        "list",
        "pipeline",
        "subshell",
        "compound_statement",
        "negated_command",
        "if_statement",
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "case_statement",
        "function_definition",
        "variable_assignment",
        "variable_assignments",
        "declaration_command",
        "unset_command",
        "test_command",
    }
)
WORDS = frozenset(
    {
        "word",
        "number",
        "string",
        "raw_string",
        "ansi_c_string",
        "translated_string",
        "concatenation",
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "arithmetic_expansion",
        "brace_expression",
        "extglob_pattern",
        "regex",
        "test_operator",
        "variable_name",
        "special_variable_name",
        "array",
    }
)
REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
CLAUSES = frozenset({"do_group", "elif_clause", "else_clause", "case_item"})
OPERATORS = frozenset({"&&", "||", ";", "&", "|", "|&", ";;", ";&", ";;&", "\n"})
WRITE_OPERATORS = frozenset({">", ">>", "&>", "&>>", ">|"})

_ANSI_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def decode_ansi_c(body: str) -> str:
    """The value of `$'body'` (escapes as bash reads them)."""
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        char = body[i]
        if char != "\\" or i + 1 >= n:
            out.append(char)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _ANSI_SIMPLE:
            out.append(_ANSI_SIMPLE[nxt])
            i += 2
        elif nxt in "01234567":
            j = i + 1
            while j < n and j < i + 4 and body[j] in "01234567":
                j += 1
            out.append(chr(int(body[i + 1 : j], 8) & 0xFF))
            i = j
        elif nxt in "xuU":
            limit = {"x": 2, "u": 4, "U": 8}[nxt]
            j = i + 2
            while j < n and j < i + 2 + limit and body[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i + 2:
                out.append("\\" + nxt)
            else:
                code = int(body[i + 2 : j], 16)
                out.append(chr(code) if code <= 0x10FFFF else "\ufffd")
            i = j
        elif nxt == "c" and i + 2 < n:
            out.append(chr(ord(body[i + 2]) & 0x1F))
            i += 3
        else:
            out.append("\\" + nxt)
            i += 2
    return "".join(out)


@dataclass
class _Cmd:
    argv: list[Word] = field(default_factory=list)
    assignments: list[Assignment] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    contexts: frozenset[str] = frozenset()
    text: str = ""
    kind: CommandKind = "command"
    after: str = ""
    piped_input: bool = False
    problems: list[str] = field(default_factory=list)

    def freeze(self) -> SimpleCommand:
        return SimpleCommand(
            tuple(self.argv),
            tuple(self.assignments),
            tuple(self.redirects),
            self.contexts,
            self.text,
            self.kind,
            self.after,
            self.piped_input,
            tuple(dict.fromkeys(self.problems)),
        )


class _Piece:
    """A word being assembled from its parts."""

    __slots__ = ("ansi_c", "mask", "problems", "substitution", "text", "unresolved", "variables")

    def __init__(self) -> None:
        self.text: list[str] = []
        self.mask: list[str] = []
        self.unresolved = False
        self.ansi_c = False
        self.substitution = False
        self.variables: list[str] = []
        self.problems: list[str] = []

    def add(self, text: str, mask: str) -> None:
        self.text.append(text)
        self.mask.append(mask * len(text) if len(mask) == 1 else mask)


class _Walker:
    def __init__(self, source: str, data: bytes) -> None:
        self.source = source
        self.data = data
        self.ascii = len(data) == len(source)
        self._char_index: list[int] | None = None
        self._char_extras: list[int] = []
        self.commands: list[_Cmd] = []
        self.problems: list[str] = []
        self.comments: list[str] = []
        self.functions: list[str] = []
        self.quoted_spans: list[tuple[int, int]] = []
        self.comment_spans: list[tuple[int, int]] = []
        self.word_spans: list[tuple[int, int]] = []

    # ------------------------------------------------------------------ helpers

    def text(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def char(self, byte_offset: int) -> int:
        """The character offset of a byte offset (they differ after non-ASCII characters)."""
        if self.ascii:
            return byte_offset
        if self._char_index is None:
            # byte offsets where each non-ASCII character ends, and the extra bytes used so far
            ends: list[int] = []
            extras: list[int] = []
            extra = 0
            for match in _NON_ASCII.finditer(self.source):
                size = len(match.group().encode("utf-8", "surrogatepass"))
                extra += size - 1
                ends.append(match.start() + extra + 1)
                extras.append(extra)
            self._char_index = ends
            self._char_extras = extras
        count = bisect.bisect_right(self._char_index, byte_offset)
        return byte_offset - (self._char_extras[count - 1] if count else 0)

    def span(self, node: Node) -> tuple[int, int]:
        return (self.char(node.start_byte), self.char(node.end_byte))

    def problem(self, problem_id: str) -> None:
        self.problems.append(problem_id)

    def result(self, has_error: bool) -> ParsedScript:
        problems = tuple(Reason(p, PROBLEM_MESSAGES.get(p, p)) for p in dict.fromkeys(self.problems))
        return ParsedScript(
            self.source,
            tuple(c.freeze() for c in self.commands),
            problems,
            tuple(self.comments),
            tuple(self.functions),
            tuple(self.quoted_spans),
            tuple(self.comment_spans),
            has_error,
            tuple(self.word_spans),
        )

    # ------------------------------------------------------------------ statements

    def sequence(
        self,
        children: Iterable[Node],
        ctx: frozenset[str],
        inherited: tuple[Redirect, ...],
        piped: bool,
        *,
        every: bool = False,
    ) -> _Cmd | None:
        """Statements separated by operators; sets each one's `after` operator and piping.

        `piped` says the first statement reads a pipe (`every`: all of them, for a piped group).
        Returns the last top-level command, the one the next operator follows.
        """
        last: _Cmd | None = None
        pending_pipe = piped
        for child in children:
            if child.is_named:
                if child.type == "comment":
                    self.comment(child)
                    continue
                tail = self.statement(child, ctx, inherited, pending_pipe)
                pending_pipe = piped and every
                if tail is not None:
                    last = tail
            elif child.type in OPERATORS:
                if last is not None and not last.after:
                    last.after = child.type
                if child.type in ("|", "|&"):
                    pending_pipe = True
            # other anonymous tokens are brackets and keywords
        return last

    def comment(self, node: Node) -> None:
        self.comments.append(self.text(node))
        self.comment_spans.append(self.span(node))

    def statement(self, node: Node, ctx: frozenset[str], inherited: tuple[Redirect, ...], piped: bool) -> _Cmd | None:
        """Walk one statement; returns its last top-level command (None when it runs nothing now)."""
        kind = node.type
        if kind == "command":
            return self.command(node, ctx, inherited, piped)
        if kind == "redirected_statement":
            return self.redirected(node, ctx, inherited, piped)
        if kind in ("list", "program"):
            return self.sequence(node.children, ctx, inherited, piped)
        if kind == "pipeline":
            return self.sequence(node.children, ctx | {"pipeline"}, inherited, piped)
        if kind == "subshell":
            return self.sequence(node.children, ctx | {"subshell"}, inherited, piped, every=True)
        if kind == "negated_command":
            return self.sequence(node.children, ctx | {"negated"}, inherited, piped, every=True)
        if kind == "compound_statement":
            if node.child_count and node.children[0].type == "((":
                return self.arithmetic_command(node, ctx, inherited)
            if not any(child.is_named for child in node.children):
                self.problem("parse_error")  # bash reads `{}` as a command named `{}`, not an empty group
            return self.sequence(node.children, ctx | {"group"}, inherited, piped, every=True)
        if kind in ("if_statement", "case_statement"):
            return self.block(node, ctx | {"conditional"}, inherited, piped)
        if kind in ("while_statement", "for_statement"):
            return self.block(node, ctx | {"loop"}, inherited, piped)
        if kind == "c_style_for_statement":
            self.problem("arithmetic")
            return self.block(node, ctx | {"loop"}, inherited, piped)
        if kind == "function_definition":
            self.function(node, ctx, inherited)
            return None
        if kind in ("variable_assignment", "variable_assignments"):
            return self.bare_assignments(node, ctx, inherited)
        if kind == "declaration_command":
            return self.declaration(node, ctx, inherited, piped)
        if kind == "unset_command":
            return self.declaration(node, ctx, inherited, piped, kind="unset")
        if kind == "test_command":
            return self.test(node, ctx, inherited, piped)
        if kind == "comment":
            self.comment(node)
            return None
        self.problem("parse_error" if kind == "ERROR" else "unknown_syntax")
        self.recover(node, ctx)
        return None

    def recover(self, node: Node, ctx: frozenset[str]) -> None:
        """Inside something unreadable: still find every command, so deny rules can see them."""
        for child in node.children:
            if child.type in STATEMENTS:
                self.statement(child, ctx, (), False)
            elif child.type in WORDS:
                self.word(child, ctx)
            elif child.type in REDIRECTS:
                self.redirect(child, ctx)
            elif child.type == "comment":
                self.comment(child)
            elif child.is_named:
                self.recover(child, ctx)

    def block(self, node: Node, ctx: frozenset[str], inherited: tuple[Redirect, ...], piped: bool) -> _Cmd | None:
        """Loops and conditionals: statements, the words they test or loop over, nested clauses.

        When the block reads a pipe, any command in it may read it.
        """
        last: _Cmd | None = None
        for child in node.children:
            if child.type in STATEMENTS:
                tail = self.statement(child, ctx, inherited, piped)
                last = tail if tail is not None else last
            elif child.type in CLAUSES:
                tail = self.block(child, ctx, inherited, piped)
                last = tail if tail is not None else last
            elif child.type in WORDS:
                self.word(child, ctx)  # loop values, case subjects and patterns: data, but may hide $(...)
            elif child.type == "comment":
                self.comment(child)
            elif child.type == "ERROR":
                self.problem("parse_error")
                self.recover(child, ctx)
            elif child.type in REDIRECTS:
                self.redirect(child, ctx)
            elif not child.is_named:
                if child.type in OPERATORS and last is not None and not last.after:
                    last.after = child.type
            elif child.type in ("binary_expression", "unary_expression", "postfix_expression", "ternary_expression"):
                self.harvest(child, ctx)
            else:
                self.problem("unknown_syntax")
                self.recover(child, ctx)
        return last

    def function(self, node: Node, ctx: frozenset[str], inherited: tuple[Redirect, ...]) -> None:
        name = node.child_by_field_name("name")
        if name is not None:
            self.functions.append(self.text(name))
        for child in node.children:
            if child.type in STATEMENTS:
                self.statement(child, ctx | {"function"}, inherited, False)
            elif child.type in REDIRECTS:
                self.hung(self.redirect(child, ctx)[1], ctx, None)

    def arithmetic_command(self, node: Node, ctx: frozenset[str], inherited: tuple[Redirect, ...]) -> _Cmd:
        self.problem("arithmetic")
        cmd = _Cmd(
            argv=[Word(self.text(node), self.text(node), "x" * len(self.text(node)), resolved=False)],
            contexts=ctx,
            text=self.text(node),
            kind="arithmetic",
            redirects=list(inherited),
            problems=["arithmetic"],
        )
        self.commands.append(cmd)
        self.harvest(node, ctx)
        return cmd

    def redirected(self, node: Node, ctx: frozenset[str], inherited: tuple[Redirect, ...], piped: bool) -> _Cmd | None:
        body: Node | None = None
        redirects: list[Redirect] = []
        nested: list[Node] = []
        for child in node.children:
            if child.type in REDIRECTS:
                more, inner = self.redirect(child, ctx)
                redirects.extend(more)
                nested.extend(inner)
            elif body is None and child.is_named and child.type != "comment":
                body = child
            elif child.type == "comment":
                self.comment(child)
            elif child.is_named:
                self.problem("unknown_syntax")
                self.recover(child, ctx)
        if body is not None:
            tail = self.statement(body, ctx, (*inherited, *redirects), piped)
        else:  # `> file` alone still creates or truncates the file
            tail = _Cmd(contexts=ctx, text=self.text(node), redirects=[*inherited, *redirects], piped_input=piped)
            self.commands.append(tail)
        return self.hung(nested, ctx, tail)

    def hung(self, nodes: Iterable[Node], ctx: frozenset[str], owner: _Cmd | None) -> _Cmd | None:
        """Statements tree-sitter hung below a here-doc (`cat <<EOF | grep x && rm y`), after `owner`.

        They come as operator tokens and statements, or as a pipeline or list starting with an operator.
        """
        tail = owner
        pending_pipe = False
        for node in nodes:
            children = node.children
            if not node.is_named:
                if node.type in OPERATORS:
                    if tail is not None and not tail.after:
                        tail.after = node.type
                    pending_pipe = node.type in ("|", "|&")
                continue
            if node.type in ("pipeline", "list") and children and not children[0].is_named:
                tail = self.hung(children[:1], ctx, tail)
                context = ctx | {"pipeline"} if node.type == "pipeline" else ctx
                last = self.sequence(children[1:], context, (), children[0].type in ("|", "|&"))
            else:
                last = self.statement(node, ctx | ({"pipeline"} if pending_pipe else set()), (), pending_pipe)
            pending_pipe = False
            tail = last if last is not None else tail
        return tail

    # ------------------------------------------------------------------ simple commands

    def command(self, node: Node, ctx: frozenset[str], inherited: tuple[Redirect, ...], piped: bool) -> _Cmd:
        cmd = _Cmd(contexts=ctx, text=self.text(node), redirects=list(inherited), piped_input=piped)
        self.commands.append(cmd)  # appended first: substitutions in its words come after it
        nested: list[Node] = []
        children = node.children
        previous_word_end = -1
        for index, child in enumerate(children):
            kind = child.type
            if kind in WORDS or kind == "command_name" or (not child.is_named and kind not in OPERATORS):
                if child.start_byte == previous_word_end:
                    # `-""\o`, `<<<'a'\b`: bash reads one word, tree-sitter two; never trust such a split
                    cmd.problems.append("word_split")
                    self.problem("word_split")
                previous_word_end = child.end_byte
            elif kind in REDIRECTS:
                previous_word_end = child.end_byte
            if kind == "variable_assignment" and not cmd.argv:
                cmd.assignments.append(self.assignment(child, ctx))
            elif kind == "command_name":
                for part in child.children:
                    if part.is_named:
                        cmd.argv.append(self.word(part, ctx))
            elif kind in REDIRECTS:
                more, inner = self.redirect(child, ctx)
                cmd.redirects.extend(more)
                nested.extend(inner)
            elif kind in WORDS:
                cmd.argv.append(self.word(child, ctx))
            elif kind == "comment":
                self.comment(child)
            elif not child.is_named:
                token = self.text(child)
                if "$" in token and (token != "$" or index + 1 < len(children)):
                    cmd.problems.append("unresolved_expansion")
                    self.problem("unresolved_expansion")
                cmd.argv.append(Word(token, token, "u" * len(token)))
            else:
                self.problem("parse_error" if kind == "ERROR" else "unknown_syntax")
                cmd.problems.append("parse_error" if kind == "ERROR" else "unknown_syntax")
                if kind in STATEMENTS:
                    self.statement(child, ctx | {"subshell"}, (), False)
                else:
                    self.recover(child, ctx)
        if not cmd.argv:
            cmd.problems.append("incomplete_command")
        elif cmd.argv[0].glob or (cmd.argv[0].tilde and not cmd.argv[0].text.startswith("~/")):
            cmd.problems.append("glob_command")  # `/???/r? -rf x`: the name is only known after expansion
            self.problem("glob_command")
        return self.hung(nested, ctx, cmd) or cmd

    def declaration(
        self,
        node: Node,
        ctx: frozenset[str],
        inherited: tuple[Redirect, ...],
        piped: bool,
        kind: CommandKind = "declaration",
    ) -> _Cmd:
        cmd = _Cmd(contexts=ctx, text=self.text(node), redirects=list(inherited), kind=kind, piped_input=piped)
        self.commands.append(cmd)
        tail = cmd
        previous_end = -1
        for child in node.children:
            if child.start_byte == previous_end and child.is_named and previous_end != -1:
                cmd.problems.append("word_split")
                self.problem("word_split")
            previous_end = child.end_byte
            if not child.is_named:
                text = self.text(child)
                cmd.argv.append(Word(text, text, "u" * len(text)))
            elif child.type == "variable_assignment":
                assignment = self.assignment(child, ctx)
                cmd.assignments.append(assignment)
                cmd.argv.append(_assignment_word(assignment))
            elif child.type in WORDS:
                cmd.argv.append(self.word(child, ctx))
            elif child.type in REDIRECTS:
                more, inner = self.redirect(child, ctx)
                cmd.redirects.extend(more)
                tail = self.hung(inner, ctx, tail) or tail
            else:
                cmd.problems.append("unknown_syntax")
                self.recover(child, ctx)
        return tail

    def bare_assignments(self, node: Node, ctx: frozenset[str], inherited: tuple[Redirect, ...]) -> _Cmd:
        cmd = _Cmd(contexts=ctx, text=self.text(node), redirects=list(inherited), kind="assignment")
        self.commands.append(cmd)
        targets = node.children if node.type == "variable_assignments" else [node]
        for child in targets:
            if child.type == "variable_assignment":
                cmd.assignments.append(self.assignment(child, ctx))
        return cmd

    def assignment(self, node: Node, ctx: frozenset[str]) -> Assignment:
        name = ""
        value: Word | None = None
        for child in node.children:
            if child.type in ("variable_name", "subscript") and not name:
                name = self.text(child)
                if child.type == "subscript":
                    self.harvest(child, ctx)
            elif child.is_named:
                value = self.word(child, ctx)
        if value is None and self.text(node).endswith("="):
            value = Word("", "", "")
        return Assignment(name, value, self.text(node))

    def test(self, node: Node, ctx: frozenset[str], inherited: tuple[Redirect, ...], piped: bool) -> _Cmd:
        cmd = _Cmd(contexts=ctx, text=self.text(node), redirects=list(inherited), kind="test", piped_input=piped)
        self.commands.append(cmd)

        def flatten(current: Node) -> None:
            for child in current.children:
                if child.type in WORDS:
                    cmd.argv.append(self.word(child, ctx))
                elif child.is_named and child.type in (
                    "binary_expression",
                    "unary_expression",
                    "parenthesized_expression",
                    "negated_expression",
                    "ternary_expression",
                    "postfix_expression",
                ):
                    flatten(child)
                elif not child.is_named:
                    text = self.text(child)
                    cmd.argv.append(Word(text, text, "u" * len(text)))
                else:
                    cmd.problems.append("unknown_syntax")
                    self.recover(child, ctx)

        flatten(node)
        return cmd

    # ------------------------------------------------------------------ redirections

    def redirect(self, node: Node, ctx: frozenset[str]) -> tuple[list[Redirect], list[Node]]:
        """The redirections a redirect node stands for, and statements tree-sitter hung below it."""
        kind = node.type
        if kind == "file_redirect":
            return [self.file_redirect(node, ctx)], []
        if kind == "herestring_redirect":
            if any(not c.is_named and self.text(c) != c.type for c in node.children):
                self.problem("word_split")
            value = next((self.word(c, ctx) for c in node.children if c.type in WORDS), None)
            return [Redirect("<<<", "herestring", None, value)], []
        return self.heredoc(node, ctx)

    def file_redirect(self, node: Node, ctx: frozenset[str]) -> Redirect:
        fd: int | None = None
        operator = ""
        target: Word | None = None
        for child in node.children:
            if child.type == "file_descriptor":
                text = self.text(child)
                fd = int(text) if text.isdigit() else None
            elif not child.is_named:
                operator += child.type
                if self.text(child) != child.type:
                    self.problem("word_split")
            elif child.type in WORDS:
                if target is None:
                    target = self.word(child, ctx)
                else:
                    self.problem("parse_error")
            else:
                self.problem("parse_error")
                self.recover(child, ctx)
        redirect_kind: RedirectKind
        if operator in (">&-", "<&-"):
            redirect_kind = "close"
        elif operator in (">&", "<&") and target is not None and (target.text.isdigit() or target.text == "-"):
            redirect_kind = "close" if target.text == "-" else "dup"
        elif operator in WRITE_OPERATORS or operator == ">&":
            redirect_kind = "write"
        elif operator in ("<", "<&"):
            redirect_kind = "read"
        else:
            self.problem("parse_error")
            redirect_kind = "write"
        return Redirect(operator, redirect_kind, fd, target)

    def heredoc(self, node: Node, ctx: frozenset[str]) -> tuple[list[Redirect], list[Node]]:
        operator = "<<"
        delimiter = ""
        quoted = False
        body = ""
        nested: list[Node] = []
        extra: list[Redirect] = []
        end_node: Node | None = None
        for child in node.children:
            kind = child.type
            if not child.is_named and self.text(child) != kind:
                self.problem("word_split")  # `-<<`: tree-sitter folded a word into the operator
            if kind in ("<<", "<<-"):
                operator = kind
            elif kind == "heredoc_start":
                raw = self.text(child)
                quoted = any(q in raw for q in "'\"\\")
                delimiter = raw.replace("'", "").replace('"', "").replace("\\", "")
            elif kind == "heredoc_body":
                body = self.text(child)
                self.quoted_spans.append(self.span(child))
                if not quoted:
                    self.harvest(child, ctx, in_heredoc=True)
            elif kind == "heredoc_end":
                end_node = child
            elif kind in REDIRECTS:
                # `cat <<EOF > out`: tree-sitter nests the other redirections below the here-doc
                more, inner = self.redirect(child, ctx)
                extra.extend(more)
                nested.extend(inner)
            elif kind in STATEMENTS or kind in OPERATORS:
                nested.append(child)
            elif kind == "comment":
                self.comment(child)
            elif child.is_named:
                self.problem("parse_error")
                self.recover(child, ctx)
        if operator == "<<-":
            body = "\n".join(line.lstrip("\t") for line in body.split("\n"))
        if not self.heredoc_end_is_exact(end_node, delimiter, operator) or _ends_early(body, delimiter):
            self.problem("heredoc_ambiguous")
        return [Redirect(operator, "heredoc", None, None, body, quoted), *extra], nested

    def heredoc_end_is_exact(self, end_node: Node | None, delimiter: str, operator: str) -> bool:
        if end_node is None:
            return False
        line_start = self.data.rfind(b"\n", 0, end_node.start_byte) + 1
        line_end = self.data.find(b"\n", end_node.start_byte)
        if line_end == -1:
            line_end = len(self.data)
        line = self.data[line_start:line_end].decode("utf-8", "replace")
        if operator == "<<-":
            line = line.lstrip("\t")
        if line == delimiter:
            return True
        # inside `$(...)` bash also ends the here-doc at a line `EOF)`
        return line.startswith(delimiter) and line[len(delimiter) :].lstrip(" \t").startswith(")")

    # ------------------------------------------------------------------ words

    def harvest(self, node: Node, ctx: frozenset[str], in_heredoc: bool = False) -> None:
        """Find the commands hidden anywhere below `node` (substitutions inside expansions...)."""
        for child in node.children:
            kind = child.type
            if kind == "command_substitution":
                self.substitution(child, ctx)
            elif kind == "process_substitution":
                self.process_substitution(child, ctx)
            elif kind == "arithmetic_expansion":
                self.problem("arithmetic")
                self.harvest(child, ctx, in_heredoc)
            elif kind == "expansion":
                if self.prompt_expansion(child):
                    self.problem("prompt_expansion")
                self.harvest(child, ctx, in_heredoc)
            elif kind in STATEMENTS and not in_heredoc:
                self.statement(child, ctx, (), False)
            elif child.child_count:
                self.harvest(child, ctx, in_heredoc)

    def process_substitution(self, node: Node, ctx: frozenset[str]) -> None:
        """`<(cmd)` and `>(cmd)`; the commands of `>(cmd)` read what is written to it."""
        writes_into = bool(node.children) and node.children[0].type == ">("
        self.sequence(node.children, ctx | {"process_substitution"}, (), writes_into, every=writes_into)

    def substitution(self, node: Node, ctx: frozenset[str]) -> None:
        self.sequence(node.children, ctx | {"command_substitution"}, (), False)

    def prompt_expansion(self, node: Node) -> bool:
        """`${var@P}`: the value is expanded like a prompt string, running any `$(...)` in it."""
        children = node.children
        return any(
            child.type == "@" and index + 1 < len(children) and self.text(children[index + 1]) == "P"
            for index, child in enumerate(children)
        )

    def literal_heredoc(self, node: Node) -> str | None:
        """The value of `$(cat <<'EOF' ... EOF)`, or None when `node` is any other substitution."""
        named = [c for c in node.children if c.is_named]
        if len(named) != 1 or named[0].type != "redirected_statement":
            return None
        statement = named[0]
        parts = [c for c in statement.children if c.is_named]
        if len(parts) != 2 or parts[0].type != "command" or parts[1].type != "heredoc_redirect":
            return None
        command_parts = [c for c in parts[0].children if c.is_named]
        if len(command_parts) != 1 or self.text(command_parts[0]) != "cat":
            return None
        heredoc = parts[1]
        kinds = [c.type for c in heredoc.children]
        if kinds not in (
            ["<<", "heredoc_start", "heredoc_body", "heredoc_end"],
            ["<<-", "heredoc_start", "heredoc_body", "heredoc_end"],
        ):
            return None
        start = self.text(heredoc.children[1])
        if not any(q in start for q in "'\"\\"):
            return None
        delimiter = start.replace("'", "").replace('"', "").replace("\\", "")
        body = self.text(heredoc.children[2])
        if kinds[0] == "<<-":
            body = "\n".join(line.lstrip("\t") for line in body.split("\n"))
        if _ends_early(body, delimiter) or not self.heredoc_end_is_exact(heredoc.children[3], delimiter, kinds[0]):
            self.problem("heredoc_ambiguous")
            return None
        self.quoted_spans.append(self.span(heredoc.children[2]))
        return body.rstrip("\n")

    def word(self, node: Node, ctx: frozenset[str]) -> Word:
        self.word_spans.append(self.span(node))
        piece = _Piece()
        self.piece(node, ctx, piece, quoted=False)
        text = "".join(piece.text)
        mask = "".join(piece.mask)
        for problem_id in piece.problems:
            self.problem(problem_id)
        raw = self.text(node)
        resolved = not piece.unresolved
        if resolved and _has_brace_expansion(text, mask):
            piece.problems.append("brace_expansion")
            self.problem("brace_expansion")
            resolved = False
        return Word(
            text,
            raw,
            mask,
            resolved,
            piece.ansi_c,
            piece.substitution,
            tuple(piece.variables),
            tuple(dict.fromkeys(piece.problems)),
        )

    def unresolved(self, piece: _Piece, node: Node) -> None:
        text = self.text(node)
        piece.add(text, "x")
        piece.unresolved = True

    def piece(self, node: Node, ctx: frozenset[str], piece: _Piece, quoted: bool) -> None:
        kind = node.type
        if kind in ("word", "number", "extglob_pattern", "regex", "test_operator", "variable_name"):
            if quoted:
                piece.add(self.text(node), "q")
            else:
                self.unquoted(self.text(node), piece)
        elif kind == "raw_string":
            self.quoted_spans.append(self.span(node))
            piece.add(self.text(node)[1:-1], "q")
        elif kind == "ansi_c_string":
            self.quoted_spans.append(self.span(node))
            piece.ansi_c = True
            piece.add(decode_ansi_c(self.text(node)[2:-1]), "q")
        elif kind in ("string", "translated_string"):
            if kind == "translated_string":
                piece.problems.append("locale_string")
            self.quoted_spans.append(self.span(node))
            self.double_quoted(node, ctx, piece)
        elif kind == "concatenation":
            children = node.children
            for index, child in enumerate(children):
                if child.type == "$":  # tree-sitter also names `$$` and `-$` this way
                    token = self.text(child)
                    if token != "$" or index + 1 < len(children):
                        piece.problems.append("unresolved_expansion")
                        piece.unresolved = True
                    piece.add(token, "u")
                elif child.is_named:
                    self.piece(child, ctx, piece, quoted)
                else:
                    token = self.text(child)
                    if any(c in token for c in "`$()<>|&;"):  # e.g. an empty `` substitution
                        piece.problems.append("unresolved_expansion")
                        piece.unresolved = True
                    piece.add(token, "u")
        elif kind in ("simple_expansion", "expansion"):
            name = next(
                (self.text(c) for c in node.children if c.type in ("variable_name", "special_variable_name")), ""
            )
            if name:
                piece.variables.append(name)
            if kind == "expansion":
                if self.prompt_expansion(node):
                    piece.problems.append("prompt_expansion")
                self.harvest(node, ctx)
            self.unresolved(piece, node)
        elif kind == "command_substitution":
            piece.substitution = True
            literal = self.literal_heredoc(node) if quoted else None
            if literal is not None:
                piece.add(literal, "q")
            else:
                self.substitution(node, ctx)
                self.unresolved(piece, node)
        elif kind == "process_substitution":
            self.process_substitution(node, ctx)
            piece.add("/dev/fd/63", "q")
        elif kind == "arithmetic_expansion":
            piece.problems.append("arithmetic")
            self.harvest(node, ctx)
            self.unresolved(piece, node)
        elif kind == "brace_expression":
            piece.problems.append("brace_expansion")
            self.unresolved(piece, node)
        elif kind == "array":
            piece.problems.append("array_value")
            self.harvest(node, ctx)
            self.unresolved(piece, node)
        elif kind == "special_variable_name":
            self.unresolved(piece, node)
        else:
            piece.problems.append("parse_error" if kind == "ERROR" else "unknown_syntax")
            self.recover(node, ctx)
            self.unresolved(piece, node)

    def unquoted(self, raw: str, piece: _Piece) -> None:
        """An unquoted word: backslash escapes, line continuations, and a stray `$`."""
        i = 0
        n = len(raw)
        while i < n:
            char = raw[i]
            if char == "\\" and i + 1 < n:
                if raw[i + 1] == "\n":
                    i += 2
                    continue
                piece.add(raw[i + 1], "q")
                i += 2
                continue
            if (char == "$" and i + 1 < n) or char == "`":
                piece.problems.append("unresolved_expansion")
                piece.unresolved = True
            elif char in " \t\n":  # `} {`: tree-sitter made one word of what bash splits in two
                piece.problems.append("word_split")
                piece.unresolved = True
            piece.add(char, "u")
            i += 1

    def double_quoted(self, node: Node, ctx: frozenset[str], piece: _Piece) -> None:
        """The inside of "...": literal stretches with their escapes, and the expansions between them."""
        position = node.start_byte + (2 if self.text(node).startswith('$"') else 1)
        end = node.end_byte - 1
        children = [c for c in node.children if c.is_named and c.type != "string_content"]
        anonymous_dollars = [c for c in node.children if c.type == "$"]
        for child in children:
            self.double_quoted_literal(position, child.start_byte, piece)
            self.piece(child, ctx, piece, quoted=True)
            position = child.end_byte
        self.double_quoted_literal(position, max(position, end), piece)
        for dollar in anonymous_dollars:
            follower = self.data[dollar.end_byte : dollar.end_byte + 1]
            if follower not in (b'"', b" ", b"\t", b"\n", b""):
                piece.problems.append("unresolved_expansion")
                piece.unresolved = True

    def double_quoted_literal(self, start: int, end: int, piece: _Piece) -> None:
        if end <= start:
            return
        raw = self.data[start:end].decode("utf-8", "replace")
        out: list[str] = []
        i = 0
        n = len(raw)
        while i < n:
            char = raw[i]
            if char == "\\" and i + 1 < n and raw[i + 1] in '$`"\\\n':
                if raw[i + 1] != "\n":
                    out.append(raw[i + 1])
                i += 2
                continue
            if char == "`":  # a backtick tree-sitter did not read as a substitution
                piece.problems.append("parse_error")
                piece.unresolved = True
            out.append(char)
            i += 1
        piece.add("".join(out), "q")


def _assignment_word(assignment: Assignment) -> Word:
    """`NAME=value` as one word of a declaration (`export NAME=value`), its value as read."""
    value = assignment.value
    if value is None:
        return Word(assignment.raw, assignment.raw, "u" * len(assignment.raw))
    prefix = assignment.raw[: len(assignment.raw) - len(value.raw)]  # `NAME=` or `NAME+=`
    return Word(
        prefix + value.text,
        assignment.raw,
        "u" * len(prefix) + value.mask,
        value.resolved,
        value.ansi_c,
        value.substitution,
        value.variables,
        value.problems,
    )


def _ends_early(body: str, delimiter: str) -> bool:
    """Whether a line of the body could end the here-doc for some shell (so the rest would run)."""
    if not delimiter:
        return True
    return any(line.rstrip(" \t") == delimiter or line.startswith(delimiter + ")") for line in body.split("\n"))


def _has_brace_expansion(text: str, mask: str) -> bool:
    """Unquoted `{a,b}` or `{1..3}` (bash expands them into several words); erring on the side of yes."""
    if "{" not in text:
        return False
    visible = "".join(c if m == "u" else "\0" for c, m in zip(text, mask, strict=False))
    return _BRACE.search(visible) is not None


_BRACE = re.compile(r"\{.*?(?:,|\.\.).*?\}", re.DOTALL)  # the braces and comma unquoted, the rest anything
