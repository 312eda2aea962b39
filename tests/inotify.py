"""Reading a process's inotify watches from /proc (how many, on which inodes, for which events), and
a tree to watch."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

IN_ACCESS = 0x1
IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_CLOSE_NOWRITE = 0x10
IN_OPEN = 0x20

_WATCH = re.compile(r"^inotify wd:\w+ ino:(?P<ino>[0-9a-f]+) sdev:\w+ mask:(?P<mask>[0-9a-f]+)", re.MULTILINE)


@dataclass(frozen=True)
class Watch:
    """One inotify watch: the inode it is on, and the events it asks for."""

    inode: int
    mask: int


def inotify_watches(pid: int | str = "self") -> list[Watch]:
    """Every inotify watch process `pid` holds (through any of its inotify descriptors)."""
    watches: list[Watch] = []
    folder = f"/proc/{pid}/fdinfo"
    for name in os.listdir(folder):
        try:
            with open(os.path.join(folder, name)) as info:
                text = info.read()
        except OSError:  # closed meanwhile
            continue
        watches += [Watch(int(m["ino"], 16), int(m["mask"], 16)) for m in _WATCH.finditer(text)]
    return watches


def grow_monorepo(root: Path, packages: int = 30) -> Path:
    """Give `root` many folders, an ignored tree, a git directory and a settings folder: of all of
    them a watcher of the settings files may watch only `root` and `root/.handrail`."""
    for n in range(packages):
        (root / "src" / f"pkg{n}" / "deep").mkdir(parents=True)
        (root / "src" / f"pkg{n}" / "deep" / "m.py").write_text("x = 1\n")
    (root / "node_modules" / "dep").mkdir(parents=True)
    (root / ".git" / "objects").mkdir(parents=True)
    (root / ".handrail").mkdir()
    (root / ".mcp.json").write_text("{}\n")
    return root
