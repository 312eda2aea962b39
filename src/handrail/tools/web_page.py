"""Fetching a web page for the model: https only (but for loopback hosts), checked redirects, size and time limits.

The URL's host is put in its one canonical spelling (`permissions.hosts`) before anything is decided,
and the connection goes only to the addresses the call's one lookup of that host gave and its checks
accepted (`web_hosts`). HTML becomes markdown; other text is kept as it is; anything else is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urljoin, urlsplit, urlunsplit

from handrail.errors import HandrailError
from handrail.permissions.hosts import HostError, canonical_host, ip_of, is_loopback_name
from handrail.tools.web_hosts import resolve_host

if TYPE_CHECKING:
    import httpcore2
    import httpx2

MAX_URL_CHARS = 2000
MAX_BYTES = 10 * 1024 * 1024
TIME_LIMIT_SECONDS = 60.0
MAX_HOPS = 10
USER_AGENT = "handrail-WebFetch/1.0 (an AI coding agent fetching a page for its user)"
_TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "application/x-yaml")

HopVerdict = Literal["follow", "deny", "ask"]


class FetchError(HandrailError):
    """The page could not be fetched or is not something the model can read; the message says why."""


class HostRefused(FetchError):
    """A host may not be connected to without the user's say; for a redirect, the redirect is returned instead."""


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
    """Whether `host` (any spelling) names this machine: localhost, 127.0.0.0/8, ::1."""
    try:
        name = canonical_host(host)
    except HostError:
        return False
    address = ip_of(name)
    return address.is_loopback if address is not None else is_loopback_name(name)


def normalise_url(url: str) -> str:
    """`url` checked, its host in canonical form (`permissions.hosts`), http upgraded to https (loopback hosts
    keep http); raises FetchError."""
    if len(url) > MAX_URL_CHARS:
        raise FetchError(f"The URL is longer than {MAX_URL_CHARS} characters.")
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
        port = parts.port
    except ValueError as exc:
        raise FetchError(f"Invalid URL: {exc}") from exc
    if parts.scheme not in ("http", "https") or not host:
        raise FetchError(f"Invalid URL {url!r}: only http and https URLs with a host can be fetched.")
    if parts.username is not None or parts.password is not None:
        raise FetchError("URLs with a user name or password cannot be fetched.")
    try:
        host = canonical_host(host)
    except HostError as exc:
        raise FetchError(f"Invalid URL {url!r}: {exc}.") from exc
    scheme = "http" if parts.scheme == "http" and is_loopback(host) else "https"
    netloc = _netloc_host(host)
    if port is not None:
        netloc += f":{port}"
    return urlunsplit(parts._replace(scheme=scheme, netloc=netloc, fragment=""))


def _netloc_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def host_url(host: str) -> str:
    """The https URL of canonical `host`'s root (for matching rules against a host alone)."""
    return f"https://{_netloc_host(host)}/"


def url_host_of(url: str) -> str:
    """The canonical host of a URL `normalise_url` returned."""
    return urlsplit(url).hostname or ""


def same_host(a: str, b: str) -> bool:
    """Whether two normalised URLs name the same host (ignoring a leading `www.`)."""
    return url_host_of(a).removeprefix("www.") == url_host_of(b).removeprefix("www.")


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


Reach = Callable[[str, bool, bool], Awaitable[tuple[str, ...]]]
"""(canonical host, whether it is the URL's own host rather than a redirect's, whether a proxy fetches it) → the
addresses to connect to (none needed through a proxy); raises HostRefused or FetchError when the host may not or
cannot be reached."""


async def lookup(host: str, first: bool, proxied: bool) -> tuple[str, ...]:
    """A `Reach` that only looks the host up (through a proxy a name this machine cannot resolve is the proxy's)."""
    resolved = await resolve_host(host)
    if resolved.error is not None:
        if proxied:
            return ()
        raise FetchError(f"{host} could not be resolved ({resolved.error}).")
    return resolved.addresses


def proxy_for(url: str) -> str | None:
    """The proxy the environment names for `url` (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, less `NO_PROXY`)."""
    import urllib.request

    proxies = urllib.request.getproxies_environment()
    parts = urlsplit(url)
    if not proxies or urllib.request.proxy_bypass(parts.hostname or ""):  # NO_PROXY (and the system's list)
        return None
    return proxies.get(parts.scheme) or proxies.get("all")


async def fetch_page(
    url: str,
    hop_allowed: Callable[[str], Awaitable[HopVerdict]],
    *,
    reach: Reach = lookup,
    max_bytes: int = MAX_BYTES,
    time_limit: float = TIME_LIMIT_SECONDS,
) -> Page | Redirect:
    """Fetch `url`. A redirect to the same host (or its `www.` sibling) is followed; one to another host only
    when `hop_allowed` says "follow" (the permission rules allow it), else it is returned. Each host is looked
    up once, through `reach`, and connected to only at the addresses it gave. Raises FetchError."""
    import httpx2

    current = normalise_url(url)
    proxy = proxy_for(current)
    host = url_host_of(current)
    pins: dict[str, tuple[str, ...]] = {host: await reach(host, True, proxy is not None)}
    clients: dict[str | None, httpx2.AsyncClient] = {}
    try:
        async with asyncio.timeout(time_limit), contextlib.AsyncExitStack() as stack:
            for _ in range(MAX_HOPS + 1):
                client = clients.get(proxy)
                if client is None:
                    client = clients[proxy] = await stack.enter_async_context(_client(proxy, pins, time_limit))
                async with client.stream("GET", current, headers={"Accept": "text/html, text/*;q=0.9, */*;q=0.5"}) as r:
                    if r.is_redirect and "location" in r.headers:
                        target = normalise_url(urljoin(current, r.headers["location"]))
                        verdict = "follow" if same_host(current, target) else await hop_allowed(target)
                        if verdict == "deny":
                            raise FetchError(f"{current} redirects to {target}, which the permission rules deny.")
                        host = url_host_of(target)
                        try:
                            if verdict == "follow" and host not in pins:
                                pins[host] = await reach(host, False, proxy_for(target) is not None)
                        except HostRefused as exc:
                            return Redirect(current, target, r.status_code, str(exc))
                        if verdict == "ask":
                            reason = "it is on another host, which needs its own approval"
                            return Redirect(current, target, r.status_code, reason)
                        current = target
                        proxy = proxy_for(current)
                        continue
                    return await _read(r, current, max_bytes)
    except TimeoutError as exc:
        raise FetchError(f"Fetching {current} took longer than {time_limit:.0f} seconds.") from exc
    except httpx2.HTTPError as exc:
        raise FetchError(f"Fetching {current} failed: {type(exc).__name__}: {exc}") from exc
    raise FetchError(f"{url} redirected more than {MAX_HOPS} times.")


def _client(proxy: str | None, pins: Mapping[str, Iterable[str]], time_limit: float) -> httpx2.AsyncClient:
    """The HTTP client for hops through `proxy`, or (None) for direct hops pinned to the checked addresses."""
    import httpx2

    options: dict[str, Any] = {"follow_redirects": False, "timeout": httpx2.Timeout(time_limit)}
    options["headers"] = {"User-Agent": USER_AGENT}
    if proxy is not None:  # the proxy resolves the name; what this machine could check, reach() did
        return httpx2.AsyncClient(proxy=proxy, trust_env=False, **options)
    return httpx2.AsyncClient(transport=_pinned_transport(pins), trust_env=False, **options)


def _pinned_transport(pins: Mapping[str, Iterable[str]]) -> httpx2.AsyncHTTPTransport:
    """An HTTP transport that connects to a host only at the addresses pinned for it (TLS still checks the
    host's name): what was checked is what is reached, whatever the name resolves to by then."""
    import httpcore2
    import httpx2

    class PinnedBackend(httpcore2.AsyncNetworkBackend):
        def __init__(self) -> None:
            self._inner = httpcore2.AnyIOBackend()

        async def connect_tcp(
            self,
            host: str,
            port: int,
            timeout: float | None = None,  # noqa: ASYNC109 (httpcore's signature)
            local_address: str | None = None,
            socket_options: Iterable[httpcore2.SOCKET_OPTION] | None = None,
        ) -> httpcore2.AsyncNetworkStream:
            addresses = tuple(pins.get(host, ()))
            if not addresses:
                raise httpcore2.ConnectError(f"{host} was not checked, so it is not connected to")
            failure: Exception | None = None
            for address in addresses:
                try:
                    return await self._inner.connect_tcp(
                        address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                    )
                except (httpcore2.ConnectError, httpcore2.ConnectTimeout) as exc:
                    failure = exc
            assert failure is not None
            raise failure

        async def sleep(self, seconds: float) -> None:
            await self._inner.sleep(seconds)

    class PinnedTransport(httpx2.AsyncHTTPTransport):
        def __init__(self) -> None:
            super().__init__(trust_env=False)
            self._pool = httpcore2.AsyncConnectionPool(
                ssl_context=httpx2.create_ssl_context(), network_backend=PinnedBackend()
            )

    return PinnedTransport()


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
