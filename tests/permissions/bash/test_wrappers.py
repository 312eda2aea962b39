"""Wrappers: what really runs under env, timeout, xargs, sudo, bash -c, eval, find -exec..."""

from __future__ import annotations

import shlex

import pytest

from handrail.permissions.bash.effective import expand
from handrail.permissions.bash.parse import parse
from handrail.permissions.bash.wrappers import bare_runner, command_name, find_exec_commands, unwrap


def inner(source: str) -> list[str]:
    command = parse(source).commands[0]
    return [w.text for w in unwrap(command.argv).argv]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("env rm x", ["rm", "x"]),
        ("env -i -u HOME FOO=1 BAR=2 rm x", ["rm", "x"]),
        ("env -- rm x", ["rm", "x"]),
        ("nohup rm x", ["rm", "x"]),
        ("timeout 5 rm x", ["rm", "x"]),
        ("timeout -s KILL -k 2 --preserve-status 5s rm x", ["rm", "x"]),
        ("nice rm x", ["rm", "x"]),
        ("nice -n 10 rm x", ["rm", "x"]),
        ("nice -10 rm x", ["rm", "x"]),
        ("stdbuf -oL -e0 rm x", ["rm", "x"]),
        ("time -p rm x", ["rm", "x"]),
        ("command rm x", ["rm", "x"]),
        ("command -p rm x", ["rm", "x"]),
        ("builtin cd x", ["cd", "x"]),
        ("exec -a name rm x", ["rm", "x"]),
        ("xargs rm", ["rm"]),
        ("xargs -0 -n 1 -P 4 -I {} rm {}", ["rm", "{}"]),
        ("xargs", ["echo"]),
        ("sudo rm x", ["rm", "x"]),
        ("sudo -u root -E FOO=1 rm x", ["rm", "x"]),
        ("doas -u root rm x", ["rm", "x"]),
        ("timeout 5 nice -n 1 env A=1 nohup rm x", ["rm", "x"]),
        ("noglob rm *", ["rm", "*"]),
        ("setsid -f rm x", ["rm", "x"]),
        ("ionice -c 3 rm x", ["rm", "x"]),
        ("busybox rm x", ["rm", "x"]),
        ("watch -x rm x", ["rm", "x"]),
        ("flock /tmp/lock rm x", ["rm", "x"]),
        ("/usr/bin/env rm x", ["rm", "x"]),
        ("strace -f -e trace=open -o log rm x", ["rm", "x"]),
        ("chrt -r 10 rm x", ["rm", "x"]),
        ("taskset 0x3 rm x", ["rm", "x"]),
        ("unshare -r rm x", ["rm", "x"]),
        ("valgrind rm x", ["rm", "x"]),
        ("firejail --private rm x", ["rm", "x"]),
        ("chroot /srv rm x", ["rm", "x"]),
    ],
)
def test_unwrap(source: str, expected: list[str]) -> None:
    assert inner(source) == expected


@pytest.mark.parametrize(
    ("source", "origin", "script"),
    [
        ("bash -c 'rm x'", "bash -c", "rm x"),
        ("sh -ec 'rm x' name arg", "sh -c", "rm x"),
        ("zsh -o errexit -c 'rm x'", "zsh -c", "rm x"),
        ("bash -lc 'rm x'", "bash -c", "rm x"),
        ("eval rm x", "eval", "rm x"),
        ("eval 'rm' \"x\"", "eval", "rm x"),
        ("watch -n 1 rm x", "watch", "rm x"),
        ("su -c 'rm x' root", "su -c", "rm x"),
        ("script -qc 'rm x' /dev/null", "script -c", "rm x"),
        ("flock /tmp/l -c 'rm x'", "flock -c", "rm x"),
        ("env -S 'rm x'", "env -S", "rm x"),
        ("sudo -s rm x", "sudo -s", "rm x"),
        ("timeout 5 bash -c 'rm x'", "bash -c", "rm x"),
    ],
)
def test_scripts_to_parse_again(source: str, origin: str, script: str) -> None:
    result = unwrap(parse(source).commands[0].argv)
    assert [(s.origin, s.text) for s in result.scripts] == [(origin, script)]
    assert result.argv == ()


@pytest.mark.parametrize(
    "source",
    ["env", "env -i", "command -v git", "command -V ls", "nice", "time", "exec", "bash script.sh", "eval", "timeout 5"],
)
def test_not_acting_as_a_wrapper(source: str) -> None:
    result = unwrap(parse(source).commands[0].argv)
    assert not result.layers
    assert [w.text for w in result.argv] == source.split()


def test_opaque_wrappers_are_marked() -> None:
    result = unwrap(parse("timeout 5 strace -f npm test").commands[0].argv)
    assert [(layer.name, layer.opaque) for layer in result.layers] == [("timeout", False), ("strace", True)]
    assert unwrap(parse("strace -p 42").commands[0].argv).layers == ()
    assert unwrap(parse("pkexec rm x").commands[0].argv).privileged


def test_git_hands_code_to_a_shell() -> None:
    from handrail.permissions.bash.readonly.git import git_scripts

    argv = parse("git -c alias.x='!rm a' -c core.pager='less -R' fetch --upload-pack=evil o").commands[0].argv
    assert git_scripts(argv) == [
        ("git -c alias.x", "rm a"),
        ("git -c core.pager", "less -R"),
        ("git fetch --upload-pack", "evil"),
    ]
    assert git_scripts(parse("git rebase --exec 'make test' main").commands[0].argv) == [
        ("git rebase --exec", "make test")
    ]
    assert git_scripts(parse("git status").commands[0].argv) == []


def test_unwrap_records_what_it_learns() -> None:
    result = unwrap(parse("sudo env FOO=1 LANG=C timeout 5 xargs -a list.txt rm").commands[0].argv)
    assert result.privileged and result.appends_args
    assert [a.name for a in result.env] == ["FOO", "LANG"]
    assert [layer.name for layer in result.layers] == ["sudo", "env", "timeout", "xargs"]
    assert [(w.text, d) for w, d in result.paths] == [("list.txt", "read")]
    assert unwrap(parse("env -C /tmp ls").commands[0].argv).chdir[0].text == "/tmp"
    assert unwrap(parse("time -o out.txt ls").commands[0].argv).paths[0][1] == "write"


def test_shells_reading_stdin() -> None:
    assert unwrap(parse("bash").commands[0].argv).reads_stdin_script
    assert unwrap(parse("sh -s").commands[0].argv).reads_stdin_script
    assert not unwrap(parse("bash x.sh").commands[0].argv).reads_stdin_script


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("timeout --bogus 5 rm x", "wrapper_option"),
        ("env $OPTS rm x", "unresolved_wrapper"),
        ("bash --rcfile /tmp/x", "shell_startup_file"),
        ("bash -c", "incomplete_command"),
        ("env -S 'rm x'", "env_split_string"),
    ],
)
def test_wrapper_problems(source: str, problem: str) -> None:
    assert problem in unwrap(parse(source).commands[0].argv).problems


def test_only_trusted_paths_count_as_the_bare_name() -> None:
    assert command_name("/bin/rm") == "rm"
    assert command_name("/usr/local/bin/git") == "git"
    assert command_name("./rm") == "./rm"
    assert command_name("~/bin/rm") == "~/bin/rm"
    assert command_name("/tmp/evil/git") == "/tmp/evil/git"
    assert inner("./timeout 5 rm x") == ["./timeout", "5", "rm", "x"]


def test_find_exec_commands() -> None:
    argv = parse("find . -name '*.o' -exec rm {} + -o -execdir sh -c 'x' \\; -ok echo {} \\;").commands[0].argv
    found, complete = find_exec_commands(argv)
    assert complete
    assert [(origin, [w.text for w in words]) for origin, words in found] == [
        ("find -exec", ["rm", "{}"]),
        ("find -execdir", ["sh", "-c", "x"]),
        ("find -ok", ["echo", "{}"]),
    ]
    assert find_exec_commands(parse("find . -exec rm {}").commands[0].argv)[1] is False


@pytest.mark.parametrize(
    ("words", "bare"),
    [
        ("bash", True),
        ("bash -c", True),
        ("sh", True),
        ("env", True),
        ("env FOO=1", True),
        ("xargs", True),
        ("xargs -0", True),
        ("sudo", True),
        ("sudo -u root", True),
        ("timeout 10", True),
        ("nohup", True),
        ("eval", True),
        ("exec", True),
        ("command", True),
        ("source", True),
        ("timeout 10 nohup", True),
        ("timeout 10 npm", False),
        ("npm", False),
        ("git", False),
        ("bash script.sh", False),
        ("", True),
    ],
)
def test_bare_runner(words: str, bare: bool) -> None:
    assert bare_runner(words.split()) is bare


def test_expand_reaches_nested_scripts_and_find() -> None:
    expansion = expand("timeout 5 bash -c \"eval 'find . -exec rm {} +'\" && trap 'curl x' EXIT")
    names = [e.name for e in expansion.effectives if e.argv]
    assert names == ["find", "rm", "trap", "curl"]
    rm = next(e for e in expansion.effectives if e.name == "rm")
    assert rm.via == ("bash -c", "eval", "find -exec")
    assert rm.appends_args
    assert len(expansion.scripts) == 4  # the line, bash -c, eval, trap


def test_expand_feeds_heredocs_to_shells() -> None:
    expansion = expand("bash <<'EOF'\nrm -rf x\nEOF")
    assert ["rm", "-rf", "x"] in [[w.text for w in e.argv] for e in expansion.effectives]


def test_expand_stops_at_the_nesting_limit() -> None:
    command = "rm x"
    for _ in range(10):
        command = f"bash -c {shlex.quote(command)}"
    expansion = expand(command)
    assert "nesting_too_deep" in {p.id for p in expansion.problems}
    assert "rm" not in [e.name for e in expansion.effectives]
