"""Where a WebFetch host really is: looked up once per call, checked, and connected to as checked.

A host is looked up only once the call may run (a name the user has not approved yet is not sent
to DNS, which would already tell its owner about it), and the addresses found then are the only
ones the fetch connects to: no second lookup, so no window for DNS rebinding. A name that turns
out to resolve to a loopback, private, link-local or otherwise non-public address is remembered,
so the next call for it asks the user about exactly that.
"""

from __future__ import annotations

import asyncio
import socket
from collections import OrderedDict
from dataclasses import dataclass
from typing import TypeVar

from handrail.permissions.hosts import address_concern, ip_of, is_loopback_name

RESOLVE_TIMEOUT_SECONDS = 10.0
LOCALHOST_CONCERN = "a name for this machine (localhost)"
_V = TypeVar("_V")


@dataclass(frozen=True)
class ResolvedHost:
    """A canonical host and the addresses to connect to, in order; `concern` says why it is not public."""

    host: str
    addresses: tuple[str, ...]
    concern: str | None = None
    error: str | None = None  # the lookup failed: nothing may be connected to

    def describe(self) -> str:
        """The host with what it resolved to, for prompts (`intranet (10.0.0.7)`)."""
        if not self.addresses or self.addresses == (self.host,):
            return self.host
        shown = ", ".join(self.addresses[:3]) + (", ..." if len(self.addresses) > 3 else "")
        return f"{self.host} ({shown})"


def concern_without_lookup(host: str) -> ResolvedHost | None:
    """What is known of canonical `host` without asking DNS: an address is itself, `localhost` is this machine."""
    literal = ip_of(host)
    if literal is not None:
        return ResolvedHost(host, (host,), address_concern(literal))
    if is_loopback_name(host):
        return ResolvedHost(host, (), LOCALHOST_CONCERN)
    return None


async def resolve_host(host: str) -> ResolvedHost:
    """Look canonical `host` up: an address stands for itself; a name gets every address it resolves to, and
    the first concern any of them raises."""
    literal = ip_of(host)
    if literal is not None:
        return ResolvedHost(host, (host,), address_concern(literal))
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(RESOLVE_TIMEOUT_SECONDS):
            found = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, TimeoutError) as exc:
        why = str(exc) or "the lookup timed out"
        return ResolvedHost(host, (), LOCALHOST_CONCERN if is_loopback_name(host) else None, error=why)
    addresses = tuple(dict.fromkeys(str(info[4][0]) for info in found))
    concerns = [c for c in (address_concern(a) for a in map(ip_of, addresses) if a is not None) if c is not None]
    if is_loopback_name(host):
        concerns.insert(0, LOCALHOST_CONCERN)
    return ResolvedHost(host, addresses, concerns[0] if concerns else None)


class HostMemory:
    """What WebFetch has learnt about hosts, for the process: names found to be non-public, and which hosts
    each call's permission prompt warned about (by tool_use id, the oldest calls dropped first)."""

    def __init__(self, most: int = 256) -> None:
        self._most = most
        self._non_public: OrderedDict[str, ResolvedHost] = OrderedDict()
        self._warned: OrderedDict[str, set[str]] = OrderedDict()

    def known_concern(self, host: str) -> ResolvedHost | None:
        """The concern about `host` known without a new lookup: its own spelling, or an earlier lookup."""
        return concern_without_lookup(host) or self._non_public.get(host)

    def found_non_public(self, resolved: ResolvedHost) -> None:
        """Remember that a lookup found `resolved.host` to be non-public."""
        self._non_public[resolved.host] = resolved
        self._non_public.move_to_end(resolved.host)
        _trim(self._non_public, self._most)

    def warned(self, call_id: str, host: str) -> None:
        """Call `call_id`'s permission check warned about `host`'s concern (the user approves knowing it)."""
        self._warned.setdefault(call_id, set()).add(host)
        _trim(self._warned, self._most)

    def was_warned(self, call_id: str, host: str) -> bool:
        """Whether call `call_id`'s permission check warned about `host`."""
        return host in self._warned.get(call_id, ())

    def call_ended(self, call_id: str) -> None:
        """Forget what call `call_id`'s check warned about."""
        self._warned.pop(call_id, None)


def _trim(entries: OrderedDict[str, _V], most: int) -> None:
    while len(entries) > most:
        entries.popitem(last=False)
