"""PDF page ranges and text extraction."""

from __future__ import annotations

import pytest

from handrail.tools.pdf import PdfError, extract_pages, format_pages, is_pdf, page_count, parse_pages

from .support import make_pdf


def test_parse_pages() -> None:
    assert parse_pages("3", 10) == [3]
    assert parse_pages("1-5", 10) == [1, 2, 3, 4, 5]
    assert parse_pages("2,4-6", 10) == [2, 4, 5, 6]
    assert parse_pages(" 6 - 7 , 2 ", 10) == [2, 6, 7]
    assert parse_pages("4-4,3-4", 10) == [3, 4]
    assert parse_pages("8-", 10) == [8, 9, 10]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty"),
        ("a", "not a page or range"),
        ("1-2-3", "not a page or range"),
        ("0", "numbered from 1"),
        ("5-3", "runs backwards"),
        ("9-12", "has 10 pages"),
        ("11", "has 10 pages"),
    ],
)
def test_parse_pages_errors(spec: str, message: str) -> None:
    with pytest.raises(PdfError, match=message):
        parse_pages(spec, 10)


def test_format_pages() -> None:
    assert format_pages([1, 2, 3, 5, 7, 8]) == "1-3, 5, 7-8"
    assert format_pages([4]) == "4"
    assert format_pages([]) == ""


def test_extracts_the_named_pages() -> None:
    data = make_pdf([f"This is page {n}\nwith a second line" for n in range(1, 6)])
    assert is_pdf(data)
    assert page_count(data) == 5
    extracted = extract_pages(data, "2,4-5")
    assert extracted.page_count == 5
    assert [number for number, _ in extracted.pages] == [2, 4, 5]
    assert extracted.pages[0][1] == "This is page 2\nwith a second line"
    assert extract_pages(data, None).pages[0][1].startswith("This is page 1")


def test_large_pdfs_need_pages_and_a_bounded_range() -> None:
    data = make_pdf([f"p{n}" for n in range(1, 31)])
    with pytest.raises(PdfError, match=r"This PDF has 30 pages.*pages parameter"):
        extract_pages(data, None)
    with pytest.raises(PdfError, match="at most 20 pages"):
        extract_pages(data, "1-25")
    assert [n for n, _ in extract_pages(data, "21-30").pages] == list(range(21, 31))


def test_not_a_pdf() -> None:
    with pytest.raises(PdfError, match="not a PDF"):
        extract_pages(b"hello", None)
    with pytest.raises(PdfError, match="could not be read"):
        extract_pages(b"%PDF-1.4\ngarbage", None)
