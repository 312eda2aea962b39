"""The verdict: rule semantics, read-only commands, cd tracking, reported files, suggestions, failing closed."""

from __future__ import annotations

from pathlib import Path

import pytest

from handrail.permissions.bash import analyse, analyser, suggest
from handrail.permissions.bash.effective import expand
from tests.permissions_bash.conftest import HOME, PROJECT, check

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
    assert check("cat /etc/hosts", allow=["cat /etc/hosts"]).behavior == "allow"
    assert check("cat /etc/hosts", allow=["cat:*"]).behavior == "ask"


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


def test_paths_outside_the_working_dirs_ask() -> None:
    for command in ("cat /etc/passwd", "ls ..", "cat ~/.ssh/id_rsa", "grep -r x /", "cat src/../../x"):
        verdict = check(command)
        assert verdict.behavior == "ask", command
        assert "path_outside_working_dirs" in verdict.reason_ids
        assert verdict.suggestions == ()


def test_several_working_dirs() -> None:
    other = Path("/work/lib")
    assert check("cat /work/lib/x.py", working_dirs=[PROJECT, other]).behavior == "allow"
    assert check("cat /work/other/x.py", working_dirs=[PROJECT, other]).behavior == "ask"


def test_reported_paths_are_absolute() -> None:
    verdict = check("cat a.txt ~/b.txt; rm -f build/x", allow=["rm:*"])
    assert ("/work/proj/a.txt", "read") in verdict.paths
    assert (f"{HOME}/b.txt", "read") in verdict.paths
    assert ("/work/proj/build/x", "write") in verdict.paths


def test_redirect_targets() -> None:
    verdict = check("npm test > out/log.txt 2>&1 < input.txt", allow=["npm test:*"])
    assert verdict.behavior == "allow"
    assert verdict.redirect_targets == (("/work/proj/out/log.txt", "write"), ("/work/proj/input.txt", "read"))
    assert not verdict.read_only
    assert check("ls > /dev/null 2>&1").redirect_targets == ()


def test_redirects_outside_or_protected_ask() -> None:
    assert "redirect_outside_working_dirs" in check("echo x > /tmp/x", allow=["echo:*"]).reason_ids
    assert "protected_path_write" in check("echo x >> .git/config", allow=["echo:*"]).reason_ids
    assert "protected_path_write" in check("echo x > .GIT/config", allow=["echo:*"]).reason_ids
    assert "protected_path_write" in check("tee .handrail/settings.json", allow=["tee:*"]).reason_ids
    assert "redirect_unresolved" in check("echo x > $F", allow=["echo:*"]).reason_ids


def test_write_redirect_makes_a_read_only_command_need_a_rule() -> None:
    verdict = check("echo hi > notes.txt")
    assert verdict.behavior == "ask"
    assert verdict.suggestions == ("Bash(echo:*)",)
    assert check("echo hi > notes.txt", allow=["echo:*"]).behavior == "allow"


# ---------------------------------------------------------------------------- cd


def test_cd_into_a_working_dir_then_commands_are_judged_there() -> None:
    verdict = check("cd src && cat main.py")
    assert verdict.behavior == "allow"
    assert ("/work/proj/src/main.py", "read") in verdict.paths
    assert verdict.changes_cwd


def test_cd_outside_asks() -> None:
    for command in ("cd /tmp && ls", "cd && ls", "cd ~ && ls", "cd - && ls", "cd $X && ls", "cd .. && ls"):
        verdict = check(command)
        assert verdict.behavior == "ask", command
        assert "cd_outside" in verdict.reason_ids


def test_cd_that_may_fail_keeps_both_directories() -> None:
    # `cd src; cat ../../x`: if cd fails the cat runs in the root, if not in src: both are checked
    verdict = check("cd src; cat ../x")
    assert ("/work/proj/x", "read") in verdict.paths and ("/work/x", "read") in verdict.paths
    assert verdict.behavior == "ask"
    assert check("cd src && cat ../x").behavior == "allow"


def test_cd_inside_a_nested_shell_still_counts() -> None:
    assert check("bash -c 'cd /etc && cat passwd'").behavior == "ask"
    assert check("(cd src && ls)").behavior == "allow"


def test_functions_defined_on_the_line() -> None:
    assert check("f() { ls; }; f").behavior == "allow"
    assert check("f() { cd /; }; f").behavior == "ask"
    assert check("f() { cat x; }; cd src && f").paths == (("/work/proj/x", "read"), ("/work/proj/src/x", "read"))
    assert check("f() { npm publish; }; f").behavior == "ask"
    assert check("timeout 5 f", allow=["npm test:*"]).behavior == "ask"  # timeout runs a program, not the function


def test_cd_with_a_relative_working_dir_cwd() -> None:
    verdict = analyse("cd lib && ls", cwd=PROJECT / "src", working_dirs=[PROJECT])
    assert verdict.behavior == "allow"


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
        ("make", ("Bash(make:*)",)),
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


def test_at_most_five_suggestions() -> None:
    verdict = check("a1 x; a2 x; a3 x; a4 x; a5 x; a6 x; a7 x")
    assert len(verdict.suggestions) == 5


def test_no_suggestions_on_a_flagged_line() -> None:
    verdict = check("npm run build; echo $(id)")
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
