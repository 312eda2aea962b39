"""Parsing: simple commands, quote removal, redirections, structure, and what stays unresolved."""

from __future__ import annotations

import pytest

from handrail.permissions.bash.model import SimpleCommand
from handrail.permissions.bash.parse import decode_ansi_c, parse


def argvs(source: str) -> list[list[str]]:
    return [[w.text for w in c.argv] for c in parse(source).commands]


def only(source: str) -> SimpleCommand:
    commands = parse(source).commands
    assert len(commands) == 1, commands
    return commands[0]


def problems(source: str) -> set[str]:
    return {p.id for p in parse(source).problems}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("git status", [["git", "status"]]),
        ("a; b && c || d | e |& f & g", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"], ["g"]]),
        ("a\nb\n\nc", [["a"], ["b"], ["c"]]),
        ("(a; b) && { c; }", [["a"], ["b"], ["c"]]),
        ("! a | b", [["a"], ["b"]]),
        ("if a; then b; elif c; then d; else e; fi", [["a"], ["b"], ["c"], ["d"], ["e"]]),
        ("for i in 1 2; do a; done; while b; do c; done; until d; do e; done", [["a"], ["b"], ["c"], ["d"], ["e"]]),
        ("case x in y) a;; *) b;; esac", [["a"], ["b"]]),
        ("f() { a; }; f", [["a"], ["f"]]),
        ("echo $(a; b) `c`", [["echo", "$(a; b)", "`c`"], ["a"], ["b"], ["c"]]),
        ("diff <(a) >(b)", [["diff", "/dev/fd/63", "/dev/fd/63"], ["a"], ["b"]]),
        ("cat <<EOF | grep x && rm y\nbody\nEOF", [["cat"], ["grep", "x"], ["rm", "y"]]),
        ("x=1 y=2", [[]]),
        ("export A=1 B", [["export", "A=1", "B"]]),
        ("[[ -f x && -d y ]]", [["[[", "-f", "x", "&&", "-d", "y", "]]"]]),
        ("echo hi # rm -rf /", [["echo", "hi"]]),
    ],
)
def test_simple_commands(source: str, expected: list[list[str]]) -> None:
    assert argvs(source) == expected


@pytest.mark.parametrize(
    ("source", "text", "mask"),
    [
        ("echo 'a b'", "a b", "qqq"),
        ('echo "a \\"b\\" \\$c"', 'a "b" $c', "qqqqqqqq"),
        ("echo a\\ b", "a b", "uqu"),
        ("echo $'\\x41\\n'", "A\n", "qq"),
        ("echo \"a\"b'c'", "abc", "quq"),
        ('echo -"r"f', "-rf", "uqu"),
        ('echo "$x"', "$x", "xx"),
        ('echo "^foo$"', "^foo$", "qqqqq"),
        ('echo "a\\\nb"', "ab", "qq"),
    ],
)
def test_quote_removal(source: str, text: str, mask: str) -> None:
    word = only(source).argv[1]
    assert (word.text, word.mask) == (text, mask)


def test_ansi_c_is_flagged_and_decoded() -> None:
    word = only("echo $'\\u263a\\t\\101\\cA'").argv[1]
    assert word.ansi_c
    assert word.text == "\u263a\tA\x01"
    assert decode_ansi_c("\\e[0m\\'") == "\x1b[0m'"


def test_expansions_are_unresolved_and_name_their_variables() -> None:
    command = parse('echo "$HOME" ${IFS} $1 "$(id)"').commands[0]
    assert not command.resolved
    assert [w.resolved for w in command.argv] == [True, False, False, False, False]
    assert command.argv[1].variables == ("HOME",)
    assert command.argv[2].variables == ("IFS",)


def test_literal_heredoc_in_a_commit_message_is_resolved() -> None:
    source = "git commit -m \"$(cat <<'EOF'\nFix it\n\nDetails: $HOME and `id` stay text\nEOF\n)\""
    script = parse(source)
    assert len(script.commands) == 1
    message = script.commands[0].argv[3]
    assert message.resolved
    assert message.text == "Fix it\n\nDetails: $HOME and `id` stay text"


def test_unquoted_heredoc_delimiter_is_not_a_literal() -> None:
    script = parse('git commit -m "$(cat <<EOF\nhi $(id)\nEOF\n)"')
    assert not script.commands[0].argv[3].resolved
    assert ["id"] in [[w.text for w in c.argv] for c in script.commands]


def test_redirections() -> None:
    command = only("cmd > out 2>&1 >> app &> all < in 2>/dev/null >&2 3<&0 2>&-")
    kinds = [(r.operator, r.kind, r.fd, r.target.text if r.target else None) for r in command.redirects]
    assert kinds == [
        (">", "write", None, "out"),
        (">&", "dup", 2, "1"),
        (">>", "write", None, "app"),
        ("&>", "write", None, "all"),
        ("<", "read", None, "in"),
        (">", "write", 2, "/dev/null"),
        (">&", "dup", None, "2"),
        ("<&", "dup", 3, "0"),
        (">&-", "close", 2, None),
    ]


def test_heredoc_and_herestring() -> None:
    command = only("cat <<-'E' <<< \"x\" > out\n\tbody\n\tE")
    heredoc, herestring, write = command.redirects
    assert (heredoc.kind, heredoc.heredoc_body, heredoc.heredoc_quoted) == ("heredoc", "body\n", True)
    assert herestring.kind == "herestring" and herestring.target is not None and herestring.target.text == "x"
    assert write.kind == "write"


def test_group_redirections_reach_every_command_inside() -> None:
    script = parse("{ a; b; } > out")
    assert [len(c.redirects) for c in script.commands] == [1, 1]


def test_substitution_output_is_not_redirected() -> None:
    echo, inner = parse("echo $(ls) > out").commands
    assert len(echo.redirects) == 1 and not inner.redirects
    assert "command_substitution" in inner.contexts


def test_contexts_and_list_operators() -> None:
    script = parse("a && b | c; (d) & e")
    contexts = [sorted(c.contexts) for c in script.commands]
    assert contexts == [[], ["pipeline"], ["pipeline"], ["subshell"], []]
    assert [c.after for c in script.commands] == ["&&", "|", ";", "&", ""]
    assert [c.piped_input for c in script.commands] == [False, False, True, False, False]


def test_the_operator_follows_the_command_not_its_substitutions() -> None:
    echo, inner, ls = parse("echo $(id) && ls").commands
    assert (echo.after, inner.after, ls.after) == ("&&", "", "")
    cat, grep = parse("cat <<EOF && grep x\nbody\nEOF").commands
    assert cat.after == "&&" and not grep.piped_input


def test_a_piped_group_or_loop_pipes_into_every_command() -> None:
    script = parse("curl x | (true; sh); curl y | while true; do sh; done")
    assert [c.piped_input for c in script.commands] == [False, True, True, False, True, True]


def test_leading_assignments() -> None:
    command = only("FOO=1 BAR='x y' cmd arg")
    assert [(a.name, a.value.text if a.value else None) for a in command.assignments] == [
        ("FOO", "1"),
        ("BAR", "x y"),
    ]
    assert [w.text for w in command.argv] == ["cmd", "arg"]


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("echo 'open", "parse_error"),
        ("git status &&", "incomplete_command"),
        ("echo $((1 + 2))", "arithmetic"),
        ("(( i++ ))", "arithmetic"),
        ("for ((i=0;i<2;i++)); do a; done", "arithmetic"),
        ("echo {a,b}", "brace_expansion"),
        ("echo x{1..3}", "brace_expansion"),
        ("echo ${x@P}", "prompt_expansion"),
        ('echo $"hi"', "unresolved_expansion"),
        ("cat <<EOF\nEOF \nrm x\nEOF", "heredoc_ambiguous"),
        ("/???/r? -rf x", "glob_command"),
        ("ls *(e:'x':)", "parse_error"),
        ("cat =(id)", "parse_error"),
        ('sort -""\\o out f', "word_split"),
        ("ls } {", "word_split"),
        ("cat -<<'E'\nx\nE", "word_split"),
        ("cat <<<'a'\\x41", "word_split"),
        ("echo ]$$", "unresolved_expansion"),
        ("echo :``:", "unresolved_expansion"),
        ("{}", "parse_error"),
    ],
)
def test_problems(source: str, problem: str) -> None:
    assert problem in problems(source)


@pytest.mark.parametrize("source", ["echo '{a,b}'", "find . -exec x {} \\;", "echo a,b", 'grep "^x$" f', "echo a$"])
def test_no_false_problems(source: str) -> None:
    assert problems(source) == set()


def test_commands_are_found_even_inside_parse_errors() -> None:
    script = parse("echo 'unterminated && rm -rf x")
    assert script.has_error
    script = parse("ls foo(rm x)")
    assert ["rm", "x"] in [[w.text for w in c.argv] for c in script.commands]


def test_quoted_and_comment_spans() -> None:
    source = "echo 'a' \"b\" # c"
    script = parse(source)
    quoted = [source[s:e] for s, e in script.quoted_spans]
    assert quoted == ["'a'", '"b"']
    assert [source[s:e] for s, e in script.comment_spans] == ["# c"]
    assert script.comments == ("# c",)


def test_spans_are_character_offsets_with_unicode() -> None:
    source = "echo 'é' \"ü\" x"
    script = parse(source)
    assert [source[s:e] for s, e in script.quoted_spans] == ["'é'", '"ü"']


def test_carriage_return_is_whitespace_to_tree_sitter() -> None:
    # bash keeps \r inside the word; the checks flag it (see test_checks)
    assert argvs("git status\rrm -rf /") == [["git", "status", "rm", "-rf", "/"]]
