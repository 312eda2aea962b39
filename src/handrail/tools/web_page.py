"""Fetching a web page for the model: https only (but for loopback hosts), checked redirects, size and time limits.

HTML becomes markdown; other text is kept as it is; anything else is refused.
"""

from __future__ import annotations

import asyncio
import ipaddress
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal
from urllib.parse import urljoin, urlsplit, urlunsplit

if TYPE_CHECKING:
    import httpx2

MAX_URL_CHARS = 2000
MAX_BYTES = 10 * 1024 * 1024
TIME_LIMIT_SECONDS = 60.0
MAX_HOPS = 10
USER_AGENT = "handrail-WebFetch/1.0 (an AI coding agent fetching a page for its user)"
_TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "application/x-yaml")

HopVerdict = Literal["follow", "deny", "ask"]


class FetchError(Exception):
    """The page could not be fetched or is not something the model can read; the message says why."""


@dataclass(frozen=True)
class Page:
    """A fetched page as text: markdown for HTML, the text itself otherwise."""

    url: str
    status: int
    content_type: str
    text: str
    size: int


@dataclass(frozen=True)
class Redirect:
    """The page redirects to a URL that is not followed without the user's say."""

    url: str
    target: str
    status: int
    reason: str


class PageCache:
    """Fetched pages by URL for a while (15 minutes), so asking again about a page does not fetch it again."""

    def __init__(self, ttl_seconds: float = 15 * 60, most: int = 50) -> None:
        self._ttl = ttl_seconds
        self._most = most
        self._pages: OrderedDict[str, tuple[float, Page]] = OrderedDict()

    def get(self, url: str) -> Page | None:
        """The page fetched for `url` within the time to live, if any."""
        found = self._pages.get(url)
        if found is None or time.monotonic() - found[0] > self._ttl:
            self._pages.pop(url, None)
            return None
        return found[1]

    def put(self, url: str, page: Page) -> None:
        """Remember `page` as fetched for `url` now (the oldest go when there are too many)."""
        self._pages[url] = (time.monotonic(), page)
        self._pages.move_to_end(url)
        while len(self._pages) > self._most:
            self._pages.popitem(last=False)


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine (localhost, 127.0.0.0/8, ::1)."""
    name = host.strip("[]").lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def normalise_url(url: str) -> str:
    """`url` checked and with http upgraded to https (loopback hosts keep http); raises FetchError."""
    if len(url) > MAX_URL_CHARS:
        raise FetchError(f"The URL is longer than {MAX_URL_CHARS} characters.")
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
    except ValueError as exc:
        raise FetchError(f"Invalid URL: {exc}") from exc
    if parts.scheme not in ("http", "https") or not host:
        raise FetchError(f"Invalid URL {url!r}: only http and https URLs with a host can be fetched.")
    if parts.username is not None or parts.password is not None:
        raise FetchError("URLs with a user name or password cannot be fetched.")
    if parts.scheme == "http" and not is_loopback(host):
        parts = parts._replace(scheme="https")
    return urlunsplit(parts._replace(fragment=""))


def same_host(a: str, b: str) -> bool:
    """Whether two URLs name the same host (ignoring a leading `www.`)."""

    def host(url: str) -> str:
        name = (urlsplit(url).hostname or "").lower()
        return name.removeprefix("www.")

    return host(a) == host(b)


def html_to_markdown(html: str) -> str:
    """Markdown for an HTML page, without its scripts, styles and head (the title is kept as a heading)."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title is not None else ""
    for tag in soup(["script", "style", "noscript", "template", "head", "svg", "iframe"]):
        tag.decompose()
    body = MarkdownConverter(heading_style="ATX", bullets="-").convert_soup(soup)
    lines = [line.rstrip() for line in body.splitlines()]
    text = "\n".join(lines)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    text = text.strip()
    return f"# {title}\n\n{text}" if title and title not in text[: len(title) + 10] else text


def _kind(content_type: str) -> Literal["html", "text"] | None:
    media = content_type.split(";", 1)[0].strip().lower()
    if media in ("text/html", "application/xhtml+xml"):
        return "html"
    if media.startswith("text/") or media in _TEXT_TYPES or media.endswith(("+json", "+xml")):
        return "text"
    return None


def _charset(content_type: str) -> str:
    for part in content_type.split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip('"')
    return "utf-8"


def _decode(data: bytes, content_type: str) -> str:
    try:
        return data.decode(_charset(content_type), errors="replace")
    except LookupError:
        return data.decode("utf-8", errors="replace")


async def fetch_page(
    url: str,
    hop_allowed: Callable[[str], Awaitable[HopVerdict]],
    *,
    max_bytes: int = MAX_BYTES,
    time_limit: float = TIME_LIMIT_SECONDS,
) -> Page | Redirect:
    """Fetch `url`. A redirect to the same host is followed; one to another host only when `hop_allowed` says
    "follow" (the permission rules allow it), else it is returned. Raises FetchError."""
    import httpx2

    current = normalise_url(url)
    try:
        async with asyncio.timeout(time_limit), httpx2.AsyncClient(
            follow_redirects=False, timeout=httpx2.Timeout(time_limit), headers={"User-Agent": USER_AGENT}
        ) as client:
            for _ in range(MAX_HOPS + 1):
                async with client.stream("GET", current, headers={"Accept": "text/html, text/*;q=0.9, */*;q=0.5"}) as r:
                    if r.is_redirect and "location" in r.headers:
                        target = normalise_url(urljoin(current, r.headers["location"]))
                        verdict = "follow" if same_host(current, target) else await hop_allowed(target)
                        if verdict == "deny":
                            raise FetchError(f"{current} redirects to {target}, which the permission rules deny.")
                        if verdict == "ask":
                            reason = "it is on another host, which needs its own approval"
                            return Redirect(current, target, r.status_code, reason)
                        current = target
                        continue
                    return await _read(r, current, max_bytes)
    except TimeoutError as exc:
        raise FetchError(f"Fetching {current} took longer than {time_limit:.0f} seconds.") from exc
    except httpx2.HTTPError as exc:
        raise FetchError(f"Fetching {current} failed: {type(exc).__name__}: {exc}") from exc
    raise FetchError(f"{url} redirected more than {MAX_HOPS} times.")


async def _read(response: httpx2.Response, url: str, max_bytes: int) -> Page:
    if response.status_code >= 400:
        raise FetchError(f"{url} answered HTTP {response.status_code} {response.reason_phrase}.")
    content_type = response.headers.get("content-type", "")
    kind = _kind(content_type)
    if kind is None:
        shown = content_type or "no content type"
        raise FetchError(f"{url} is {shown}, not a text or HTML page, so it cannot be read with WebFetch.")
    declared = response.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise FetchError(f"{url} is larger than the limit of {max_bytes // (1024 * 1024)} MB.")
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise FetchError(f"{url} is larger than the limit of {max_bytes // (1024 * 1024)} MB.")
        chunks.append(chunk)
    raw = _decode(b"".join(chunks), content_type)
    text = await asyncio.to_thread(html_to_markdown, raw) if kind == "html" else raw
    return Page(url, response.status_code, content_type.split(";", 1)[0].strip(), text, size)
