"""WebFetch decides about the host it connects to, not about a spelling of it (issue 19, item 7).

Every page here is served on 127.0.0.1 only. A model trying other spellings of that address must meet
the rules written for it; a host on this machine is never fetched without the user's say unless a rule
names it; a name that resolves to this machine (simulated in the server process by a `sitecustomize`
that answers `getaddrinfo` for `intranet.test` from a file) is caught after its one lookup, and the
connection goes to the address that lookup found.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, server_env, start_editor, tool_results
from tests.local_http import serve_http

PROMPT = "what does it say?"


def _user_settings(workspace: Path, permissions: dict[str, list[str]]) -> None:
    config = workspace.parent / "state" / "xdg-config" / "handrail"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(json.dumps({"permissions": permissions}))


@contextmanager
def _pages() -> Iterator[tuple[str, list[str]]]:
    """A page server on 127.0.0.1: (its port, the paths it was asked for). `/to-intranet` redirects."""
    hits: list[str] = []

    class Pages(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            if self.path == "/to-intranet":
                self.send_response(302)
                self.send_header("Location", f"http://intranet.test:{self.server.server_address[1]}/inside")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"the secret admin page")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    with serve_http(Pages) as base:
        yield int(base.rsplit(":", 1)[1]), hits


def _fetches(*urls: str) -> Reply:
    return Reply.of(*(ToolUse("WebFetch", {"url": url, "prompt": PROMPT}) for url in urls))


async def test_deny_rules_meet_every_spelling_of_the_host(editor: Editor, model: FakeModel, workspace: Path) -> None:
    _user_settings(workspace, {"deny": ["WebFetch(domain:127.0.0.1)", "WebFetch(domain:localhost)",
                                        "WebFetch(domain:bücher.example)"]})
    with _pages() as (port, hits):
        urls = [
            f"http://127\u30020\u30020\u30021:{port}/ideographic-dots",
            f"http://127\uff0e0\uff0e0\uff0e1:{port}/full-width-dots",
            f"http://\uff11\uff12\uff17.0.0.1:{port}/full-width-digits",
            f"http://127.1:{port}/short",
            f"http://2130706433:{port}/decimal",
            f"http://0x7f.1:{port}/hex",
            f"http://0177.0.0.1:{port}/octal",
            f"http://[::ffff:127.0.0.1]:{port}/mapped",
            f"http://127.0.0.1.:{port}/trailing-dot",
            f"http://LocalHost:{port}/mixed-case",
            f"http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54:{port}/full-width-letters",
            "https://xn--bcher-kva.example/a-label",
            "https://B\u00dcCHER.example/u-label",
        ]
        model.add(_fetches(*urls), Reply.of(Text("done")))
        await editor.ask("fetch them")
        assert hits == []  # nothing was connected to
    blocks = tool_results(model.requests[1])
    assert len(blocks) == len(urls)
    for url, block in zip(urls, blocks, strict=True):
        assert block["is_error"] and "Permission denied" in result_text(block), (url, result_text(block))
    assert editor.prompts == []


async def test_a_tool_wide_allow_does_not_reach_this_machine(editor: Editor, model: FakeModel, workspace: Path) -> None:
    _user_settings(workspace, {"allow": ["WebFetch"]})
    with _pages() as (port, hits):
        model.add(_fetches(f"http://2130706433:{port}/admin"), Reply.of(Text("done")))
        editor.answers.append("Deny")
        await editor.ask("fetch the admin page")
        (prompt,) = editor.prompts
        assert "127.0.0.1 is a loopback address" in prompt.message
        assert "Always allow WebFetch(domain:127.0.0.1)" in [action.title for action in prompt.actions]
        assert hits == []
        (block,) = tool_results(model.requests[1])
        assert block["is_error"] and "declined" in result_text(block)

        # the small model reads the page, then the turn ends
        model.add(_fetches(f"http://2130706433:{port}/admin"), Reply.of(Text("an admin page")), Reply.of(Text("ok")))
        editor.answers.append("Allow once")
        await editor.ask("fetch it after all")
        assert hits == ["/admin"]  # on the address the rules and the user decided about
        (block,) = tool_results(model.requests[-1])
        assert not block.get("is_error") and "an admin page" in result_text(block)


async def test_a_rule_naming_the_host_fetches_without_asking(editor: Editor, model: FakeModel, workspace: Path) -> None:
    _user_settings(workspace, {"allow": ["WebFetch(domain:127.0.0.1)"]})
    with _pages() as (port, hits):
        model.add(_fetches(f"http://127.1:{port}/named"), Reply.of(Text("a page")), Reply.of(Text("done")))
        await editor.ask("fetch")
        assert hits == ["/named"] and editor.prompts == []
    (block,) = tool_results(model.requests[-1])
    assert f"http://127.0.0.1:{port}/named" in result_text(block)  # the URL it fetched, in its canonical form


# ---------------------------------------------------------------- names that resolve to this machine

SITECUSTOMIZE = '''
import json, os, socket

_real = socket.getaddrinfo
_table = os.environ["HANDRAIL_TEST_HOSTS"]


def _getaddrinfo(host, *args, **kwargs):
    name = host.decode() if isinstance(host, bytes) else host
    with open(_table) as handle:
        answers = json.load(handle)
    if name in answers:
        with open(_table + ".log", "a") as log:
            log.write(name + "\\n")
        return _real(answers[name], *args, **kwargs)
    return _real(host, *args, **kwargs)


socket.getaddrinfo = _getaddrinfo
'''


@pytest.fixture
def hosts_table(tmp_path: Path) -> Path:
    """A file of names the server process resolves as told: {name: address}; lookups are logged beside it."""
    table = tmp_path / "hosts.json"
    table.write_text(json.dumps({"intranet.test": "127.0.0.1"}))
    return table


@pytest_asyncio.fixture
async def dns_editor(workspace: Path, model: FakeModel, hosts_table: Path, tmp_path: Path) -> AsyncIterator[Editor]:
    """A plain editor whose server resolves `intranet.test` from `hosts_table`."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = server_env(model.base_url, workspace.parent / "state")
    env["PYTHONPATH"] = str(site)
    env["HANDRAIL_TEST_HOSTS"] = str(hosts_table)
    editor = await start_editor(workspace, env, warm=False)  # sitecustomize runs as an interpreter starts
    yield editor
    await editor.client.shutdown_session()
    await editor.client.stop()


@contextmanager
def _connections() -> Iterator[tuple[int, list[bytes]]]:
    """A TCP listener on 127.0.0.1 that records the first bytes of each connection and closes it."""
    seen: list[bytes] = []
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            with connection:
                connection.settimeout(5)
                try:
                    seen.append(connection.recv(64))
                except OSError:
                    seen.append(b"")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1], seen
    finally:
        stop.set()
        thread.join(5)
        listener.close()


def _lookups(hosts_table: Path) -> list[str]:
    log = Path(str(hosts_table) + ".log")
    return log.read_text().splitlines() if log.exists() else []


async def test_a_name_resolving_to_this_machine_is_caught_once_looked_up(
    dns_editor: Editor, model: FakeModel, workspace: Path, hosts_table: Path
) -> None:
    _user_settings(workspace, {"allow": ["WebFetch"]})
    with _connections() as (port, seen):
        url = f"https://intranet.test:{port}/"
        model.add(_fetches(url), Reply.of(Text("done")))
        await dns_editor.ask("fetch the intranet")
        (block,) = tool_results(model.requests[1])
        text = result_text(block)
        assert block["is_error"] and "intranet.test (127.0.0.1) is a loopback address" in text
        assert seen == [] and _lookups(hosts_table) == ["intranet.test"]

        # the next call asks about exactly that; approved, it connects to the address its one lookup found
        model.add(_fetches(url), Reply.of(Text("done")))
        dns_editor.answers.append("Allow once")
        await dns_editor.ask("fetch it again")
        (prompt,) = dns_editor.prompts
        assert "intranet.test (127.0.0.1) is a loopback address" in prompt.message
        assert len(seen) == 1 and seen[0].startswith(b"\x16\x03")  # a TLS hello reached 127.0.0.1
        assert _lookups(hosts_table) == ["intranet.test", "intranet.test"]  # once per call, not by the client


async def test_a_redirect_to_a_name_on_this_machine_is_not_followed(
    dns_editor: Editor, model: FakeModel, workspace: Path, hosts_table: Path
) -> None:
    _user_settings(workspace, {"allow": ["WebFetch", "WebFetch(domain:127.0.0.1)"]})
    with _pages() as (port, hits):
        model.add(_fetches(f"http://127.0.0.1:{port}/to-intranet"), Reply.of(Text("done")))
        await dns_editor.ask("fetch")
        assert hits == ["/to-intranet"] and dns_editor.prompts == []
    (block,) = tool_results(model.requests[1])
    text = result_text(block)
    assert "REDIRECT DETECTED" in text and "intranet.test (127.0.0.1) is a loopback address" in text


# ---------------------------------------------------------------- through a proxy


async def test_a_proxy_named_by_the_environment_fetches_what_this_machine_cannot_resolve(
    model: FakeModel, workspace: Path
) -> None:
    """Behind a proxy, names are the proxy's to resolve (here `docs.example.test` resolves nowhere): the call is
    decided on the canonical host as always, and the connection goes to the proxy `HTTPS_PROXY` names, asking it
    for that host (this proxy then refuses the tunnel: nothing here serves TLS for that name)."""
    asked: list[str] = []

    class Proxy(BaseHTTPRequestHandler):
        def do_CONNECT(self) -> None:
            asked.append(self.path)
            self.send_response(502)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    _user_settings(workspace, {"allow": ["WebFetch(domain:docs.example.test)"]})
    with serve_http(Proxy) as proxy:
        env = server_env(model.base_url, workspace.parent / "state")
        env.update({"HTTPS_PROXY": proxy, "NO_PROXY": "127.0.0.1,localhost"})
        editor = await start_editor(workspace, env)
        try:
            model.add(_fetches("http://DOCS.example.test./guide"), Reply.of(Text("done")))
            await editor.ask("fetch")
        finally:
            await editor.client.shutdown_session()
            await editor.client.stop()
    (block,) = tool_results(model.requests[1])
    assert "could not be resolved" not in result_text(block)
    assert asked == ["docs.example.test:443"] and editor.prompts == []
