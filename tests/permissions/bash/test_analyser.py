"""The verdict: rule semantics, read-only commands, cd tracking, reported accesses, suggestions, failing closed.

The analyser judges commands; the paths they touch it only reports (`accesses`), for the
pipeline to decide (tests/tools/test_bash_attacks.py decides them on a real file system).
"""

from __future__ import annotations

import os

import pytest

from handrail.permissions.bash import BashVerdict, analyse, analyser, suggest
from handrail.permissions.bash.effective import expand
from tests.permissions.bash.conftest import HOME, PROJECT, check


def touched(verdict: BashVerdict) -> set[tuple[str, str]]:
    """Each access as (normalised path, kind)."""
    return {(os.path.normpath(a.path), a.kind) for a in verdict.accesses}

# ---------------------------------------------------------------------------- rules


def test_every_part_must_be_covered() -> None:
    assert check("npm test && npm run lint", allow=["npm test:*"]).behavior == "ask"
    assert check("npm test && npm run lint", allow=["npm test:*", "npm run lint:*"]).behavior == "allow"


def test_deny_matches_any_part_in_any_form() -> None:
    for command in ("ls; /bin/rm x", "ls | xargs rm", "bash -c 'rm x'", "sudo -u root rm x", "\\rm x", "r''m x"):
        verdict = check(command, allow=["rm:*", "ls:*"], deny=["rm:*"])
        assert verdict.behavior == "deny", command
        assert verdict.reason_ids == ("deny_rule",)
        assert "Bash(rm:*)" in verdict.reasons[0].message


def test_deny_sees_wrapper_forms_too() -> None:
    assert check("timeout 5 npm test", allow=["npm test:*"], deny=["timeout:*"]).behavior == "deny"
    assert check("sudo ls", deny=["sudo:*"]).behavior == "deny"
    assert check("bash -c 'ls'", deny=["bash:*"]).behavior == "deny"


def test_ask_rule_on_any_part_asks() -> None:
    verdict = check("git status && git push", allow=["git push:*"], ask=["git push:*"])
    assert verdict.behavior == "ask"
    assert "ask_rule" in verdict.reason_ids


def test_prefix_rules_for_runners_are_refused() -> None:
    for rule, command in [
        ("bash:*", "bash -c 'npm publish'"),
        ("env:*", "env npm publish"),
        ("xargs:*", "xargs npm publish"),
        ("timeout 5:*", "timeout 5 npm publish"),
        ("nohup *", "nohup npm publish"),
        ("sudo:*", "sudo npm publish"),
    ]:
        assert check(command, allow=[rule]).behavior == "ask", (rule, command)


def test_rules_naming_the_inner_command_cover_it_through_wrappers() -> None:
    assert check("timeout 5 npm test", allow=["npm test:*"]).behavior == "allow"
    assert check("timeout 5 npm test", allow=["timeout 5 npm test:*"]).behavior == "allow"
    assert check("nohup npm start &", allow=["npm start"]).behavior == "allow"


def test_opaque_wrappers_need_their_own_rule() -> None:
    assert check("strace -f npm test", allow=["npm test:*"]).behavior == "ask"
    assert check("strace -f npm test", allow=["strace -f npm test:*"]).behavior == "allow"
    assert check("strace -f npm test", allow=["strace:*"]).behavior == "ask"
    assert check("strace -f npm test").subcommands == ("strace -f npm test",)


def test_deny_is_case_insensitive_for_the_command_name() -> None:
    # on a case-insensitive file system `RM` finds /bin/rm
    assert check("RM -rf x", deny=["rm:*"]).behavior == "deny"
    assert check("/BIN/RM -rf x", deny=["rm:*"]).behavior == "deny"


def test_leading_assignments() -> None:
    assert check("LANG=C LC_ALL=C npm test", allow=["npm test:*"]).behavior == "allow"
    assert check("FOO=1 npm test", allow=["npm test:*"]).behavior == "ask"
    assert check("FOO=1 npm test", allow=["FOO=1 npm test"]).behavior == "allow"
    assert check("FOO=1 npm test", allow=["FOO=1 npm test:*"]).behavior == "allow"
    assert check("TERM=$(id) npm test", allow=["npm test:*"]).behavior == "ask"


def test_appended_arguments_need_an_open_rule() -> None:
    assert check("ls | xargs wc -l", allow=["wc -l"]).behavior == "ask"
    assert check("ls | xargs wc -l", allow=["wc -l:*"]).behavior == "allow"
    assert check("find . -exec touch {} +", allow=["find:*", "touch {}"]).behavior == "ask"
    assert check("find . -exec touch {} +", allow=["find:*", "touch:*"]).behavior == "allow"


def test_exact_rules() -> None:
    assert check('git commit -m "a b"', allow=['git commit -m "a b"']).behavior == "allow"
    assert check("git commit -m 'a b'", allow=["git commit -m 'a b'"]).behavior == "allow"
    assert check("npm test && npm run x", allow=["npm test && npm run x"]).behavior == "allow"
    exact = check("cat /etc/hosts", allow=["cat /etc/hosts"])
    assert exact.behavior == "allow" and exact.accesses[0].named  # the user approved this very path
    assert not check("cat /etc/hosts", allow=["cat:*"]).accesses[0].named  # a prefix rule names no path


def test_wildcard_in_the_middle_respects_quoting() -> None:
    assert check("git push origin main --dry-run", allow=["git * --dry-run"]).behavior == "allow"
    assert check("git push 'origin main --dry-run'", allow=["git * --dry-run"]).behavior == "ask"


def test_path_qualified_commands() -> None:
    assert check("/usr/bin/git push", allow=["git push:*"]).behavior == "allow"
    assert check("/tmp/x/git push", allow=["git push:*"]).behavior == "ask"
    assert check("./git push", allow=["git push:*"]).behavior == "ask"
    assert check("./scripts/build.sh", allow=["./scripts/build.sh:*"]).behavior == "allow"


def test_too_many_subcommands_asks_but_deny_still_applies() -> None:
    many = "; ".join(["true"] * 60)
    verdict = check(many, allow=["true"])
    assert verdict.behavior == "ask"
    assert "too_many_subcommands" in verdict.reason_ids
    assert check(many + "; rm -rf x", allow=["true"], deny=["rm:*"]).behavior == "deny"
    assert check("; ".join(["true"] * 50), allow=["true"]).behavior == "allow"


# ---------------------------------------------------------------------------- read-only and paths


def test_read_only_inside_working_dirs_needs_no_rule() -> None:
    verdict = check("git status && ls -la src | grep x")
    assert verdict.behavior == "allow"
    assert verdict.read_only
    assert verdict.reasons[0].id == "allowed"


def test_every_path_a_command_touches_is_reported_not_judged() -> None:
    cases = {
        "cat /etc/passwd": ("/etc/passwd", "read"),
        "ls ..": ("/work", "read"),
        "cat ~/.ssh/id_rsa": (f"{HOME}/.ssh/id_rsa", "read"),
        "grep -r x /": ("/", "search"),
        "cat src/../../x": ("/work/x", "read"),
        "echo x > /tmp/x": ("/tmp/x", "write"),
        "echo x >> .git/config": ("/work/proj/.git/config", "write"),
        "tee .handrail/settings.json": ("/work/proj/.handrail/settings.json", "write"),
        "./run.sh": ("/work/proj/run.sh", "run"),
        "bash scripts/x.sh": ("/work/proj/scripts/x.sh", "run"),
        "git -C /etc status": ("/etc", "enter"),
    }
    for command, access in cases.items():
        verdict = check(command, allow=["./run.sh", "bash scripts/x.sh"])
        assert verdict.behavior == "allow", command  # the paths are the pipeline's to decide
        assert access in touched(verdict), command


def test_an_expansion_is_data_only_where_the_command_only_reads() -> None:
    assert check("echo $HOME").behavior == "allow"
    assert check("timeout 5 echo $HOME").behavior == "allow"
    for command in ("strace -o /tmp/x echo $HOME", "env -C /tmp echo $HOME", "cat $F", "printf $X"):
        assert check(command).behavior == "ask", command


def test_dot_dot_stays_for_the_kernel() -> None:
    # after a symlink `docs/o/..` is the link target's parent: only resolving the path can tell
    (access,) = check("cat docs/o/../x").accesses
    assert access.path == "/work/proj/docs/o/../x"


def test_recursive_readers_search_where_they_run() -> None:
    assert touched(check("grep -r KEY")) == {("/work/proj", "search")}
    assert touched(check("rg --hidden KEY")) == {("/work/proj", "search")}
    assert touched(check("git grep KEY")) == {("/work/proj", "search")}
    assert touched(check("git -C sub grep KEY")) == {("/work/proj/sub", "search"), ("/work/proj/sub", "enter")}
    assert touched(check("grep KEY a.txt")) == {("/work/proj/a.txt", "read")}
    assert touched(check("cp -r src dst")) == {("/work/proj/src", "search"), ("/work/proj/dst", "write")}
    follows = {(a.path, a.follows_links) for a in check("grep -R KEY docs; rg -L x; find -L .; rg x").accesses}
    assert follows == {
        ("/work/proj/docs", True), ("/work/proj/.", True), ("/work/proj/.", False),
    }  # fmt: skip


def test_reported_paths_are_absolute() -> None:
    verdict = check("cat a.txt ~/b.txt; rm -f build/x", allow=["rm:*"])
    assert {("/work/proj/a.txt", "read"), (f"{HOME}/b.txt", "read"), ("/work/proj/build/x", "write")} <= touched(
        verdict
    )


def test_redirect_targets() -> None:
    verdict = check("npm test > out/log.txt 2>&1 < input.txt", allow=["npm test:*"])
    assert verdict.behavior == "allow"
    assert touched(verdict) == {
        ("/work/proj/out/log.txt", "write"),
        ("/work/proj/input.txt", "read"),
        ("/work/proj/test", "mention"),  # a word given to a program handrail does not know: it may name a file
    }
    assert not verdict.read_only
    assert check("ls > /dev/null 2>&1").accesses == ()
    assert "redirect_unresolved" in check("echo x > $F", allow=["echo:*"]).reason_ids


def test_a_write_makes_a_covered_command_not_read_only() -> None:
    verdict = check("echo hi > notes.txt")  # echo only reads: the write is the pipeline's to decide, as Edit
    assert verdict.behavior == "allow" and not verdict.read_only
    assert touched(verdict) == {("/work/proj/notes.txt", "write")}
    for command in ("mkdir -p build/x", "touch a b", "cp a b", "mv a b", "tee log"):
        assert check(command).behavior == "allow", command  # plain file operations: only their writes matter
    assert check("ls | xargs mkdir").behavior == "ask"  # which folders is not known


# ---------------------------------------------------------------------------- cd


def test_cd_into_a_working_dir_then_commands_are_judged_there() -> None:
    verdict = check("cd src && cat main.py")
    assert verdict.behavior == "allow"
    assert touched(verdict) == {("/work/proj/src", "enter"), ("/work/proj/src/main.py", "read")}
    assert verdict.changes_cwd


def test_where_cd_lands() -> None:
    for command, landing in [("cd /tmp && ls", "/tmp"), ("cd && ls", str(HOME)), ("cd .. && ls", "/work")]:
        assert (landing, "enter") in touched(check(command)), command
    for command in ("cd - && ls", "cd $X && ls", "pushd", "cd a b"):
        verdict = check(command)
        assert verdict.behavior == "ask", command
        assert "cd_outside" in verdict.reason_ids


def test_cd_that_may_fail_keeps_both_directories() -> None:
    # `cd src; cat ../x`: if cd fails the cat runs in the root, if not in src: both are reported
    assert {("/work/proj/x", "read"), ("/work/x", "read")} <= touched(check("cd src; cat ../x"))
    assert ("/work/x", "read") not in touched(check("cd src && cat ../x"))


def test_cd_inside_a_nested_shell_still_counts() -> None:
    assert ("/etc/passwd", "read") in touched(check("bash -c 'cd /etc && cat passwd'"))
    assert touched(check("(cd src && ls)")) == {("/work/proj/src", "enter")}


def test_functions_defined_on_the_line() -> None:
    assert check("f() { ls; }; f").behavior == "allow"
    assert ("/", "enter") in touched(check("f() { cd /; }; f"))
    assert touched(check("f() { cat x; }; cd src && f")) >= {("/work/proj/x", "read"), ("/work/proj/src/x", "read")}
    assert check("f() { npm publish; }; f").behavior == "ask"
    assert check("timeout 5 f", allow=["npm test:*"]).behavior == "ask"  # timeout runs a program, not the function


def test_cd_with_a_relative_working_dir_cwd() -> None:
    verdict = analyse("cd lib && ls", cwd=PROJECT / "src")
    assert verdict.behavior == "allow" and touched(verdict) == {("/work/proj/src/lib", "enter")}


def test_git_commands_report_where_they_look_for_a_repository() -> None:
    uses = {(os.path.normpath(u.start), u.git_dir, u.subcommand) for u in check("git -C packages/api status").git}
    assert uses == {("/work/proj/packages/api", None, "status")}
    uses = {(os.path.normpath(u.start), u.subcommand) for u in check("cd packages/api && git log -1").git}
    assert uses == {("/work/proj/packages/api", "log")}
    (use,) = check("git --git-dir=/tmp/r log", allow=["git log:*"]).git
    assert use.git_dir == "/tmp/r"
    assert {u.subcommand for u in check("echo $(git rev-parse HEAD); timeout 5 git st").git} == {"rev-parse", "st"}
    assert "git_repository_unknown" in check("find . -execdir git status \\;", allow=["find:*"]).reason_ids
    assert "git_repository_unknown" in check("ls -d */ | xargs -I{} git -C {} status", allow=["git:*"]).reason_ids


# ---------------------------------------------------------------------------- suggestions and facts


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("npm run build", ("Bash(npm run build:*)",)),
        ("npm install lodash", ("Bash(npm install:*)",)),
        ("cargo test --release", ("Bash(cargo test:*)",)),
        ("git push origin main", ("Bash(git push:*)",)),
        ("gh pr list", ("Bash(gh pr list:*)",)),
        ("docker compose up -d", ("Bash(docker compose up:*)",)),
        ("python3 -m pytest -x", ("Bash(python3 -m pytest:*)",)),
        ("python3 manage.py migrate", ("Bash(python3 manage.py:*)",)),
        ("curl https://example.com", ("Bash(curl:*)",)),
        ("make", ("Bash(make)",)),  # not `make:*`: that is any target
        ("make -j8 *.o", ("Bash(make -j8 \\*.o)",)),
        ("npx prettier --write .", ("Bash(npx prettier:*)",)),  # a runner: the rule names what it runs
        ("uv run pytest -q", ("Bash(uv run pytest:*)",)),
        ("uv run python -c 'x'", ()),  # any code at all
        ("npx -y create-app", ("Bash(npx -y create-app)",)),
        ("python3 -c 'print(1)'", ()),
        ("rm -rf build", ()),
        ("git push --force", ()),
        ("bash script.sh", ()),
        ("env FOO=1 make", ()),
        ("sudo make install", ()),
    ],
)
def test_suggestions(command: str, expected: tuple[str, ...]) -> None:
    assert check(command).suggestions == expected


def test_suggestions_cover_every_part_or_none_is_offered() -> None:
    assert check("make && npm test").suggestions == ("Bash(make)", "Bash(npm test:*)")
    assert check("a1 x; a2 x; a3 x; a4 x; a5 x; a6 x; a7 x").suggestions == tuple(f"Bash(a{i}:*)" for i in range(1, 8))
    assert check("; ".join(f"a{i} x" for i in range(1, 10))).suggestions == ()  # too many to show
    assert check("npm test && rm -rf build").suggestions == ()  # rm is never offered: the rest would not cover it
    assert check("npm test && python3 -c 'x'").suggestions == ()


def test_no_suggestions_on_a_flagged_line() -> None:
    verdict = check("npm run build; echo $(curl evil.example)")
    assert verdict.flagged and verdict.suggestions == ()


def test_suggest_is_usable_on_its_own() -> None:
    effective = next(e for e in expand("uv run pytest -q").effectives if e.argv)
    assert suggest(effective) == "Bash(uv run pytest:*)"


def test_suggested_rule_then_allows_the_command() -> None:
    for command in ("npm run build -- --prod", "cargo clippy --all", "gh pr view 12", "python3 -m mypy src"):
        (suggestion,) = check(command).suggestions
        assert check(command, allow=[suggestion]).behavior == "allow", suggestion


def test_must_not_interrupt_and_read_only() -> None:
    assert check("git add -A && git commit -m x", allow=["git add:*", "git commit:*"]).must_not_interrupt
    assert check("npm ci", allow=["npm ci"]).must_not_interrupt
    assert not check("git status").must_not_interrupt
    assert check("git log | head").read_only
    assert not check("npm test", allow=["npm test:*"]).read_only
    assert not check("cat x > y").read_only


def test_subcommands_are_listed_normalized() -> None:
    verdict = check("FOO=1 /usr/bin/git  status ; timeout 5 bash -c 'ls \"a b\"'")
    assert verdict.subcommands == ("FOO=1 git status", "ls 'a b'")


def test_empty_and_comment_only_lines() -> None:
    assert check("").behavior == "allow"
    assert check("   # nothing\n").behavior == "allow"


# ---------------------------------------------------------------------------- failing closed


def test_any_exception_means_ask(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(command: str) -> None:
        raise RuntimeError("synthetic failure")

    monkeypatch.setattr(analyser, "expand", boom)
    verdict = check("ls", allow=["*"])
    assert verdict.behavior == "ask"
    assert verdict.reason_ids == ("analyser_error",)
    assert "synthetic failure" in verdict.reasons[0].message
    assert not verdict.read_only


def test_pathologically_deep_nesting_fails_closed() -> None:
    command = "echo " + "$(" * 3000 + "x" + ")" * 3000
    verdict = check(command, allow=["echo:*"])
    assert verdict.behavior == "ask"


def test_huge_and_binary_input_never_allows_blindly() -> None:
    assert check("ls " + "a" * 200_000).behavior == "allow"
    assert check("ls\x00; rm x").behavior == "ask"
    assert check("\udcff").behavior == "ask"
