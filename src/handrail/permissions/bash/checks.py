"""Security checks on a command line: each finding has an id and a sentence the user can read.

A flagged command is never allowed without asking, whatever the rules say (deny rules still
deny). `script_reasons` looks at the text and structure of the whole line (control and invisible
characters, look-alike letters, line continuations inside words, padding, comment/quote desync,
parse problems...); `command_reasons` at one command that would run (obfuscated flags and names,
dangerous variables, `sed`'s `e`/`w`, `awk`'s `system()`, `jq` files, `git -c` and friends,
`find -delete`, zsh's dangerous builtins, privilege escalation, shells reading code from stdin...).

Redirections are not flagged here: the analyser reports their targets, so they are checked as
file reads and writes. `2>&1`, `>/dev/null` and the like are harmless.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from handrail.permissions.bash.effective import Effective
from handrail.permissions.bash.env_vars import is_dangerous, is_dangerous_name
from handrail.permissions.bash.model import Assignment, ParsedScript, Reason, SimpleCommand, Word
from handrail.permissions.bash.parse import PROBLEM_MESSAGES
from handrail.permissions.bash.readonly import READ_ONLY_NAMES
from handrail.permissions.bash.readonly.awk import awk_call, awk_program
from handrail.permissions.bash.readonly.git import git_call
from handrail.permissions.bash.readonly.jq import jq_call, jq_program
from handrail.permissions.bash.readonly.sed import sed_call, sed_script
from handrail.permissions.bash.wrappers import base_name

CHECK_MESSAGES: dict[str, str] = {
    **PROBLEM_MESSAGES,
    "unresolved_command": "the command name comes from an expansion, so what runs is not known in advance",
    "unresolved_argument": "an argument comes from an expansion the analyser cannot resolve",
    "command_substitution": "command substitution runs a command and splices its output into another",
    "control_characters": "control characters (carriage return, escape, NUL...) that shell and screen read differently",
    "invisible_unicode": "invisible or bidirectional-control characters that hide what the command says",
    "unicode_whitespace": "unicode spaces the shell does not treat as spaces",
    "unicode_lookalike": "non-ASCII characters outside quotes (look-alikes of shell syntax or command names)",
    "line_continuation": "a backslash-newline inside a word, which joins two lines into one word",
    "whitespace_padding": "long runs of blank space that push part of the command out of sight",
    "comment_quote_desync": "a quote inside a comment followed by more commands",
    "mid_word_hash": "a `#` inside a word (not a comment in bash, a comment to other readers)",
    "newline_in_word": "a newline inside a command name or an option",
    "obfuscated_flag": "an option written with quotes or escapes inside it",
    "obfuscated_command": "a command name written with quotes or escapes",
    "ansi_c_quoting": "ANSI-C quoting ($'...') can spell any character",
    "escaped_operator": "a backslash-escaped shell operator",
    "escaped_whitespace": "a backslash-escaped space inside a command name or option",
    "shell_metacharacters": "shell metacharacters in an argument a remote or nested shell will interpret",
    "exec_option": "an option that makes the command run another program",
    "dangerous_variable": "an assignment to a variable that makes the shell or a program run code",
    "ifs_variable": "use of $IFS, which changes how the shell splits words",
    "proc_environ": "reads process environments under /proc (secrets)",
    "jq_exec": "a jq program that mentions system",
    "jq_file": "jq reading a program, module or data from files",
    "sed_exec": "a sed script with the `e` command or flag, which runs shell commands",
    "sed_write": "a sed script with the `w` command or flag, which writes files",
    "sed_file": "a sed script with the `r`/`R` command, which reads other files",
    "sed_in_place": "sed -i edits files in place",
    "sed_unverified": "a sed script the analyser cannot read (or read from a file)",
    "awk_exec": "an awk program that runs commands (system(), pipes) or loads extensions",
    "awk_write": "an awk program that writes files",
    "awk_program_file": "awk running a program from a file",
    "git_config_override": "git -c/--config-env overrides configuration, which can run any command",
    "git_exec": "git options that run a program (--upload-pack, --exec, rebase -x, ext::...)",
    "git_config_exec": "git config setting a key whose value git runs as a command (aliases, sshCommand...)",
    "find_delete": "find -delete removes files",
    "find_write": "find -fprint/-fls writes files",
    "zsh_dangerous": "a zsh builtin that loads modules, opens sockets or files, or evaluates code",
    "zsh_expansion": "zsh `=command` expansion",
    "dangerous_builtin": "a shell builtin that changes what later commands run (alias, enable -f, hash -p, fc...)",
    "privileged": "runs a command with elevated privileges (sudo, doas, su)",
    "shell_reads_stdin": "a shell that reads the code it runs from its input",
    "network_redirect": "a redirection to /dev/tcp or /dev/udp (a network connection)",
    "function_shadowing": "a function with the name of a command",
    "wrapper_option": "a wrapper command with options the analyser does not know",
    "unresolved_wrapper": "a wrapper command whose arguments come from expansions",
    "env_split_string": "env -S splits a string into a command",
    "shell_startup_file": "a shell told to read a startup file",
    "too_many_wrappers": "too many nested wrapper commands",
    "unresolved_script": "a script built from expansions",
    "nesting_too_deep": "shell code nested too deeply",
    "placeholder_in_script": "xargs -I or find -exec splices each input into a script a shell or interpreter runs, "
    "so a file name or a line of input runs as code",
    "paths_from_file": "it reads the names of the files it opens from a file or from its input, "
    "so which files it reads is not known in advance",
}


def render_text(argv: Sequence[Word]) -> str:
    return " ".join(w.text for w in argv)


def reason(check_id: str, detail: str = "") -> Reason:
    message = CHECK_MESSAGES.get(check_id, check_id)
    return Reason(check_id, f"{message}: {detail}" if detail else message)


# ---------------------------------------------------------------------------- whole line

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_IFS = re.compile(r"\$\{?[!#]?IFS\b")
_DANGEROUS_REFERENCE = re.compile(r"\$\{?[!#]?(BASH_ENV|ENV|PS[1-4]|PROMPT_COMMAND|BASH_FUNC_\w+|SHELLOPTS|BASHOPTS)\b")
_PROC_ENVIRON = re.compile(r"/proc/[^\s/]*/+environ|/proc/[^\s]*environ")


def _in_spans(index: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(start <= index < end for start, end in spans)


def script_reasons(script: ParsedScript) -> list[Reason]:
    """Checks on the text and structure of one parsed line (or nested script)."""
    found: list[Reason] = [reason(p.id) for p in script.problems]
    source = script.source
    control = _CONTROL.search(source)
    if control is not None:
        found.append(reason("control_characters", f"U+{ord(control.group()):04X} at offset {control.start()}"))
    if not source.isascii():
        found.extend(_unicode_reasons(script))
    found.extend(_continuations(script))
    unquoted = _blank_spans(source, (*script.quoted_spans, *script.comment_spans))
    if re.search(r"[ \t]{40,}\S", unquoted) or re.search(r"(?:[ \t]*\n){15,}[ \t]*\S", unquoted):
        found.append(reason("whitespace_padding"))
    for escaped in re.finditer(r"(?<!\\)(?:\\\\)*\\[ \t]", unquoted):
        where = escaped.end() - 2
        if not _in_spans(where, script.word_spans):
            # `\ eval`, `''\ x`: an escaped space outside any word, which tree-sitter drops but bash keeps
            found.append(reason("escaped_whitespace", f"an escaped space at offset {where}"))
            break
    for (_, end), text in zip(script.comment_spans, script.comments, strict=False):
        if any(q in text for q in "'\"`") and source[end:].strip():
            found.append(reason("comment_quote_desync", text.strip()[:60]))
            break
    stripped = source.strip()
    if stripped.startswith(("-", "&&", "||", "|", ";", "&", ")")) or stripped.endswith(("|", "&&", "||")):
        found.append(reason("incomplete_command"))
    trailing = len(stripped) - len(stripped.rstrip("\\"))
    if trailing % 2 == 1:
        found.append(reason("incomplete_command", "it ends with a backslash"))
    if _IFS.search(source):
        found.append(reason("ifs_variable"))
    match = _DANGEROUS_REFERENCE.search(source)
    if match is not None:
        found.append(reason("dangerous_variable", f"${match.group(1)}"))
    if _PROC_ENVIRON.search(source):
        found.append(reason("proc_environ"))
    shadowing = sorted({name for name in script.functions if name in _KNOWN_COMMANDS or name in READ_ONLY_NAMES})
    if shadowing:
        found.append(reason("function_shadowing", ", ".join(shadowing)))
    return found


_KNOWN_COMMANDS = frozenset(
    {
        "ls",
        "cat",
        "git",
        "cd",
        "echo",
        "grep",
        "rg",
        "find",
        "sed",
        "awk",
        "npm",
        "python",
        "python3",
        "node",
        "test",
        "pwd",
        "rm",
        "cp",
        "mv",
        "make",
        "cargo",
        "go",
        "head",
        "tail",
        "wc",
        "sort",
        "command",
        "builtin",
        "exec",
        "eval",
        "source",
        "printf",
        "read",
        "set",
        "unset",
        "export",
        "alias",
        "type",
        "which",
        "env",
    }
)


def _blank_spans(source: str, spans: Iterable[tuple[int, int]]) -> str:
    """`source` with the given ranges overwritten by `x` (newlines kept), for checks on unquoted text."""
    out: list[str] = []
    position = 0
    for span_start, end in sorted(spans):
        start = max(span_start, position)
        if end <= start:
            continue
        out.append(source[position:start])
        out.append(_NOT_NEWLINE.sub("x", source[start:end]))
        position = end
    out.append(source[position:])
    return "".join(out)


_NOT_NEWLINE = re.compile(r"[^\n]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _unicode_reasons(script: ParsedScript) -> list[Reason]:
    found: dict[str, str] = {}
    spans = (*script.quoted_spans, *script.comment_spans)
    for match in _NON_ASCII.finditer(script.source):
        index, char = match.start(), match.group()
        category = unicodedata.category(char)
        label = f"U+{ord(char):04X} {unicodedata.name(char, 'unnamed')}"
        if category == "Cc":
            found.setdefault("control_characters", label)
        elif category == "Cf":
            found.setdefault("invisible_unicode", label)
        elif category in ("Zs", "Zl", "Zp"):
            found.setdefault("unicode_whitespace", label)
        elif not _in_spans(index, spans):
            found.setdefault("unicode_lookalike", f"{char!r} ({label})")
    return [reason(k, v) for k, v in found.items()]


def _continuations(script: ParsedScript) -> list[Reason]:
    source = script.source
    spans = (*script.quoted_spans, *script.comment_spans)
    start = 0
    while True:
        index = source.find("\\\n", start)
        if index == -1:
            return []
        start = index + 2
        run = 0
        while index - run >= 0 and source[index - run] == "\\":
            run += 1
        if run % 2 == 0 or _in_spans(index, spans):
            continue
        before = source[index - run] if index - run >= 0 else "\n"
        after = source[index + 2] if index + 2 < len(source) else " "
        if before == "\n":
            # a line that is only `\`: bash continues an empty line, tree-sitter the previous command
            return [reason("line_continuation", f"a line starting with a backslash-newline at offset {index}")]
        if not before.isspace() and not after.isspace():
            return [reason("line_continuation", f"at offset {index}")]


# ---------------------------------------------------------------------------- one command

_FLAG = re.compile(r"^--?[A-Za-z0-9][A-Za-z0-9_.-]*$")
_ESCAPED_OPERATOR = re.compile(r"(?<!\\)(?:\\\\)*\\[;|&<>()]")
_ESCAPED_SPACE = re.compile(r"(?<!\\)(?:\\\\)*\\[ \t]")
ZSH_DANGEROUS = frozenset(
    {
        "zmodload",
        "zpty",
        "ztcp",
        "zsocket",
        "sysopen",
        "syswrite",
        "sysread",
        "sysseek",
        "zselect",
        "zsystem",
        "emulate",
        "zcompile",
        "sched",
        "zle",
        "autoload",
        "zparseopts",
        "zstat",
        "zftp",
    }
)
# options of everyday tools that run another program
EXEC_OPTIONS: dict[str, tuple[str, ...]] = {
    "rg": ("--pre", "--pre-glob", "--hostname-bin"),
    "sort": ("--compress-program",),
    "man": ("-H", "--html", "-P", "--pager", "-B", "--browser"),
    "tar": (
        "--to-command",
        "--use-compress-program",
        "-I",
        "--checkpoint-action",
        "--info-script",
        "-F",
        "--new-volume-script",
        "--rsh-command",
    ),
    "zip": ("-TT", "--unzip-command"),
    "rsync": ("-e", "--rsh", "--rsync-path"),
    "ssh": ("-oProxyCommand", "-oLocalCommand", "-oPermitLocalCommand"),
    "scp": ("-S", "-oProxyCommand"),
    "git": ("--ext-diff", "--open-files-in-pager", "-O"),
    "less": ("",),
    "more": ("",),
    "vim": ("-c", "--cmd", "-S"),
    "vi": ("-c", "--cmd", "-S"),
    "nvim": ("-c", "--cmd", "-S", "-l"),
    "psql": ("-c",),
}


def _exec_option(name: str, argv: Sequence[Word]) -> str:
    """The option of `name` in `argv` that runs another program, if any ("" for less/more: LESSOPEN)."""
    options = EXEC_OPTIONS[name]
    if options == ("",):
        return "(runs $LESSOPEN)"
    words = [w.text for w in argv[1:]]
    if name == "git":
        sub = next((w for w in words if not w.startswith("-")), "")
        if sub != "grep":
            options = tuple(o for o in options if o != "-O")
    for index, text in enumerate(words):
        joined = text
        if text == "-o" and index + 1 < len(words):
            joined = "-o" + words[index + 1].replace(" ", "")
        for option in options:
            if (
                joined == option
                or joined.startswith(option + "=")
                or (option.startswith("-o") and joined.lower().startswith(option.lower()))
                or (len(option) == 2 and joined.startswith(option) and not joined.startswith("--"))
            ):
                return text
    return ""


_CHECK_LISTS = ("-c", "--check")
# options that make a command read the names of the files it opens from a file or from its input
PATHS_FROM_FILE: dict[str, tuple[str, ...]] = {
    "wc": ("--files0-from",),
    "du": ("--files0-from",),
    "sort": ("--files0-from",),
    "find": ("-files0-from",),
    "tar": ("-T", "--files-from"),
    "rsync": ("--files-from",),
    "file": ("-f", "--files-from"),
    "zip": ("-@", "--names-stdin"),
    "cpio": ("-o", "--create", "-p", "--pass-through"),
    "git": ("--pathspec-from-file",),
    "curl": ("-K", "--config"),
    **dict.fromkeys(
        ("md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "shasum"),
        _CHECK_LISTS,
    ),
}


def _option_in(texts: Sequence[str], options: Sequence[str]) -> str | None:
    """The first of `texts` naming one of `options`: alone, with `=value`, or (a short one) with its value attached."""
    for text in texts:
        if text == "--":
            return None
        for option in options:
            short = len(option) == 2 and not text.startswith("--")
            if text == option or text.startswith(option + "=") or (short and text.startswith(option)):
                return text
    return None


SHELL_PASSING = frozenset({"ssh", "tmux", "screen", "at", "batch", "parallel", "sshpass", "dbus-send", "osascript"})
_METACHARACTERS = re.compile(r"[;|&`<>\n]|\$\(")
_GIT_EXEC_OPTIONS = ("--upload-pack", "--receive-pack", "--exec")
_GIT_EXEC_KEYS = re.compile(
    r"^(?:alias\..*|core\.(?:sshcommand|pager|editor|fsmonitor|hookspath|gitproxy|askpass|attributesfile)|"
    r"diff\..*|difftool\..*|merge\..*|mergetool\..*|filter\..*|credential\..*|sequence\.editor|gpg\..*|"
    r"include\..*|includeif\..*|uploadpack\..*|pager\..*|protocol\..*|remote\..*\.(?:uploadpack|receivepack|vcs)|"
    r"url\..*|http\..*|ssh\..*|interactive\.difffilter|browser\..*|web\.browser|man\..*|help\..*|"
    r"instaweb\..*|sendemail\..*|receive\..*|push\..*|submodule\..*)$",
    re.IGNORECASE,
)


def _flag_name(word: Word) -> tuple[str, str]:
    name, _, _ = word.text.partition("=")
    return name, word.mask[: len(name)]


def command_reasons(effective: Effective) -> list[Reason]:
    found: list[Reason] = []
    argv = effective.argv
    source = effective.source
    found.extend(reason(problem) for problem in (*source.problems, *effective.problems))
    all_words = [*argv, *(w for layer in effective.layers for w in layer.argv)]
    if argv:
        head = argv[0]
        if not head.resolved:
            found.append(reason("unresolved_command", head.raw))
        elif "q" in head.mask or "\\" in head.raw:
            found.append(reason("obfuscated_command", head.raw))
        if "\n" in head.text:
            found.append(reason("newline_in_word", head.raw))
        if head.resolved and not head.text.isascii():
            found.append(reason("unicode_lookalike", head.text))
    unresolved = [w.raw for w in all_words[1:] if not w.resolved]
    unresolved += [a.raw for a in effective.env if a.value is not None and not a.value.resolved]
    unresolved += [r.target.raw for r in source.redirects if r.target is not None and not r.target.resolved]
    if unresolved:
        found.append(reason("unresolved_argument", ", ".join(unresolved[:3])))
    for word in all_words:
        if word.ansi_c:
            found.append(reason("ansi_c_quoting", word.raw))
            break
    for word in all_words[1:]:
        if word.text.startswith("-") and _FLAG.match(_flag_name(word)[0]):
            name, mask = _flag_name(word)
            if "q" in mask:
                found.append(reason("obfuscated_flag", word.raw))
                break
            if "\n" in name:
                found.append(reason("newline_in_word", word.raw))
    found.extend(_escapes(effective, all_words))
    for word in all_words:
        if "#" not in word.text[1:]:
            continue
        if any(c == "#" and m == "u" for c, m in zip(word.text[1:], word.mask[1:], strict=False)):
            found.append(reason("mid_word_hash", word.raw))
            break
    found.extend(_assignment_reasons([*effective.env, *(a for a in source.assignments if a not in effective.env)]))
    for redirect in source.redirects:
        if redirect.target is not None and redirect.target.text.startswith(("/dev/tcp/", "/dev/udp/")):
            found.append(reason("network_redirect", redirect.target.text))
    if effective.privileged:
        runners = ("sudo", "doas", "su", "runuser")
        runner = next((layer.name for layer in effective.layers if layer.name in runners), "")
        text = render_text(argv)
        found.append(reason("privileged", f"{runner} {text}".strip() if runner else text))
    fed = source.piped_input or any(r.kind in ("read", "heredoc", "herestring") for r in source.redirects)
    if fed and (effective.reads_stdin_script or (_interpreter_reads_stdin(argv) and not _literal_stdin(source))):
        found.append(reason("shell_reads_stdin", effective.written or effective.name))
    if argv and argv[0].resolved:
        found.extend(_program_reasons(effective))
        for assigned in _assigned_names(argv):
            if assigned.split("[", 1)[0] == "IFS":
                found.append(reason("ifs_variable", f"{argv[0].text} sets IFS"))
            elif is_dangerous_name(assigned):
                found.append(reason("dangerous_variable", f"{argv[0].text} sets {assigned}"))
            if not _plain_name(assigned):
                found.append(reason("arithmetic", f"{argv[0].text} sets {assigned}"))
        found.extend(arithmetic_reasons(argv, ()))
    found.extend(arithmetic_reasons((), effective.env))
    return found


_INTEGER = re.compile(r"^[+-]?[0-9]+$")
_NAME_WITH_INDEX = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\[[0-9]+\])?$")
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})


def _plain_name(name: str) -> bool:
    """A variable name, or an array element with a literal index (any other subscript is arithmetic)."""
    return _NAME_WITH_INDEX.match(name) is not None


def arithmetic_reasons(argv: Sequence[Word], assignments: Iterable[Assignment]) -> list[Reason]:
    """Places where bash evaluates arithmetic on text, which runs `$(...)` hidden in array subscripts.

    `[[ x -eq 1 ]]` evaluates the variable x, whose value may be `a[$(cmd)]`; so do `a[x]=1`,
    `declare -i n=x`, `let`, `test -v 'a[$(cmd)]'`, `printf -v 'a[...]'`, `read 'a[...]'`.
    """
    found: list[Reason] = []
    for assignment in assignments:
        if not _plain_name(assignment.name):
            found.append(reason("arithmetic", f"the subscript in {assignment.raw}"))
    if not argv:
        return found
    name = argv[0].text
    texts = [w.text for w in argv]
    if name in ("[[", "[", "test"):
        for index, text in enumerate(texts):
            if text in _ARITHMETIC_TESTS:
                operands = texts[index - 1 : index] + texts[index + 1 : index + 2]
                if not all(_INTEGER.match(operand) for operand in operands):
                    found.append(reason("arithmetic", f"{' and '.join(operands)} compared with {text}"))
            elif text == "-v" and index + 1 < len(texts) and "[" in texts[index + 1]:
                found.append(reason("arithmetic", f"-v {texts[index + 1]}"))
    elif name == "let":
        found.append(reason("arithmetic", "let"))
    elif name in ("declare", "typeset", "local", "readonly", "export"):
        options = "".join(t[1:] for t in texts[1:] if t.startswith("-"))
        if "n" in options:
            found.append(reason("arithmetic", f"{name} -n makes a reference"))
        if "i" in options:
            for assignment in assignments:
                if assignment.value is not None and not _INTEGER.match(assignment.value.text):
                    found.append(reason("arithmetic", f"an integer variable evaluates {assignment.raw}"))
    elif name == "unset":
        for text in texts[1:]:
            if not text.startswith("-") and not _plain_name(text):
                found.append(reason("arithmetic", f"unset {text}"))
    elif name in ("mapfile", "readarray") and any(t.startswith("-") and "C" in t for t in texts[1:]):
        found.append(reason("dangerous_builtin", f"{name} -C runs a callback"))
    elif name in ("compgen", "complete") and any(t.startswith("-") and ("C" in t or "F" in t) for t in texts[1:]):
        found.append(reason("dangerous_builtin", f"{name} runs a command or function"))
    return found


INTERPRETERS = frozenset(
    {
        "python",
        "python2",
        "python3",
        "node",
        "perl",
        "ruby",
        "php",
        "lua",
        "deno",
        "bun",
        "Rscript",
        "tclsh",
        "osascript",
    }
)
_INLINE_CODE = frozenset({"-c", "-e", "-E", "-r", "--eval", "-p", "--print"})


def _interpreter_reads_stdin(argv: Sequence[Word]) -> bool:
    """`python3`, `node -`, `perl` with no script: they run the code piped into them."""
    if not argv or base_name(argv[0].text).rstrip("0123456789.") not in INTERPRETERS | {"python"}:
        return False
    for word in argv[1:]:
        if word.text == "-":
            return True
        if word.text in _INLINE_CODE or word.text == "-m":
            return False
        if not word.text.startswith("-"):
            return False  # a script file
    return True


def _literal_stdin(source: SimpleCommand) -> bool:
    """Whether a command's input is only text written on the line (`<<'EOF'`, `<<< 'code'`), not a pipe or a file.

    An interpreter given its program that way runs exactly what the line shows, as with `-c`:
    a rule allowing the interpreter covers it.
    """
    feeds = [r for r in source.redirects if r.kind in ("read", "heredoc", "herestring")]
    return (
        not source.piped_input
        and bool(feeds)
        and all(
            (r.kind == "heredoc" and r.heredoc_quoted)
            or (r.kind == "herestring" and r.target is not None and r.target.resolved)
            for r in feeds
        )
    )


# builtins that assign a variable named by an argument
_ASSIGNING = {"printf": ("-v",), "read": (), "mapfile": (), "readarray": (), "getopts": ()}


def _assigned_names(argv: Sequence[Word]) -> list[str]:
    name = argv[0].text if argv else ""
    if name not in _ASSIGNING:
        return []
    texts = [w.text for w in argv[1:]]
    if name == "printf":
        return [texts[i + 1] for i, t in enumerate(texts[:-1]) if t == "-v"]
    if name == "getopts":
        return texts[1:2]
    valued = {"-a", "-d", "-i", "-n", "-N", "-p", "-t", "-u", "-C", "-c", "-O", "-s"}
    names: list[str] = []
    skip = False
    for text in texts:
        if skip:
            skip = False
            continue
        if text.startswith("-"):
            skip = text in valued
            if text == "-a" or (name == "read" and text.startswith("-") and "a" in text[1:]):
                skip = True
            continue
        names.append(text)
    return names


def _escapes(effective: Effective, words: Sequence[Word]) -> list[Reason]:
    found: list[Reason] = []
    in_find = effective.name == "find"
    for index, word in enumerate(words):
        find_syntax = in_find and word.text in (";", "(", ")", "!", "+")
        if _ESCAPED_OPERATOR.search(word.raw) and not word.raw.startswith(("'", '"')) and not find_syntax:
            found.append(reason("escaped_operator", word.raw))
            break
        if (index == 0 or word.text.startswith("-")) and _ESCAPED_SPACE.search(word.raw):
            found.append(reason("escaped_whitespace", word.raw))
            break
    return found


def _assignment_reasons(assignments: Iterable[Assignment]) -> list[Reason]:
    found: list[Reason] = []
    for assignment in assignments:
        if assignment.name.split("[", 1)[0] == "IFS":
            found.append(reason("ifs_variable", assignment.raw))
        elif is_dangerous(assignment):
            found.append(reason("dangerous_variable", assignment.raw))
    return found


def declaration_reasons(effective: Effective) -> list[Reason]:
    """Checks for `export`/`declare`/`local`/bare assignments (kinds other than simple commands)."""
    found = [reason(problem) for problem in effective.source.problems]
    found.extend(_assignment_reasons(effective.source.assignments))
    found.extend(arithmetic_reasons(effective.source.argv, effective.source.assignments))
    unresolved = [w.raw for w in effective.argv if not w.resolved]
    unresolved += [a.raw for a in effective.source.assignments if a.value is not None and not a.value.resolved]
    if unresolved:
        found.append(reason("unresolved_argument", ", ".join(unresolved[:3])))
    return found


def _program_reasons(effective: Effective) -> list[Reason]:
    argv = effective.argv
    name = argv[0].text
    texts = [w.text for w in argv[1:]]
    found: list[Reason] = []
    if name == "jq":
        call = jq_call(argv)
        if call.file_options:
            found.append(reason("jq_file", call.file_options[0]))
        if call.program is not None:
            runs, imports = jq_program(call.program.text)
            if runs:
                found.append(reason("jq_exec", call.program.text[:60]))
            if imports:
                found.append(reason("jq_file", "import/include"))
    elif name in ("sed", "gsed"):
        found.extend(_sed_reasons(argv))
    elif name in ("awk", "gawk", "mawk", "nawk"):
        call_awk = awk_call(argv)
        if call_awk.program_file:
            found.append(reason("awk_program_file"))
        if call_awk.extension:
            found.append(reason("awk_exec", "-i/-l loads code"))
        if call_awk.program is not None and call_awk.program.resolved:
            runs, writes = awk_program(call_awk.program.text)
            if runs:
                found.append(reason("awk_exec", call_awk.program.text[:60]))
            if writes:
                found.append(reason("awk_write", call_awk.program.text[:60]))
    elif name == "git":
        found.extend(_git_reasons(argv))
    elif name == "find":
        if "-delete" in texts:
            found.append(reason("find_delete"))
        written = [t for t in texts if t in ("-fprint", "-fprint0", "-fprintf", "-fls")]
        if written:
            found.append(reason("find_write", written[0]))
    elif name in ZSH_DANGEROUS or name.startswith("zf_"):
        found.append(reason("zsh_dangerous", name))
    elif name in ("alias", "fc") or (name == "enable" and "-f" in texts) or (name == "hash" and "-p" in texts):
        found.append(reason("dangerous_builtin", name))
    elif name == "bind" and "-x" in texts:
        found.append(reason("dangerous_builtin", "bind -x"))
    if name in PATHS_FROM_FILE:
        listed = _option_in(texts, PATHS_FROM_FILE[name])
        if listed is not None:
            found.append(reason("paths_from_file", f"{name} {listed}"))
    if name in EXEC_OPTIONS:
        hit = _exec_option(name, argv)
        if hit:
            found.append(reason("exec_option", f"{name} {hit}"))
    if name in SHELL_PASSING:
        for word in argv[1:]:
            if _METACHARACTERS.search(word.text):
                found.append(reason("shell_metacharacters", f"{name} … {word.raw[:60]}"))
                break
    if effective.source.kind == "command":
        for word in argv:
            if (
                word.text.startswith("=")
                and len(word.text) > 1
                and word.mask[:1] == "u"
                and (word.text[1].isalnum() or word.text[1] in "(/_")
            ):
                found.append(reason("zsh_expansion", word.raw))
                break
    return found


def _sed_reasons(argv: Sequence[Word]) -> list[Reason]:
    found: list[Reason] = []
    call = sed_call(argv)
    if call.in_place:
        found.append(reason("sed_in_place", " ".join(w.text for w in call.files)[:80]))
    if call.script_file:
        found.append(reason("sed_unverified", "-f"))
    for script in call.scripts:
        if not script.resolved:
            continue
        used, ok = sed_script(script.text)
        if not ok:
            found.append(reason("sed_unverified", script.text[:60]))
        if "e" in used or "s_e" in used:
            found.append(reason("sed_exec", script.text[:60]))
        if used & {"w", "W", "s_w"}:
            found.append(reason("sed_write", script.text[:60]))
        if used & {"r", "R"}:
            found.append(reason("sed_file", script.text[:60]))
    return found


def _git_reasons(argv: Sequence[Word]) -> list[Reason]:
    found: list[Reason] = []
    call = git_call(argv)
    if call.config or call.config_env:
        keys = ", ".join(w.text.split("=", 1)[0] for w in call.config) or "--config-env"
        found.append(reason("git_config_override", keys))
    if call.exec_path_set:
        found.append(reason("git_exec", "--exec-path"))
    sub = call.subcommand.text if call.subcommand is not None else ""
    texts = [w.text for w in call.args]
    for text in texts:
        if text.split("=", 1)[0] in _GIT_EXEC_OPTIONS:
            found.append(reason("git_exec", text))
            break
        if "ext::" in text or text.startswith("fd::"):
            found.append(reason("git_exec", text))
            break
    positionals = [t for t in texts if not t.startswith("-")]
    if sub in ("clone", "ls-remote") and any(
        t == "-u" or (t.startswith("-u") and not t.startswith("--")) for t in texts
    ):
        found.append(reason("git_exec", "-u (upload-pack)"))
    if sub == "rebase" and any(t in ("-x", "--exec") or t.startswith("--exec=") or t.startswith("-x") for t in texts):
        found.append(reason("git_exec", "rebase --exec"))
    if (sub == "submodule" and "foreach" in positionals) or (sub == "bisect" and positionals[:1] == ["run"]):
        found.append(reason("git_exec", f"{sub} {positionals[0] if positionals else ''}".strip()))
    if sub in ("filter-branch", "difftool", "mergetool") and (
        sub == "filter-branch"
        or any(t in ("-x", "--extcmd", "-t", "--tool") or t.startswith("--extcmd=") for t in texts)
    ):
        found.append(reason("git_exec", sub))
    if sub == "config":
        config_keys = [
            t
            for t in positionals
            if t not in ("set", "get", "unset", "list", "edit", "rename-section", "remove-section")
        ]
        if (
            config_keys
            and _GIT_EXEC_KEYS.match(config_keys[0])
            and not any(
                t in ("--get", "--get-all", "--get-regexp", "--list", "-l", "--unset", "--unset-all") for t in texts
            )
            and positionals[:1] not in (["get"], ["list"], ["unset"])
        ):
            found.append(reason("git_config_exec", config_keys[0]))
        if "-e" in texts or "--edit" in texts or positionals[:1] == ["edit"]:
            found.append(reason("git_config_exec", "--edit"))
    return found
