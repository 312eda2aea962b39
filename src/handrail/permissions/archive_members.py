"""The files an archive would write when extracted, read from the archive on disk (tar and zip).

Only names are read (a zip's central directory; a tar's headers, which a compressed tar must be
decompressed to reach, so large ones are not looked into). An archive that cannot be read, holds
too many entries, or holds an entry that could write outside where it is extracted (an absolute
name, a `..`, a symbolic or hard link, a device) gives a reason to ask instead of names.
Blocking I/O: run it off the event loop.
"""

from __future__ import annotations

import os
import tarfile
import zipfile
from dataclasses import dataclass

from handrail.permissions.bash.model import ArchiveFormat

MAX_ARCHIVE_BYTES = 64 << 20  # larger archives are not read through: the command asks
MAX_MEMBERS = 5_000


@dataclass(frozen=True, slots=True)
class Members:
    """The relative paths an extraction writes (after stripping), or why they cannot be known (`problem`)."""

    names: tuple[str, ...] = ()
    problem: str = ""


def archive_members(path: str, archive_format: ArchiveFormat, *, strip: int = 0, junk_paths: bool = False) -> Members:
    """What extracting the archive at `path` writes, relative to the folder it is extracted into."""
    if archive_format == "zip" and not os.path.exists(path) and os.path.exists(path + ".zip"):
        path += ".zip"  # unzip's own fallback
    try:
        if os.path.getsize(path) > MAX_ARCHIVE_BYTES:
            return Members(problem=f"{path} is larger than {MAX_ARCHIVE_BYTES >> 20} MiB, too large to look into")
        entries = _zip_entries(path) if archive_format == "zip" else _tar_entries(path)
    except (OSError, tarfile.TarError, zipfile.BadZipFile, EOFError, ValueError) as exc:
        return Members(problem=f"{path} cannot be read as a {archive_format} archive ({exc})")
    if isinstance(entries, str):
        return Members(problem=f"{path} {entries}")
    names: list[str] = []
    for name in entries:
        parts = [p for p in name.split("/") if p not in ("", ".")]
        if name.startswith("/") or ".." in parts:
            outside = "which would be written outside the folder it is extracted into"
            return Members(problem=f"{path} holds {name!r}, {outside}")
        parts = parts[strip:]
        if junk_paths:
            parts = parts[-1:]
        if parts:
            names.append("/".join(parts))
    return Members(tuple(dict.fromkeys(names)))


def _tar_entries(path: str) -> list[str] | str:
    names: list[str] = []
    with tarfile.open(path, "r:*") as archive:
        for member in archive:
            if len(names) >= MAX_MEMBERS:
                return f"holds more than {MAX_MEMBERS} entries, too many to look into"
            if member.issym() or member.islnk():
                return f"holds a link, {member.name!r} -> {member.linkname!r}: what it writes through it is not known"
            if not (member.isfile() or member.isdir()):
                return f"holds {member.name!r}, which is neither a file nor a folder"
            names.append(member.name)
    return names


def _zip_entries(path: str) -> list[str] | str:
    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        return f"holds more than {MAX_MEMBERS} entries, too many to look into"
    for info in infos:
        kind = (info.external_attr >> 16) & 0o170000
        if info.create_system == 3 and kind not in (0, 0o100000, 0o040000):  # Unix mode: a link or a device
            return f"holds {info.filename!r}, which is not a plain file or folder (a link?)"
    return [info.filename for info in infos]
