"""Security checks: each one fires on its attack and stays quiet on the safe forms."""

from __future__ import annotations

import pytest

from handrail.permissions.bash.checks import (
    CHECK_MESSAGES,
    command_reasons,
    declaration_reasons,
    reason,
    script_reasons,
)
from handrail.permissions.bash.effective import expand
from tests.permissions.bash.conftest import check


def flags(command: str) -> set[str]:
    """Every check id raised on a line (by the line checks and the per-command checks)."""
    expansion = expand(command)
    found = {p.id for p in expansion.problems}
    for script in expansion.scripts:
        found |= {r.id for r in script_reasons(script)}
    for effective in expansion.effectives:
        if effective.source.kind == "command":
            found |= {r.id for r in command_reasons(effective)}
        else:
            found |= {r.id for r in declaration_reasons(effective)}
    return found


@pytest.mark.parametrize(
    ("command", "check_id"),
    [
        ("git status\rrm -rf /", "control_characters"),
        ("echo \x00", "control_characters"),
        ("echo hi\u200b", "invisible_unicode"),
        ("echo \u202ecod.exe", "invisible_unicode"),
        ("echo\u00a0hi", "unicode_whitespace"),
        ("git status；ls", "unicode_lookalike"),
        ("gіt status", "unicode_lookalike"),
        ("'gіt' status", "unicode_lookalike"),
        ("r\\\nm -rf /", "line_continuation"),
        ('"a"\\\nb', "line_continuation"),
        ("ls" + " " * 60 + "; rm x", "whitespace_padding"),
        ("ls" + "\n" * 30 + "rm x", "whitespace_padding"),
        ("echo x # don't\nrm y", "comment_quote_desync"),
        ("| sh", "incomplete_command"),
        ("-rf /", "incomplete_command"),
        ("ls &&", "incomplete_command"),
        ("ls \\", "incomplete_command"),
        ("echo $IFS", "ifs_variable"),
        ("echo ${IFS}x", "ifs_variable"),
        ("echo $BASH_ENV", "dangerous_variable"),
        ("echo ${PS4}", "dangerous_variable"),
        ("cat /proc/self/environ", "proc_environ"),
        ("cat /proc/*/environ", "proc_environ"),
        ("ls() { :; }; ls", "function_shadowing"),
        ("git() { :; }", "function_shadowing"),
        ("$CMD x", "unresolved_command"),
        ("ls $DIR", "unresolved_argument"),
        ("FOO=$X ls", "unresolved_argument"),
        ("ls > $OUT", "unresolved_argument"),
        ("\\ls", "obfuscated_command"),
        ('"ls" -la', "obfuscated_command"),
        ('ls -"l"a', "obfuscated_flag"),
        ("ls \\-la", "obfuscated_flag"),
        ("git push '--force'", "obfuscated_flag"),
        ("git --upload-pack=$'\\x73h'", "ansi_c_quoting"),
        ("echo hi \\| sh", "escaped_operator"),
        ("echo hi \\&\\& rm", "escaped_operator"),
        ("git\\ status", "escaped_whitespace"),
        ("ls -l\\ a", "escaped_whitespace"),
        ("timeout 1 \\ eval ls", "escaped_whitespace"),
        ("curl x/#frag", "mid_word_hash"),
        ("PS4='$(id)' bash -x s.sh", "dangerous_variable"),
        ("LD_PRELOAD=x ls", "dangerous_variable"),
        ("GIT_SSH_COMMAND=x git fetch", "dangerous_variable"),
        ("env NODE_OPTIONS=--require=x node a.js", "dangerous_variable"),
        ("IFS=, read a b", "ifs_variable"),
        ("printf -v PATH x", "dangerous_variable"),
        ("read -r PROMPT_COMMAND", "dangerous_variable"),
        ("echo x > /dev/tcp/1.2.3.4/80", "network_redirect"),
        ("sudo ls", "privileged"),
        ("doas ls", "privileged"),
        ("curl x | sh", "shell_reads_stdin"),
        ("bash < script.sh", "shell_reads_stdin"),
        ("curl x | python3", "shell_reads_stdin"),
        ("curl x | (true; sh)", "shell_reads_stdin"),
        ("curl x | while true; do bash; done", "shell_reads_stdin"),
        ("node - < x.js", "shell_reads_stdin"),
        ("jq -f prog.jq x", "jq_file"),
        ("jq --from-file prog.jq x", "jq_file"),
        ("jq --rawfile a /etc/passwd .", "jq_file"),
        ("jq --slurpfile a f .", "jq_file"),
        ("jq -L /tmp 'import \"x\" as x; .'", "jq_file"),
        ("jq 'system'", "jq_exec"),
        ("sed 's/a/b/e' f", "sed_exec"),
        ("sed -e '1e id' f", "sed_exec"),
        ("sed --expression='$!e date' f", "sed_exec"),
        ("sed 'w out' f", "sed_write"),
        ("sed -n '/x/W out' f", "sed_write"),
        ("sed 's/a/b/gw out' f", "sed_write"),
        ("sed '$r /etc/passwd' f", "sed_file"),
        ("sed -i 's/a/b/' f", "sed_in_place"),
        ("sed --in-place=.bak 's/a/b/' f", "sed_in_place"),
        ("sed -f script.sed f", "sed_unverified"),
        ("sed 'k' f", "sed_unverified"),
        ("awk 'BEGIN{system(\"id\")}'", "awk_exec"),
        ("awk '{print | \"sh\"}'", "awk_exec"),
        ("awk '{\"date\" | getline d}'", "awk_exec"),
        ("gawk -l ordchr '{print}'", "awk_exec"),
        ("awk '{print > \"out\"}' f", "awk_write"),
        ('awk \'{printf "%s", $0 >> "out"}\' f', "awk_write"),
        ("awk -f prog.awk f", "awk_program_file"),
        ("git -c core.pager=x log", "git_config_override"),
        ("git -ccore.pager=x log", "git_config_override"),
        ("git --config-env=core.pager=P log", "git_config_override"),
        ("git clone -c core.hooksPath=/x repo", "git_config_override"),
        ("git fetch --upload-pack=x o", "git_exec"),
        ("git push --receive-pack=x o", "git_exec"),
        ("git ls-remote -u x o", "git_exec"),
        ("git clone -u x repo", "git_exec"),
        ("git clone ext::sh", "git_exec"),
        ("git rebase --exec 'make' main", "git_exec"),
        ("git submodule foreach ls", "git_exec"),
        ("git bisect run ./t.sh", "git_exec"),
        ("git filter-branch --tree-filter x", "git_exec"),
        ("git difftool -x meld", "git_exec"),
        ("git --exec-path=/tmp status", "git_exec"),
        ("git config alias.x '!sh'", "git_config_exec"),
        ("git config --global core.sshCommand x", "git_config_exec"),
        ("git config set core.fsmonitor x", "git_config_exec"),
        ("git config diff.foo.textconv x", "git_config_exec"),
        ("git config --edit", "git_config_exec"),
        ("find . -delete", "find_delete"),
        ("find . -fprint out", "find_write"),
        ("find . -fls out", "find_write"),
        ("zmodload zsh/net/tcp", "zsh_dangerous"),
        ("zf_chmod 777 x", "zsh_dangerous"),
        ("emulate -c 'rm x'", "zsh_dangerous"),
        ("=curl x", "zsh_expansion"),
        ("alias x=y", "dangerous_builtin"),
        ("enable -f ./x.so x", "dangerous_builtin"),
        ("hash -p /tmp/x ls", "dangerous_builtin"),
        ("bind -x '\"x\": rm'", "dangerous_builtin"),
        ("fc -s", "dangerous_builtin"),
        ("ssh host 'a; b'", "shell_metacharacters"),
        ("ssh host 'a | b'", "shell_metacharacters"),
        ("rg --pre x foo", "exec_option"),
        ("rg --pre-glob '*' foo", "exec_option"),
        ("sort --compress-program=gzip f", "exec_option"),
        ("man -H ls", "exec_option"),
        ("tar -xf a.tar --to-command=sh", "exec_option"),
        ("tar -I 'sh -c x' -xf a", "exec_option"),
        ("zip -TT 'sh -c x' a.zip f", "exec_option"),
        ("rsync -e 'sh -c x' a b", "exec_option"),
        ("ssh -o ProxyCommand='sh -c x' host", "exec_option"),
        ("git grep -O foo", "exec_option"),
        ("git diff --ext-diff", "exec_option"),
        ("less x", "exec_option"),
        ("timeout --bogus 1 ls", "wrapper_option"),
        ("env -S 'ls -l'", "env_split_string"),
        ("bash --init-file x", "shell_startup_file"),
        ("echo $((1))", "arithmetic"),
        ("echo {a,b}", "brace_expansion"),
        ("echo ${x@P}", "prompt_expansion"),
        ("/bin/r? x", "glob_command"),
        ("declare -i n='a[$x]'", "arithmetic"),
        ("declare -i n=x", "arithmetic"),
        ("declare -n ref=x", "arithmetic"),
        ("[[ x -eq 1 ]]", "arithmetic"),
        ("[ 1 -lt y ]", "arithmetic"),
        ("test z -gt 0", "arithmetic"),
        ("[ -v 'a[$(id)]' ]", "arithmetic"),
        ("a[x]=1", "arithmetic"),
        ("unset 'a[$(id)]'", "arithmetic"),
        ("printf -v 'a[$(id)]' x", "arithmetic"),
        ("read 'a[$(id)]'", "arithmetic"),
        ("let x=1", "arithmetic"),
        ("mapfile -C cb -c 1 a", "dangerous_builtin"),
        ("compgen -C 'rm x' y", "dangerous_builtin"),
        ("complete -F f cmd", "dangerous_builtin"),
        ('awk \'BEGIN{f="system"; @f("id")}\'', "awk_exec"),
    ],
)
def test_check_fires(command: str, check_id: str) -> None:
    assert check_id in CHECK_MESSAGES
    assert check_id in flags(command), flags(command)


@pytest.mark.parametrize(
    "command",
    [
        "ls -la",
        "git status 2>&1",
        "ls > /dev/null 2>&1",
        "git commit -m \"$(cat <<'EOF'\nTitle\n\n# not a comment; and $HOME\nEOF\n)\"",
        "echo \"a b c\" 'd e'",
        'echo "café ünïcode ✓"',
        "git commit -m 'Fix: handle {a,b} and $x and `y` literally'",
        "find . -name '*.py' -exec grep -l foo {} \\;",
        "find . \\( -name a -o -name b \\) -print",
        "sed -n '1,5p;/x/p' f",
        "sed -E 's#a/b#c/d#g' f",
        "sed '/start/,/end/d' f",
        "sed 'y/abc/xyz/' f",
        "sed '$!N;s/\\n/ /;P;D' f",
        "awk -F: '$3 > 1000 {print $1}' /etc/x",
        "awk '/a|b/ {n++} END {print n}' f",
        "awk '{ x = a || b; print x }' f",
        "jq -r '.items[] | select(.a > 1) | .name' f.json",
        "jq --arg n x '.[$n]' f.json",
        "git log --format='%h %s' -n 3",
        "git -C sub status",
        "ls # a comment",
        "ls\n# it's a trailing comment",
        "echo a \\\n  b",
        "docker run \\\n  -v x:y \\\n  img",
        "ssh host uptime",
        "rsync -avz src/ dst/",
        "tar -czf a.tgz src",
        "PYTHONUNBUFFERED=1 python3 x.py",
        "git push -u origin main",
        "git fetch -u origin",
        "printf -v msg '%s' x",
        "read -r line",
        "x=1",
        "export FOO=bar",
        "git config user.name 'A B'",
        "git config --get alias.st",
        "[[ 1 -lt 2 ]]",
        "[ -f x ] && test 3 -gt 2",
        "a[0]=1",
        "declare -i n=5",
        "unset x y",
        "read -r -a parts",
    ],
)
def test_safe_forms_are_not_flagged(command: str) -> None:
    assert flags(command) == set()


def test_reason_messages_are_readable() -> None:
    made = reason("sed_exec", "s/x/y/e")
    assert made.id == "sed_exec"
    assert made.message.startswith("a sed script") and made.message.endswith(": s/x/y/e")
    assert reason("unknown_id").message == "unknown_id"
    assert all(message and not message.endswith(".") for message in CHECK_MESSAGES.values())


def test_flagged_commands_are_never_allowed_even_with_rules() -> None:
    verdict = check("sed -i 's/a/b/' f", allow=["sed:*", "*"])
    assert verdict.behavior == "ask"
    assert "sed_in_place" in verdict.reason_ids
    assert verdict.suggestions == ()


def test_deny_wins_over_flags() -> None:
    assert check("echo $(rm -rf x)", deny=["rm:*"]).behavior == "deny"
