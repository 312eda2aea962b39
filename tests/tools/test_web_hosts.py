"""WebFetch's URLs in canonical form, its host memory, and connections only to the addresses looked up."""

from __future__ import annotations

import pytest

from handrail.tools.web_hosts import HostMemory, ResolvedHost, concern_without_lookup, resolve_host
from handrail.tools.web_page import FetchError, Page, fetch_page, host_url, normalise_url, proxy_for
from tests.local_http import serve_http
from tests.tools.test_agent_tools import _Pages


def test_urls_carry_the_canonical_host() -> None:
    assert normalise_url("http://127.1:8000/x#y") == "http://127.0.0.1:8000/x"  # loopback keeps http
    assert normalise_url("http://[::ffff:127.0.0.1]/") == "http://127.0.0.1/"
    assert normalise_url("http://B\u00fccher.Example./a?b=c") == "https://xn--bcher-kva.example/a?b=c"
    assert normalise_url("http://[::1]:81/") == "http://[::1]:81/"
    assert host_url("::1") == "https://[::1]/"
    for bad in ("http://1.2.3.256/", "http://a..b/", "http://%31.0.0.1/"):
        with pytest.raises(FetchError, match="Invalid URL"):
            normalise_url(bad)


async def test_lookups_say_what_is_not_public() -> None:
    assert (await resolve_host("10.0.0.1")).concern == "a private address"
    local = await resolve_host("localhost")
    assert local.concern is not None and "127.0.0.1" in local.addresses
    assert concern_without_lookup("example.com") is None  # a name is not sent to DNS to decide about it
    assert concern_without_lookup("app.localhost") is not None


def test_the_memory_keeps_non_public_names_and_per_call_warnings() -> None:
    memory = HostMemory(most=2)
    found = ResolvedHost("intranet.test", ("10.0.0.7",), "a private address")
    memory.found_non_public(found)
    assert memory.known_concern("intranet.test") == found
    assert found.describe() == "intranet.test (10.0.0.7)"
    memory.warned("call-1", "intranet.test")
    assert memory.was_warned("call-1", "intranet.test") and not memory.was_warned("call-2", "intranet.test")
    memory.call_ended("call-1")
    assert not memory.was_warned("call-1", "intranet.test")
    for n in range(3):
        memory.found_non_public(ResolvedHost(f"h{n}.test", ("10.0.0.1",), "a private address"))
    assert memory.known_concern("intranet.test") is None  # the oldest went first


async def test_the_connection_goes_to_the_address_the_lookup_gave() -> None:
    asked: list[tuple[str, bool]] = []

    async def reach(host: str, first: bool, proxied: bool) -> tuple[str, ...]:
        asked.append((host, first))
        return ("127.0.0.1",)

    async def never(url: str) -> str:
        raise AssertionError("no redirect here")

    with serve_http(_Pages) as base:
        port = base.rsplit(":", 1)[1]
        # a name below localhost keeps http; the client never looks it up (no resolver here knows it): it
        # connects where `reach` said
        page = await fetch_page(f"http://Pinned.LOCALHOST:{port}/small", never, reach=reach)  # type: ignore[arg-type]
    assert isinstance(page, Page) and page.text == "plain text"
    assert asked == [("pinned.localhost", True)]


def test_the_proxy_is_the_one_the_environment_names_for_the_scheme(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    assert proxy_for("https://example.com/") is None
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.corp:3128")
    monkeypatch.setenv("NO_PROXY", "internal.corp,127.0.0.1")
    assert proxy_for("https://example.com/") == "http://proxy.corp:3128"
    assert proxy_for("http://example.com/") is None  # only the https one is named
    assert proxy_for("https://wiki.internal.corp/") is None and proxy_for("https://127.0.0.1:8080/") is None
