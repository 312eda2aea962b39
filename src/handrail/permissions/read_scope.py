"""What may be read without anyone naming it: files inside the working directories that no deny rule covers.

The decision pipeline decides a call by the paths it names. Grep and Glob report files the model
never named (everything below the folder they search), and project instructions are read before the
model asks for anything, so the files they reach are decided here, each with the pipeline's own
compiled rules (`PermissionContext.file_rules`) on the same forms of its path: absolute as written,
and resolved.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from handrail.permissions.context import PermissionContext
from handrail.permissions.decision import PASSTHROUGH, PermissionCheck
from handrail.permissions.file_rules import FileRules, call_candidates
from handrail.permissions.paths import Roots
from handrail.permissions.rules import PermissionRule

# Names no rule can spell (rules refuse NUL): a rule matches both only when it matches any name at all.
_ANY_NAMES = ("\0", "\0" * 255)


def _child(folder: str, name: str) -> str:
    return folder + name if folder.endswith("/") else f"{folder}/{name}"


@dataclass(frozen=True)
class ReadScope:
    """The deny rules that concern one reading tool, and the working directories, for one permission context."""

    rules: FileRules[PermissionRule]
    cwd: Path
    working: Roots

    @classmethod
    def of(cls, context: PermissionContext, tool_name: str = "Read") -> ReadScope:
        """The scope of `tool_name` (Read, Grep, Glob) in `context`: its deny rules, compiled as the pipeline does."""
        cwd = context.effective_cwd
        return cls(
            context.file_rules("deny", tool_name, cwd),
            cwd,
            context.working_roots,
        )

    @property
    def denies_any(self) -> bool:
        """Whether any deny rule concerns the tool (when none does, nothing needs checking)."""
        return bool(self.rules.rules)

    def forms(self, path: Path) -> tuple[str, ...]:
        """`path` absolute as written and, when links lead elsewhere, resolved (relative paths from the cwd)."""
        return call_candidates((path,), self.cwd)[0]

    def denial(self, forms: tuple[str, ...]) -> PermissionRule | None:
        """The first deny rule that covers a file with these forms (`forms`), if any."""
        return self.rules.first_match((forms,), "deny") if self.rules.rules else None

    def allows(self, forms: tuple[str, ...]) -> bool:
        """Whether a file with these forms lies inside the working directories, as written and resolved,
        and no deny rule covers it."""
        return self.working.contain_both(forms[0], forms[-1]) and self.denial(forms) is None

    def denial_of_everything_in(self, folder: Path) -> PermissionRule | None:
        """A deny rule covering `folder` itself, or every name in it: a search there could show nothing."""
        if not self.rules.rules:
            return None
        forms = self.forms(folder)
        if (rule := self.denial(forms)) is not None:
            return rule
        found = [self.denial(tuple(_child(form, name) for form in forms)) for name in _ANY_NAMES]
        return found[0] if all(rule is not None for rule in found) else None

    def search_check(self, root: Path, tool_name: str) -> PermissionCheck:
        """The tool's own verdict on a search rooted at `root`: denied when the rules cover all of it."""
        rule = self.denial_of_everything_in(root)
        if rule is None:
            return PASSTHROUGH
        return PermissionCheck(
            "deny", f"{tool_name} cannot search {root}: the rule {rule} ({rule.source}) denies reading what is in it"
        )

    def listing_filter(self, root: Path) -> Callable[[str], bool] | None:
        """For files listed below `root` without following links (as ripgrep lists them): whether each
        absolute path may be shown. None when no deny rule concerns the tool.

        Below `root` nothing is a link that was followed, so a listed file's resolved form is the
        resolved root followed by the same relative path: one resolution per search, not per file.
        """
        if not self.rules.rules:
            return None
        root_forms = self.forms(root)
        written_root, real_root = root_forms[0], root_forms[-1]
        prefix = written_root if written_root.endswith("/") else written_root + "/"
        real_prefix = real_root if real_root.endswith("/") else real_root + "/"
        rules = self.rules

        def visible(path: str) -> bool:
            if not path.startswith(prefix):  # not below the root after all: resolve it on its own
                return rules.first_match((self.forms(Path(path)),), "deny") is None
            if prefix == real_prefix:
                return rules.first_match(((path,),), "deny") is None
            return rules.first_match(((path, real_prefix + path[len(prefix) :]),), "deny") is None

        return visible
