"""See through the commands that run other commands.

`unwrap(argv)` peels `env`, `nohup`, `timeout`, `nice`, `stdbuf`, `time`, `command`, `builtin`,
`exec`, `noglob`, `setsid`, `ionice`, `busybox`, `xargs`, `sudo`/`doas`, `watch -x`, `flock` off a
command and returns what would really run. Shells given a script (`bash -c '...'`, `sh -c`,
`zsh -c`), `eval`, `watch`, `su -c`, `script -c`, `trap` and `env -S` hand back the script text
for the caller to parse again. `find_exec_commands` finds the commands `find -exec/-execdir/-ok`
runs. Path-qualified names from the system's bin directories count as the bare name
(`/bin/rm` is `rm`); other paths (`./x`, `~/bin/x`) stay as written.

Unknown options to a wrapper are recorded as a problem (the caller asks) rather than guessed at.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from handrail.permissions.bash.model import Assignment, Direction, Word, literal_word

TRUSTED_BIN_DIRS: frozenset[str] = frozenset(
    {
        "/bin",
        "/usr/bin",
        "/usr/local/bin",
        "/sbin",
        "/usr/sbin",
        "/usr/local/sbin",
        "/opt/homebrew/bin",
        "/run/current-system/sw/bin",
    }
)

SHELLS: frozenset[str] = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "yash", "fish", "csh", "tcsh", "ash"})

# Commands whose bare prefix rule would allow anything (`Bash(env:*)`, `Bash(xargs *)`...).
RUNNERS: frozenset[str] = SHELLS | frozenset(
    {
        "env",
        "xargs",
        "sudo",
        "doas",
        "su",
        "runuser",
        "nohup",
        "timeout",
        "nice",
        "stdbuf",
        "time",
        "command",
        "builtin",
        "exec",
        "eval",
        "noglob",
        "nocorrect",
        "coproc",
        "setsid",
        "ionice",
        "busybox",
        "watch",
        "flock",
        "script",
        "trap",
        "source",
        ".",
        "chroot",
        "unbuffer",
        "caffeinate",
        "chrt",
        "taskset",
        "unshare",
        "strace",
        "ltrace",
        "valgrind",
        "prlimit",
        "numactl",
        "pkexec",
        "fakeroot",
        "proxychains",
        "proxychains4",
        "torsocks",
        "firejail",
        "systemd-run",
        "nsenter",
        "xvfb-run",
        "dbus-run-session",
        "catchsegv",
        "ssh-agent",
    }
)

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def command_name(word_text: str) -> str:
    """The name a rule sees: `/usr/bin/git` is `git`; `./git` and `~/bin/git` stay as written."""
    if "/" not in word_text:
        return word_text
    directory, _, base = word_text.rpartition("/")
    if (directory in TRUSTED_BIN_DIRS or directory == "") and base:
        return base
    return word_text


def base_name(word_text: str) -> str:
    """The last path component, whatever the directory (for deny rules, which err on matching)."""
    return word_text.rstrip("/").rpartition("/")[2] or word_text


@dataclass(frozen=True, slots=True)
class Layer:
    """One wrapper around the real command, with its own words (name and options).

    An `opaque` wrapper (`strace`, `chrt`, `firejail`...) is seen through to find the command it
    runs (for deny rules, and that command must be covered too), but a rule for the inner command
    alone does not cover it: only a rule naming the wrapper with its command does.
    """

    name: str
    argv: tuple[Word, ...]
    opaque: bool = False


@dataclass(frozen=True, slots=True)
class Script:
    """Text a wrapper runs as shell code (`bash -c`, `eval`...), to be parsed again."""

    origin: str
    text: str
    resolved: bool = True


@dataclass(frozen=True, slots=True)
class Unwrapped:
    argv: tuple[Word, ...]
    layers: tuple[Layer, ...] = ()
    env: tuple[Assignment, ...] = ()
    scripts: tuple[Script, ...] = ()
    appends_args: bool = False
    privileged: bool = False
    reads_stdin_script: bool = False
    problems: tuple[str, ...] = ()
    paths: tuple[tuple[Word, Direction], ...] = ()
    chdir: tuple[Word, ...] = ()


@dataclass
class _Step:
    consumed: int = 1
    opaque: bool = False
    script: Script | None = None
    problems: list[str] = field(default_factory=list)
    env: list[Assignment] = field(default_factory=list)
    paths: list[tuple[Word, Direction]] = field(default_factory=list)
    chdir: list[Word] = field(default_factory=list)
    appends_args: bool = False
    privileged: bool = False
    reads_stdin_script: bool = False
    stop: bool = False  # not acting as a wrapper here (`command -v x`, a bare `env`)
    inner: tuple[Word, ...] | None = None  # replaces the rest of argv (xargs default `echo`)
    placeholder: str | None = None  # the text xargs -I/-i/--replace swaps for each input item


def _texts(argv: Sequence[Word]) -> list[str]:
    return [w.text for w in argv]


def _options(
    argv: Sequence[Word],
    *,
    flags: frozenset[str] = frozenset(),
    valued: frozenset[str] = frozenset(),
    short_flags: str = "",
    short_valued: str = "",
    short_optional: str = "",
    step: _Step,
    on_value: Callable[[str, Word], None] | None = None,
) -> int:
    """Skip a wrapper's options (GNU style); returns the index of its first operand.

    Unknown options are recorded as `wrapper_option` problems and skipped.
    """
    i = 1
    n = len(argv)
    while i < n:
        word = argv[i]
        text = word.text
        if not word.resolved:
            step.problems.append("unresolved_wrapper")
            return i
        if text == "--":
            return i + 1
        if not text.startswith("-") or text == "-":
            return i
        if text.startswith("--"):
            name, eq, value = text.partition("=")
            if name in flags:
                i += 1
            elif name in valued:
                if eq:
                    if on_value:
                        on_value(name, Word(value, value, "q" * len(value)))
                    i += 1
                else:
                    if on_value and i + 1 < n:
                        on_value(name, argv[i + 1])
                    i += 2
            else:
                step.problems.append("wrapper_option")
                i += 1
            continue
        j = 1
        consumed_next = False
        while j < len(text):
            letter = text[j]
            if letter in short_valued:
                rest = text[j + 1 :]
                if rest:
                    if on_value:
                        on_value("-" + letter, Word(rest, rest, "q" * len(rest)))
                elif i + 1 < n:
                    if on_value:
                        on_value("-" + letter, argv[i + 1])
                    consumed_next = True
                break
            if letter in short_optional:
                break
            if letter not in short_flags and not (letter.isdigit() and "#" in short_flags):
                step.problems.append("wrapper_option")
                break
            j += 1
        i += 2 if consumed_next else 1
    return i


def _assignments(argv: Sequence[Word], start: int, step: _Step) -> int:
    i = start
    while i < len(argv):
        name, eq, _ = argv[i].text.partition("=")
        if not eq or not _NAME.match(name):  # env and sudo read NAME=value themselves: quoting is irrelevant
            break
        step.env.append(Assignment(name, argv[i].sliced(len(name) + 1), argv[i].raw))
        i += 1
    return i


def _env(argv: Sequence[Word]) -> _Step:
    step = _Step()
    split: list[Word] = []

    def value(name: str, word: Word) -> None:
        if name in ("-C", "--chdir"):
            step.chdir.append(word)
        elif name in ("-S", "--split-string"):
            split.append(word)

    i = _options(
        argv,
        flags=frozenset(
            {"--ignore-environment", "--null", "--debug", "--ignore-signal", "--default-signal", "--block-signal"}
        ),
        valued=frozenset({"--unset", "--chdir", "--split-string"}),
        short_flags="i0v",
        short_valued="uCS",
        step=step,
        on_value=value,
    )
    if split:
        rest = " ".join([split[0].text, *(w.text for w in argv[i:])])
        step.script = Script("env -S", rest, split[0].resolved and all(w.resolved for w in argv[i:]))
        step.problems.append("env_split_string")
        step.consumed = len(argv)
        return step
    i = _assignments(argv, i, step)
    if i >= len(argv):
        step.stop = True  # a bare `env` prints the environment
    step.consumed = i
    return step


def _simple(argv: Sequence[Word]) -> _Step:
    step = _Step()
    step.consumed = 2 if len(argv) > 1 and argv[1].text == "--" else 1
    if len(argv) <= step.consumed:
        step.stop = True
    return step


def _nohup(argv: Sequence[Word]) -> _Step:
    if len(argv) > 1 and argv[1].text in ("--help", "--version"):
        return _Step(stop=True)
    return _simple(argv)


def _timeout(argv: Sequence[Word]) -> _Step:
    step = _Step()
    i = _options(
        argv,
        flags=frozenset({"--preserve-status", "--foreground", "--verbose"}),
        valued=frozenset({"--signal", "--kill-after"}),
        short_flags="v",
        short_valued="sk",
        step=step,
    )
    if i >= len(argv) - 1:
        step.stop = True
        return step
    step.consumed = i + 1  # the duration
    return step


def _nice(argv: Sequence[Word]) -> _Step:
    step = _Step()
    i = _options(argv, valued=frozenset({"--adjustment"}), short_valued="n", short_flags="#", step=step)
    step.stop = i >= len(argv)
    step.consumed = i
    return step


def _stdbuf(argv: Sequence[Word]) -> _Step:
    step = _Step()
    i = _options(argv, valued=frozenset({"--input", "--output", "--error"}), short_valued="ioe", step=step)
    step.stop = i >= len(argv)
    step.consumed = i
    return step


def _time(argv: Sequence[Word]) -> _Step:
    step = _Step()

    def value(name: str, word: Word) -> None:
        if name in ("-o", "--output"):
            step.paths.append((word, "write"))

    i = _options(
        argv,
        flags=frozenset({"--verbose", "--quiet", "--portability", "--append"}),
        valued=frozenset({"--format", "--output"}),
        short_flags="pvqa",
        short_valued="fo",
        step=step,
        on_value=value,
    )
    step.stop = i >= len(argv)
    step.consumed = i
    return step


def _command(argv: Sequence[Word]) -> _Step:
    texts = _texts(argv[1:3])
    if any(t.startswith("-") and ("v" in t or "V" in t) for t in texts):
        return _Step(stop=True)  # `command -v x` looks a name up
    step = _Step()
    i = _options(argv, short_flags="p", step=step)
    step.stop = i >= len(argv)
    step.consumed = i
    return step


def _exec(argv: Sequence[Word]) -> _Step:
    step = _Step()
    i = _options(argv, short_flags="cl", short_valued="a", step=step)
    step.stop = i >= len(argv)
    step.consumed = i
    return step


def _setsid(argv: Sequence[Word]) -> _Step:
    step = _Step()
    i = _options(argv, flags=frozenset({"--ctty", "--fork", "--wait"}), short_flags="cfw", step=step)
    step.stop = i >= len(argv)
    step.consumed = i
    return step


def _ionice(argv: Sequence[Word]) -> _Step:
    step = _Step()
    if any(t in ("-p", "-P", "-u", "--pid", "--pgid", "--uid") for t in _texts(argv)):
        return _Step(stop=True)
    i = _options(
        argv,
        flags=frozenset({"--ignore"}),
        valued=frozenset({"--class", "--classdata"}),
        short_flags="t",
        short_valued="cn",
        step=step,
    )
    step.stop = i >= len(argv)
    step.consumed = i
    return step


def _busybox(argv: Sequence[Word]) -> _Step:
    if len(argv) < 2 or argv[1].text.startswith("-"):
        return _Step(stop=True)
    return _Step(consumed=1)


def _xargs(argv: Sequence[Word]) -> _Step:
    step = _Step(appends_args=True)

    def value(name: str, word: Word) -> None:
        if name in ("-a", "--arg-file"):
            step.paths.append((word, "read"))
        elif name == "-I":
            step.placeholder = word.text

    i = _options(
        argv,
        flags=frozenset(
            {
                "--null",
                "--interactive",
                "--no-run-if-empty",
                "--verbose",
                "--exit",
                "--open-tty",
                "--show-limits",
                "--eof",
                "--replace",
                "--max-lines",
            }
        ),
        valued=frozenset(
            {"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}
        ),
        short_flags="0prtxo",
        short_valued="adEILnPs",
        short_optional="eil",
        step=step,
        on_value=value,
    )
    for word in argv[1:i]:  # `-i` and `--replace` take their string attached, `{}` when they have none
        text = word.text
        if text == "--replace" or (text.startswith("-i") and not text.startswith("--")):
            step.placeholder = text[2:] or "{}"
        elif text.startswith("--replace="):
            step.placeholder = text.partition("=")[2] or "{}"
    if i >= len(argv):
        step.inner = (literal_word("echo"),)
    step.consumed = i
    return step


def _sudo(argv: Sequence[Word]) -> _Step:
    step = _Step(privileged=True)
    texts = _texts(argv)
    if len(argv) > 1 and argv[1].text in ("-e", "--edit"):
        step.problems.append("wrapper_option")
        step.stop = True
        return step
    i = _options(
        argv,
        flags=frozenset(
            {
                "--askpass",
                "--background",
                "--preserve-env",
                "--set-home",
                "--login",
                "--remove-timestamp",
                "--reset-timestamp",
                "--list",
                "--non-interactive",
                "--preserve-groups",
                "--stdin",
                "--shell",
                "--validate",
            }
        ),
        valued=frozenset(
            {
                "--close-from",
                "--chdir",
                "--group",
                "--host",
                "--prompt",
                "--role",
                "--type",
                "--command-timeout",
                "--user",
                "--other-user",
            }
        ),
        short_flags="AbEHiKklnPSsVv",
        short_valued="CDghprtTUu",
        step=step,
    )
    i = _assignments(argv, i, step)
    shell_flag = any(t in ("-s", "-i", "--shell", "--login") for t in texts[1:i])
    if i >= len(argv):
        step.stop = True
        if shell_flag:
            step.reads_stdin_script = True
        return step
    if shell_flag:
        step.script = Script("sudo -s", " ".join(w.text for w in argv[i:]), all(w.resolved for w in argv[i:]))
        step.consumed = len(argv)
        return step
    step.consumed = i
    return step


def _doas(argv: Sequence[Word]) -> _Step:
    step = _Step(privileged=True)
    i = _options(argv, short_flags="nsL", short_valued="uC", step=step)
    step.stop = i >= len(argv)
    step.consumed = i
    return step


def _su(argv: Sequence[Word]) -> _Step:
    step = _Step(privileged=True)
    scripts: list[Word] = []

    def value(name: str, word: Word) -> None:
        if name in ("-c", "--command", "--session-command"):
            scripts.append(word)

    _options(
        argv,
        flags=frozenset({"--login", "--preserve-environment", "--pty"}),
        valued=frozenset(
            {"--command", "--session-command", "--group", "--supp-group", "--shell", "--whitelist-environment"}
        ),
        short_flags="lmpP",
        short_valued="cgGsw",
        step=step,
        on_value=value,
    )
    # options may also follow the user name: look at every word
    for index, word in enumerate(argv[:-1]):
        if word.text == "-c" and argv[index + 1] not in scripts:
            scripts.append(argv[index + 1])
    if scripts:
        step.script = Script("su -c", scripts[0].text, scripts[0].resolved)
        step.consumed = len(argv)
    else:
        step.reads_stdin_script = True
        step.stop = True
    return step


def _shell(argv: Sequence[Word]) -> _Step:
    """`bash [options] -c 'script' [name [args...]]`, `bash script.sh`, or a shell reading stdin."""
    step = _Step()
    i = 1
    n = len(argv)
    command_mode = False
    while i < n:
        word = argv[i]
        text = word.text
        if not word.resolved:
            step.problems.append("unresolved_wrapper")
            step.stop = True
            return step
        if text in ("--", "-"):
            i += 1
            break
        if text.startswith("--"):
            if text in ("--rcfile", "--init-file"):
                step.problems.append("shell_startup_file")
                i += 2
                continue
            i += 1
            continue
        if (text.startswith("-") or text.startswith("+")) and len(text) > 1:
            letters = text[1:]
            if "c" in letters and text[0] == "-":
                command_mode = True
            i += 2 if letters[-1:] in ("o", "O") else 1
            continue
        break
    if command_mode:
        if i >= n:
            step.problems.append("incomplete_command")
            step.stop = True
            return step
        script = argv[i]
        step.script = Script(f"{argv[0].text} -c", script.text, script.resolved)
        step.consumed = n
        return step
    if i >= n or any(w.text in ("-s",) for w in argv[1:i]):
        step.reads_stdin_script = True
    step.stop = True  # `bash script.sh`: a program of its own, judged by rules
    return step


def _eval(argv: Sequence[Word]) -> _Step:
    if len(argv) < 2:
        return _Step(stop=True)
    words = argv[1:]
    return _Step(
        consumed=len(argv), script=Script("eval", " ".join(w.text for w in words), all(w.resolved for w in words))
    )


def _watch(argv: Sequence[Word]) -> _Step:
    step = _Step()
    direct = any(w.text in ("-x", "--exec") for w in argv[1:])
    i = _options(
        argv,
        flags=frozenset(
            {
                "--differences",
                "--no-title",
                "--beep",
                "--errexit",
                "--chgexit",
                "--color",
                "--no-color",
                "--exec",
                "--precise",
                "--no-wrap",
                "--no-rerun",
            }
        ),
        valued=frozenset({"--interval"}),
        short_flags="dtbegcCxpwr",
        short_valued="nq",
        step=step,
    )
    if i >= len(argv):
        step.stop = True
        return step
    if direct:
        step.consumed = i
        return step
    words = argv[i:]
    step.script = Script("watch", " ".join(w.text for w in words), all(w.resolved for w in words))
    step.consumed = len(argv)
    return step


def _flock(argv: Sequence[Word]) -> _Step:
    step = _Step()
    scripts: list[Word] = []

    def value(name: str, word: Word) -> None:
        if name in ("-c", "--command"):
            scripts.append(word)

    i = _options(
        argv,
        flags=frozenset({"--shared", "--exclusive", "--unlock", "--nonblock", "--close", "--no-fork", "--verbose"}),
        valued=frozenset({"--wait", "--timeout", "--conflict-exit-code", "--command"}),
        short_flags="sxunoFe",
        short_valued="wEc",
        step=step,
        on_value=value,
    )
    if i >= len(argv):
        step.stop = True
        return step
    rest_start = i + 1
    if not scripts and rest_start + 1 < len(argv) and argv[rest_start].text in ("-c", "--command"):
        scripts.append(argv[rest_start + 1])
    if scripts:
        step.script = Script("flock -c", scripts[0].text, scripts[0].resolved)
        step.consumed = len(argv)
        return step
    if rest_start >= len(argv):
        step.stop = True
        return step
    step.consumed = rest_start
    return step


def _script(argv: Sequence[Word]) -> _Step:
    for index, word in enumerate(argv[:-1]):
        if word.text in ("-c", "--command") or (
            word.text.startswith("-") and not word.text.startswith("--") and word.text.endswith("c")
        ):
            target = argv[index + 1]
            return _Step(consumed=len(argv), script=Script("script -c", target.text, target.resolved))
    return _Step(stop=True)


@dataclass(frozen=True, slots=True)
class _Opaque:
    """How to skip an opaque wrapper's own words: options taking a value, operands before the command."""

    valued: str = ""  # short options that take a value
    long_valued: frozenset[str] = frozenset()
    operands: int = 0  # words after the options and before the command (a priority, a mask, a root)
    no_command: frozenset[str] = frozenset()  # options meaning there is no command (`-p PID`)
    privileged: bool = False


_OPAQUE: dict[str, _Opaque] = {
    "chrt": _Opaque(valued="T P D", operands=1, no_command=frozenset({"-p", "--pid"})),
    "taskset": _Opaque(operands=1, no_command=frozenset({"-p", "--pid"})),
    "unshare": _Opaque(valued="S G R w", long_valued=frozenset({"--setuid", "--setgid", "--root", "--wd"})),
    "strace": _Opaque(valued="e o O p P s S u E a b I X", no_command=frozenset({"-p"})),
    "ltrace": _Opaque(valued="e o p s u n a A D E L x", no_command=frozenset({"-p"})),
    "valgrind": _Opaque(),
    "prlimit": _Opaque(valued="p", no_command=frozenset({"-p", "--pid"})),
    "numactl": _Opaque(valued="C N m p i P l"),
    "pkexec": _Opaque(long_valued=frozenset({"--user"}), privileged=True),
    "fakeroot": _Opaque(valued="l f s i b"),
    "proxychains": _Opaque(valued="f"),
    "proxychains4": _Opaque(valued="f"),
    "torsocks": _Opaque(valued="u p a P d"),
    "firejail": _Opaque(),
    "systemd-run": _Opaque(valued="u p E M H S"),
    "nsenter": _Opaque(valued="t S G"),
    "xvfb-run": _Opaque(valued="n s f e p w"),
    "dbus-run-session": _Opaque(),
    "catchsegv": _Opaque(),
    "ssh-agent": _Opaque(valued="a E t P"),
    "chroot": _Opaque(long_valued=frozenset({"--userspec", "--groups"}), operands=1, privileged=True),
}


def _opaque(argv: Sequence[Word]) -> _Step:
    spec = _OPAQUE[command_name(argv[0].text)]
    step = _Step(opaque=True, privileged=spec.privileged)
    valued = set(spec.valued.split())
    i = 1
    while i < len(argv) and argv[i].text.startswith("-") and argv[i].text != "-":
        text = argv[i].text
        if not argv[i].resolved:
            step.problems.append("unresolved_wrapper")
        if text.split("=", 1)[0] in spec.no_command:
            step.stop = True
            return step
        if text == "--":
            i += 1
            break
        takes_value = (text.startswith("--") and "=" not in text and text in spec.long_valued) or (
            not text.startswith("--") and len(text) == 2 and text[1] in valued
        )
        i += 2 if takes_value else 1
    i += spec.operands
    if i >= len(argv):
        step.stop = True
        return step
    step.consumed = i
    return step


_HANDLERS: dict[str, Callable[[Sequence[Word]], _Step]] = {
    "env": _env,
    "nohup": _nohup,
    "timeout": _timeout,
    "nice": _nice,
    "stdbuf": _stdbuf,
    "time": _time,
    "command": _command,
    "builtin": _simple,
    "exec": _exec,
    "noglob": _simple,
    "nocorrect": _simple,
    "coproc": _simple,
    "setsid": _setsid,
    "ionice": _ionice,
    "busybox": _busybox,
    "xargs": _xargs,
    "sudo": _sudo,
    "doas": _doas,
    "su": _su,
    "runuser": _su,
    "eval": _eval,
    "watch": _watch,
    "flock": _flock,
    "script": _script,
    "unbuffer": _simple,
    "caffeinate": _simple,
    **dict.fromkeys(SHELLS, _shell),
    **dict.fromkeys(_OPAQUE, _opaque),
}

MAX_LAYERS = 16

# interpreters and little languages, with the options whose value is program text
_CODE_OPTIONS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("python", "python2", "python3", "pypy", "pypy3"), frozenset({"-c"})),
    **dict.fromkeys(("node", "nodejs", "bun", "deno"), frozenset({"-e", "--eval", "-p", "--print"})),
    **dict.fromkeys(("perl", "ruby"), frozenset({"-e", "-E"})),
    "php": frozenset({"-r", "-B", "-R", "-E"}),
    "lua": frozenset({"-e"}),
    "Rscript": frozenset({"-e"}),
    "tclsh": frozenset(),
    "osascript": frozenset({"-e"}),
}
_PROGRAM_OPERAND = frozenset({"awk", "gawk", "mawk", "nawk", "sed", "gsed", "jq"})  # the first operand is code


def placeholder_in_code(argv: Sequence[Word], placeholder: str) -> bool:
    """Whether `placeholder` (xargs' or find's) lands in the program text an interpreter runs.

    `xargs -I{} python3 -c "print('{}')"` runs each input line as code; `sh -c '...' _ {}` and
    `python3 script.py {}` pass it as data.
    """
    if not argv:
        return False
    name = base_name(argv[0].text)
    if name in _PROGRAM_OPERAND:
        return any(placeholder in w.text for w in argv[1:] if not w.text.startswith("-") or placeholder in w.text)
    options = _CODE_OPTIONS.get(name.rstrip("0123456789.") if name.startswith("python") else name)
    if options is None:
        return False
    words = [w.text for w in argv[1:]]
    for index, text in enumerate(words):
        option = next((o for o in options if text == o or (text.startswith(o) and not o.startswith("--"))), None)
        if option is not None:
            code = text[len(option) :] or (words[index + 1] if index + 1 < len(words) else "")
            if placeholder in code:
                return True
    return False


def unwrap(argv: Sequence[Word], *, default_inner: bool = True, placeholder: str | None = None) -> Unwrapped:
    """Peel wrappers off `argv` until the command that really runs.

    `default_inner=False` leaves a bare `xargs` empty instead of running its default `echo`.
    `placeholder` is text the caller (`find -exec`) replaces with data in every run: spliced
    into a script an inner shell or interpreter runs, it runs that data as code.
    """
    rest: tuple[Word, ...] = tuple(argv)
    layers: list[Layer] = []
    env: list[Assignment] = []
    scripts: list[Script] = []
    problems: list[str] = []
    paths: list[tuple[Word, Direction]] = []
    chdir: list[Word] = []
    appends = privileged = stdin_script = False
    while rest and len(layers) < MAX_LAYERS:
        head = rest[0]
        if not head.resolved:
            break
        name = command_name(head.text)
        handler = _HANDLERS.get(name)
        if handler is None or "/" in name:
            break
        step = handler(rest)
        problems.extend(step.problems)
        placeholder = step.placeholder or placeholder
        if placeholder is not None and step.script is not None and placeholder in step.script.text:
            problems.append("placeholder_in_script")
        privileged = privileged or step.privileged
        stdin_script = stdin_script or step.reads_stdin_script
        if step.stop:
            break
        layers.append(Layer(name, rest[: step.consumed], step.opaque))
        env.extend(step.env)
        paths.extend(step.paths)
        chdir.extend(step.chdir)
        appends = appends or step.appends_args
        if step.script is not None:
            scripts.append(step.script)
            rest = ()
            break
        rest = rest[step.consumed :] if step.inner is None else step.inner if default_inner else ()
    else:
        if rest:
            problems.append("too_many_wrappers")
    if placeholder is not None and placeholder_in_code(rest, placeholder):
        problems.append("placeholder_in_script")
    return Unwrapped(
        rest,
        tuple(layers),
        tuple(env),
        tuple(scripts),
        appends,
        privileged,
        stdin_script,
        tuple(dict.fromkeys(problems)),
        tuple(paths),
        tuple(chdir),
    )


FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def find_exec_commands(argv: Sequence[Word]) -> tuple[list[tuple[str, tuple[Word, ...]]], bool]:
    """The commands `find ... -exec CMD {} ;` runs, and whether every -exec was terminated."""
    found: list[tuple[str, tuple[Word, ...]]] = []
    complete = True
    i = 1
    while i < len(argv):
        if argv[i].text in FIND_EXEC:
            origin = "find " + argv[i].text
            j = i + 1
            while j < len(argv) and not (argv[j].text in (";", "+") and argv[j].resolved):
                j += 1
            if j >= len(argv):
                complete = False
            if j > i + 1:
                found.append((origin, tuple(argv[i + 1 : j])))
            i = j + 1
        else:
            i += 1
    return found, complete


def trap_script(argv: Sequence[Word]) -> tuple[str, bool] | None:
    """The action `trap 'ACTION' SIGNAL...` will run later, if any."""
    if len(argv) < 3:
        return None
    action = argv[1]
    if action.text.startswith("-") or action.text == "":
        return None
    return action.text, action.resolved


def bare_runner(words: Sequence[str]) -> bool:
    """Whether `words` (a rule's fixed prefix) is only wrappers with nothing inside them.

    `env`, `bash -c`, `timeout 10`, `sudo -u root`, `xargs -0` are bare; `timeout 10 npm` is not.
    """
    argv = tuple(literal_word(w) for w in words)
    if not argv:
        return True
    first = command_name(argv[0].text)
    if first in ("source", ".", "trap", "chroot"):
        return True
    result = unwrap(argv, default_inner=False)
    if result.scripts or not result.argv:
        return True
    head = command_name(result.argv[0].text)
    if head in SHELLS and len(result.argv) > 1 and not result.argv[1].text.startswith(("-", "+")):
        return False  # `bash script.sh`: one script, not any command
    return head in RUNNERS
