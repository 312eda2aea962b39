"""PDF text for the model: page ranges and per-page text extraction (pypdf, imported when needed)."""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from handrail.errors import HandrailError

if TYPE_CHECKING:
    from pypdf import PdfReader

MAX_PAGES_PER_READ = 20
"""At most this many pages are extracted in one Read."""

PAGES_REQUIRED_ABOVE = 10
"""PDFs with more pages than this must be read with `pages`."""

_RANGE = re.compile(r"^(\d+)\s*(?:-\s*(\d*))?$")


class PdfError(HandrailError):
    """A PDF or page range that cannot be read; the message is written for the model."""


def is_pdf(data: bytes) -> bool:
    """Whether `data` starts like a PDF file (within its first KB, as readers allow)."""
    return b"%PDF-" in data[:1024]


def parse_pages(spec: str, page_count: int) -> list[int]:
    """The 1-based page numbers a `pages` argument names ("3", "1-5", "2,4-6", "8-" for 8 to the end).

    Sorted, without repeats; raises PdfError for malformed ranges and pages past `page_count`.
    """
    if not spec.strip():
        raise PdfError('pages is empty; give page numbers like "3", "1-5" or "2,4-6".')
    pages: set[int] = set()
    for token in spec.split(","):
        match = _RANGE.match(token.strip())
        if match is None:
            raise PdfError(f'Invalid pages {spec!r}: {token.strip()!r} is not a page or range like "3" or "1-5".')
        first = int(match.group(1))
        if match.group(2) is None:
            last = first
        elif match.group(2) == "":
            last = page_count
        else:
            last = int(match.group(2))
        if first < 1:
            raise PdfError(f"Invalid pages {spec!r}: pages are numbered from 1.")
        if last < first:
            raise PdfError(f"Invalid pages {spec!r}: the range {token.strip()} runs backwards.")
        if last > page_count:
            raise PdfError(f"Invalid pages {spec!r}: the PDF has {page_count} page{'s' if page_count != 1 else ''}.")
        pages.update(range(first, last + 1))
    return sorted(pages)


def format_pages(pages: list[int]) -> str:
    """Page numbers written as ranges: [1, 2, 3, 5] → "1-3, 5"."""
    if not pages:
        return ""
    parts: list[str] = []
    start = prev = pages[0]
    for page in [*pages[1:], 0]:
        if page == prev + 1:
            prev = page
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = page
    return ", ".join(parts)


@dataclass(frozen=True)
class PdfText:
    """Text extracted from some pages of a PDF."""

    page_count: int
    pages: tuple[tuple[int, str], ...]
    """(1-based page number, text) for each extracted page."""


def page_count(data: bytes) -> int:
    """How many pages the PDF has."""
    return len(_reader(data).pages)


def extract_pages(data: bytes, spec: str | None) -> PdfText:
    """The text of the pages `spec` names (all pages of a small PDF when None).

    Raises PdfError for unreadable or encrypted PDFs, bad ranges, too many pages, and
    PDFs over PAGES_REQUIRED_ABOVE pages read without `spec`.
    """
    reader = _reader(data)
    count = len(reader.pages)
    if spec is None:
        if count > PAGES_REQUIRED_ABOVE:
            raise PdfError(
                f"This PDF has {count} pages, too many to read at once. Call Read again with the pages "
                f'parameter to read at most {MAX_PAGES_PER_READ} pages at a time (e.g. pages: "1-5").'
            )
        numbers = list(range(1, count + 1))
    else:
        numbers = parse_pages(spec, count)
        if len(numbers) > MAX_PAGES_PER_READ:
            raise PdfError(
                f"pages {spec!r} names {len(numbers)} pages; read at most {MAX_PAGES_PER_READ} pages at a time."
            )
    texts: list[tuple[int, str]] = []
    for number in numbers:
        try:
            text = reader.pages[number - 1].extract_text()
        except Exception as exc:  # pypdf raises many kinds of errors on damaged content streams
            text = f"[The text of this page could not be extracted: {type(exc).__name__}: {exc}]"
        texts.append((number, text))
    return PdfText(count, tuple(texts))


def _reader(data: bytes) -> PdfReader:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    if not is_pdf(data):
        raise PdfError("The file is not a PDF (it does not start with %PDF-).")
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # pypdf warns about every small defect
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise PdfError("The PDF is encrypted with a password, so its text cannot be read.")
        len(reader.pages)
    except PdfError:
        raise
    except (PdfReadError, ValueError, KeyError, OSError) as exc:
        raise PdfError(f"The PDF could not be read: {exc}") from exc
    except Exception as exc:  # damaged files make pypdf fail in many ways
        raise PdfError(f"The PDF could not be read: {type(exc).__name__}: {exc}") from exc
    return reader
