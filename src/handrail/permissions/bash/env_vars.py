"""Leading environment assignments: which are harmless, which hand the shell or a program code to run.

`FOO=1 npm test` is covered by `Bash(npm test:*)` only when every assignment is on the safe list
(locale, colours, time zone, a few build switches) with a plain value. Any other assignment means
a prefix rule does not cover the command (an exact rule written with the assignment still can).
Assignments to the variables in `DANGEROUS` (or matching `DANGEROUS_PATTERNS`) are flagged: they
make a shell, a loader, git or an interpreter run code of the attacker's choosing.
"""

from __future__ import annotations

import re

from handrail.permissions.bash.model import Assignment

SAFE: frozenset[str] = frozenset(
    {
        "LANG",
        "LANGUAGE",
        "TZ",
        "NO_COLOR",
        "FORCE_COLOR",
        "CLICOLOR",
        "CLICOLOR_FORCE",
        "COLORTERM",
        "TERM",
        "COLUMNS",
        "LINES",
        "RUST_BACKTRACE",
        "RUST_LOG",
        "CARGO_TERM_COLOR",
        "PYTHONUNBUFFERED",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONIOENCODING",
        "PYTHONHASHSEED",
        "PYTHONUTF8",
        "GOOS",
        "GOARCH",
        "GOARM",
        "CGO_ENABLED",
        "GO111MODULE",
        "NODE_ENV",
        "CI",
        "DEBUG",
        "VERBOSE",
        "TEST_VERBOSE",
        "HOMEBREW_NO_AUTO_UPDATE",
        "DOTNET_CLI_TELEMETRY_OPTOUT",
        "NEXT_TELEMETRY_DISABLED",
        "GIT_TERMINAL_PROMPT",
        "NPM_CONFIG_COLOR",
        "PIP_DISABLE_PIP_VERSION_CHECK",
        "PIP_NO_INPUT",
    }
)
SAFE_PREFIXES: tuple[str, ...] = ("LC_",)

# values must be plain words: no paths that could point at code, no spaces, no expansions
_SAFE_VALUE = re.compile(r"^[A-Za-z0-9_.,:@+\-/=*]*$")

DANGEROUS: frozenset[str] = frozenset(
    {
        "IFS",
        "BASH_ENV",
        "ENV",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "PROMPT_COMMAND",
        "PROMPT_DIRTRIM",
        "SHELLOPTS",
        "BASHOPTS",
        "GLOBIGNORE",
        "CDPATH",
        "PATH",
        "HOME",
        "ZDOTDIR",
        "HISTFILE",
        "BASH_XTRACEFD",
        "EXECIGNORE",
        "FPATH",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "LD_AUDIT",
        "PAGER",
        "MANPAGER",
        "SYSTEMD_PAGER",
        "EDITOR",
        "VISUAL",
        "BROWSER",
        "LESSOPEN",
        "LESSCLOSE",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "NODE_OPTIONS",
        "NODE_PATH",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "PYTHONWARNINGS",
        "PYTHONBREAKPOINT",
        "PYTEST_ADDOPTS",
        "PYTEST_PLUGINS",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "PERL5DB",
        "RUBYOPT",
        "RUBYLIB",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "MAVEN_OPTS",
        "GRADLE_OPTS",
        "RUSTC_WRAPPER",
        "RUSTC",
        "RUSTFLAGS",
        "CARGO_BUILD_RUSTC_WRAPPER",
        "GOFLAGS",
        "CC",
        "CXX",
        "LD",
        "MAKEFLAGS",
        "MAKE",
        "SHELL",
        "TERMINFO",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "DOCKER_HOST",
        "KUBECONFIG",
        "NPM_CONFIG_SCRIPT_SHELL",
        "NPM_CONFIG_PREFIX",
        "NPM_CONFIG_USERCONFIG",
        "NPM_CONFIG_GLOBALCONFIG",
    }
)
DANGEROUS_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"^(?:LD|DYLD)_"),
    re.compile(
        r"^GIT_(?:SSH|EXTERNAL_DIFF|PAGER|EDITOR|SEQUENCE_EDITOR|ASKPASS|EXEC_PATH|CONFIG|DIR$|WORK_TREE|"
        r"TEMPLATE_DIR|PROXY_COMMAND|CEILING_DIRECTORIES|DIFF_OPTS|TRACE)"
    ),
    re.compile(r"^BASH_FUNC_"),
    re.compile(r"^npm_config_", re.IGNORECASE),
    re.compile(r"_OPTIONS$"),
)


def is_safe_name(name: str) -> bool:
    return name in SAFE or name.startswith(SAFE_PREFIXES)


def is_safe(assignment: Assignment) -> bool:
    """Whether a prefix rule may ignore this leading assignment."""
    if not is_safe_name(assignment.name):
        return False
    value = assignment.value
    if value is None:
        return True
    return value.resolved and not value.ansi_c and _SAFE_VALUE.match(value.text) is not None


def is_dangerous_name(name: str) -> bool:
    base = name.split("[", 1)[0]
    if is_safe_name(base):
        return False
    return base in DANGEROUS or any(p.search(base) for p in DANGEROUS_PATTERNS)


def is_dangerous(assignment: Assignment) -> bool:
    return is_dangerous_name(assignment.name)
