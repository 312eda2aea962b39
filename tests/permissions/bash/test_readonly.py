"""The read-only command set: per-command flag checks and the files each command touches."""

from __future__ import annotations

import pytest

from handrail.permissions.bash.file_arguments import touched_paths
from handrail.permissions.bash.parse import parse
from handrail.permissions.bash.readonly import read_only
from handrail.permissions.bash.readonly.awk import awk_program
from handrail.permissions.bash.readonly.sed import sed_script
from handrail.permissions.bash.risky_commands import is_destructive, must_not_interrupt


def argv(command: str):  # type: ignore[no-untyped-def]
    return parse(command).commands[0].argv


def ro(command: str) -> bool:
    return read_only(argv(command)).read_only


def paths(command: str) -> list[tuple[str, str]]:
    return [(w.text, d) for w, d in touched_paths(argv(command))]


@pytest.mark.parametrize(
    "command",
    [
        "ls -la src",
        "cat a b",
        "head -n 5 f",
        "tail -f log",
        "wc -l f",
        "pwd",
        "echo hi",
        "printf '%s' x",
        "which git",
        "file f",
        "stat f",
        "du -sh .",
        "df -h",
        "grep -rn x src",
        "rg -n x src",
        "rg --files",
        "find . -name '*.py' -type f -newer setup.py",
        "sed -n '1,10p' f",
        "sed 's/a/b/g' f",
        "awk '{print $1}' f",
        "jq .a f.json",
        "sort -k2 f",
        "uniq -c f",
        "cut -d, -f1 f",
        "tr a-z A-Z",
        "diff a b",
        "git status",
        "git diff --stat HEAD~2",
        "git log --oneline -5",
        "git show HEAD",
        "git branch",
        "git branch -a --list 'feat/*'",
        "git tag",
        "git tag -l 'v*'",
        "git remote -v",
        "git config --get user.email",
        "git config get user.email",
        "git stash list",
        "git reflog",
        "git worktree list",
        "git rev-parse HEAD",
        "git ls-files",
        "git blame f",
        "git grep foo",
        "git --no-pager log",
        "git -C sub status",
        "git --version",
        "test -f x",
        "[ -d x ]",
        "command -v git",
        "date +%s",
        "hostname",
        "python3 --version",
        "node -v",
        "go version",
        "true",
        "sha256sum f",
        "xxd f",
        "base64 -d f",
    ],
)
def test_read_only(command: str) -> None:
    result = read_only(argv(command))
    assert result.read_only, result.why_not


@pytest.mark.parametrize(
    "command",
    [
        "rm x",
        "touch x",
        "npm test",
        "python3 x.py",
        "python3 -c 'print(1)'",
        "node --eval x",
        "find . -exec ls {} \\;",
        "find . -execdir ls {} +",
        "find . -ok ls {} \\;",
        "find . -delete",
        "find . -fprint out",
        "find *",
        "sed -i s/a/b/ f",
        "sed -f s.sed f",
        "sed 's/a/b/e' f",
        "sed 'w out' f",
        "sed '1r x' f",
        "sed k f",
        "awk -f p.awk f",
        "awk 'BEGIN{system(\"x\")}'",
        "awk '{print > \"o\"}' f",
        "awk '{getline x < \"/etc/passwd\"}' f",
        "awk 'BEGIN{print ENVIRON[\"HOME\"]}'",
        "awk 'BEGIN{ARGV[1]=\"/etc/passwd\"} {print}'",
        "awk -v ARGC=2 '{print}' f",
        "gawk -p '{print}' f",
        "jq -n env",
        "jq '$ENV.TOKEN' f",
        "tree -R",
        "sort -T /tmp f",
        "jq -f p.jq f",
        "jq --rawfile a b .",
        "sort -o out f",
        "sort --output=out f",
        "sort --compress-program=x f",
        "sort *",
        "uniq in out",
        "xxd in out",
        "tree -o out",
        "base64 -o out f",
        "file -C -m x",
        "rg --pre x foo",
        "rg foo *",
        "sha256sum -c sums",
        "date -s now",
        "date 0101",
        "hostname evil",
        "git commit -m x",
        "git push",
        "git -c a=b status",
        "git --config-env=a=b status",
        "git diff --output=x",
        "git log --ext-diff",
        "git grep -O foo",
        "git branch new",
        "git branch -D old",
        "git branch -m a b",
        "git tag v1",
        "git tag -d v1",
        "git remote add o url",
        "git config user.name x",
        "git config --unset x",
        "git stash",
        "git stash pop",
        "git reflog expire --all",
        "git worktree add x",
        "git submodule update",
        "git st",
        "git --exec-path=/x status",
        "python3 --version --x",
        "echo $HOME",
        "$CMD",
        "less f",
        "man ls",
        "env",
        "printenv",
    ],
)
def test_not_read_only(command: str) -> None:
    assert not ro(command)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cat a b", [("a", "read"), ("b", "read")]),
        ("grep -rn pattern src tests", [("src", "search"), ("tests", "search")]),
        ("grep -e pattern -f pats.txt src", [("pats.txt", "read"), ("src", "read")]),
        ("rg -g '*.py' -t py foo src", [("src", "search")]),
        ("head -n 5 f", [("f", "read")]),
        ("ls", []),
        ("echo /etc/passwd", []),
        ("find /etc -newer ref -name x", [("/etc", "search"), ("ref", "read")]),
        ("find", [(".", "search")]),
        ("grep -n pattern a b", [("a", "read"), ("b", "read")]),
        ("grep -r pattern", [(".", "search")]),
        ("rg --files src", [("src", "search")]),
        ("du -sh", [(".", "search")]),
        ("ls -R docs", [("docs", "search")]),
        ("git grep KEY", [(".", "search")]),
        ("sed -n p a b", [("a", "read"), ("b", "read")]),
        ("awk -v x=1 '{print}' a y=2 b", [("a", "read"), ("b", "read")]),
        ("jq --arg k v . a.json", [("a.json", "read")]),
        ("diff --from-file=a b c", [("a", "read"), ("b", "read"), ("c", "read")]),
        ("git -C /elsewhere status", [("/elsewhere", "enter")]),
        ("git diff --no-index /etc/a /dev/null", [("/etc/a", "read"), ("/dev/null", "read")]),
        # what prints the repository's files reads all of it; `REV:path` names one file (history included)
        # (`REV:path` without `./` is relative to the top of the work tree, which the disk tells: GitUse.from_top)
        ("git show HEAD:.env", [(".", "search")]),
        ("git cat-file -p HEAD~1:./config/.env", [(".", "search"), ("./config/.env", "read")]),
        ("git -C sub show main:x", [("sub", "enter"), ("./sub", "search")]),
        ("git -C sub show main:../x", [("sub", "enter"), ("./sub", "search"), ("./sub/../x", "read")]),
        ("git diff", [(".", "search")]),
        ("git blame app.py", [(".", "search")]),
        ("git log -p", [(".", "search")]),
        ("git log -U5", [(".", "search")]),
        ("git log -Ssecret", [(".", "search")]),
        ("git stash show -p", [(".", "search")]),
        ("git log --oneline", []),
        ("git stash show", []),
        ("git cat-file -t HEAD", []),
        ("rm -rf a b", [("a", "write"), ("b", "write")]),
        ("rm -r build", [("build", "write")]),
        ("mkdir -p -m 755 d", [("d", "write")]),
        ("touch -r ref new", [("new", "write")]),
        ("cp a b dest", [("a", "read"), ("b", "read"), ("dest", "write")]),
        ("cp -t dest a", [("a", "read"), ("dest", "write")]),
        ("mv a b", [("a", "write"), ("b", "write")]),
        ("chmod 644 f", [("f", "write")]),
        ("tee -a log", [("log", "write")]),
        ("dd if=a of=b bs=1M", [("a", "read"), ("b", "write")]),
        ("sed -i s/a/b/ f", [("f", "write")]),
        ("curl -o out.html https://x", [("out.html", "write")]),
        ("sort -o sorted.txt f", [("sorted.txt", "write"), ("f", "read")]),
        ("git log --output=log.txt", [("log.txt", "write")]),
    ],
)
def test_touched_paths(command: str, expected: list[tuple[str, str]]) -> None:
    assert paths(command) == expected


@pytest.mark.parametrize(
    ("script", "used", "ok"),
    [
        ("1,10p", {"p"}, True),
        ("/a/,/b/d", {"d"}, True),
        ("s/a/b/g;s|x|y|2", {"s"}, True),
        ("s/a\\/b/c/", {"s"}, True),
        ("$!N;P;D", {"N", "P", "D"}, True),
        ("/x/{s/a/b/;p}", {"{", "s", "}", "p"}, True),
        (":a;N;$!ba;s/\\n/ /g", {":", "N", "b", "s"}, True),
        ("y/abc/xyz/", {"y"}, True),
        ("1i\\\nheader", {"i"}, True),
        ("s/a/b/e", {"s", "s_e"}, True),
        ("s/a/b/w out", {"s", "s_w"}, True),
        ("e date", {"e"}, True),
        ("w out", {"w"}, True),
        ("2r other", {"r"}, True),
        ("s/a/b", set(), False),
        ("k", {"k"}, False),
        ("s/a/b/z", {"s"}, False),
    ],
)
def test_sed_script(script: str, used: set[str], ok: bool) -> None:
    found, parsed = sed_script(script)
    assert parsed is ok
    assert used <= found


@pytest.mark.parametrize(
    ("program", "runs", "writes"),
    [
        ("{print $1}", False, False),
        ("$3 > 10 {print}", False, False),
        ("/a|b/ {print}", False, False),
        ('{print "a|b > c"}', False, False),
        ("{x = a || b}", False, False),
        ('BEGIN {system("id")}', True, False),
        ('{print | "sort"}', True, False),
        ('{"date" | getline d}', True, False),
        ('{print > "out"}', False, True),
        ('{printf "%s", $0 >> "out"}', False, True),
        ('@load "x"', True, False),
    ],
)
def test_awk_program(program: str, runs: bool, writes: bool) -> None:
    assert awk_program(program) == (runs, writes)


@pytest.mark.parametrize(
    ("command", "destructive"),
    [
        ("rm x", True),
        ("git push --force", True),
        ("git push -f origin main", True),
        ("git push origin +main", True),
        ("git reset --hard HEAD~1", True),
        ("git clean -fdx", True),
        ("git checkout -- .", True),
        ("git branch -D x", True),
        ("find . -delete", True),
        ("chmod -R 777 .", True),
        ("kubectl delete pod x", True),
        ("npm publish", True),
        ("git push origin main", False),
        ("git commit -m x", False),
        ("npm test", False),
        ("ls", False),
    ],
)
def test_is_destructive(command: str, destructive: bool) -> None:
    assert is_destructive(argv(command)) is destructive


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git commit -m x", True),
        ("git push", True),
        ("git rebase main", True),
        ("npm install", True),
        ("npm ci", True),
        ("pip install x", True),
        ("python3 -m pip install x", True),
        ("cargo install x", True),
        ("apt-get install x", True),
        ("git status", False),
        ("npm test", False),
        ("ls", False),
    ],
)
def test_must_not_interrupt(command: str, expected: bool) -> None:
    assert must_not_interrupt(argv(command)) is expected
