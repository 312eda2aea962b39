"""Commands with consequences: those never offered as an "always allow" rule, and those not to interrupt."""

from __future__ import annotations

from collections.abc import Sequence

from handrail.permissions.bash.model import Word
from handrail.permissions.bash.options import option_set

_DESTRUCTIVE = frozenset(
    {
        "rm",
        "rmdir",
        "shred",
        "dd",
        "mkfs",
        "wipefs",
        "fdisk",
        "sfdisk",
        "parted",
        "truncate",
        "kill",
        "killall",
        "pkill",
        "reboot",
        "shutdown",
        "halt",
        "poweroff",
        "srm",
        "unlink",
        "crontab",
        "chown",
        "userdel",
        "sudo",
        "doas",
        "su",
    }
)


def is_destructive(argv: Sequence[Word]) -> bool:
    """Commands never offered as an "always allow" rule: deleting, overwriting, force-pushing..."""
    if not argv:
        return False
    name = argv[0].text
    texts = [w.text for w in argv[1:]]
    if name in _DESTRUCTIVE or name.startswith("mkfs"):
        return True
    if name in ("chmod", "chgrp") and any(t in ("-R", "--recursive") for t in texts):
        return True
    if name == "find" and any(t in ("-delete", "-exec", "-execdir") for t in texts):
        return True
    if name == "git" and texts:
        sub = next((t for t in texts if not t.startswith("-")), "")
        rest = texts[texts.index(sub) + 1 :] if sub in texts else []
        if sub == "push" and any(
            t in ("-f", "--force", "--mirror", "--delete", "-d")
            or t.startswith("--force")
            or t.startswith("+")
            or t.startswith(":")
            for t in rest
        ):
            return True
        if sub == "reset" and "--hard" in rest:
            return True
        if sub in ("clean", "filter-branch", "filter-repo", "gc", "prune", "update-ref"):
            return True
        if sub in ("checkout", "restore") and ("." in rest or "--" in rest or "-f" in rest or "--force" in rest):
            return True
        if sub == "branch" and any(t in ("-D", "-d", "--delete", "-f", "--force") for t in rest):
            return True
        if sub == "stash" and rest[:1] in (["drop"], ["clear"]):
            return True
        if sub == "rebase" or (sub == "reflog" and rest[:1] in (["expire"], ["delete"])):
            return True
    if name in ("docker", "podman") and any(t in ("rm", "rmi", "prune", "kill") for t in texts[:3]):
        return True
    if name == "kubectl" and texts[:1] == ["delete"]:
        return True
    if name == "terraform" and texts[:1] in (["destroy"], ["apply"]):
        return True
    return name in ("npm", "yarn", "pnpm") and texts[:1] == ["publish"]


_MUST_FINISH_GIT = frozenset(
    {
        "commit",
        "push",
        "pull",
        "merge",
        "rebase",
        "cherry-pick",
        "revert",
        "am",
        "apply",
        "stash",
        "fetch",
        "clone",
        "checkout",
        "switch",
        "reset",
        "tag",
        "mv",
        "rm",
        "gc",
        "submodule",
        "worktree",
        "filter-branch",
    }
)
_INSTALLERS: dict[str, frozenset[str]] = {
    "npm": option_set("install i ci add uninstall remove rm update up publish link"),
    "yarn": option_set("install add remove upgrade up publish"),
    "pnpm": option_set("install i add remove rm update up publish"),
    "bun": option_set("install i add remove update"),
    "pip": option_set("install uninstall download"),
    "pip3": option_set("install uninstall download"),
    "uv": option_set("sync add remove pip lock tool"),
    "poetry": option_set("install add remove update lock"),
    "cargo": option_set("install add remove update publish uninstall"),
    "go": option_set("get install mod"),
    "gem": option_set("install uninstall update"),
    "bundle": option_set("install update"),
    "composer": option_set("install require update remove"),
    "apt": option_set("install remove purge upgrade dist-upgrade autoremove"),
    "apt-get": option_set("install remove purge upgrade dist-upgrade autoremove"),
    "dnf": option_set("install remove upgrade update"),
    "yum": option_set("install remove update"),
    "brew": option_set("install uninstall upgrade update reinstall"),
    "conda": option_set("install remove update create"),
    "mamba": option_set("install remove update create"),
}


def must_not_interrupt(argv: Sequence[Word]) -> bool:
    """Commands that leave a mess when killed half way: commits, pushes, merges, installs, migrations."""
    if not argv:
        return False
    name = argv[0].text
    texts = [w.text for w in argv[1:]]
    sub = next((t for t in texts if not t.startswith("-")), "")
    if name == "git":
        return sub in _MUST_FINISH_GIT
    if name in _INSTALLERS:
        return sub in _INSTALLERS[name]
    if name in ("python", "python3") and texts[:2] == ["-m", "pip"]:
        return len(texts) > 2 and texts[2] in ("install", "uninstall")
    return name in ("dd", "rsync", "terraform", "alembic", "flyway") or (name == "make" and "install" in texts)
