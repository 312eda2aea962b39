"""The host a URL really names: one spelling per host, for matching rules and for connecting.

HTTP clients and resolvers accept many spellings of one host: `127.1`, `2130706433`, `0x7f.1` and
`0177.0.0.1` are 127.0.0.1; `127。0。0。1` (ideographic or full-width dots), `Example.COM.` and
`example.com` in full-width letters are example.com; `bücher.example` is `xn--bcher-kva.example`; `[::ffff:127.0.0.1]`
is 127.0.0.1 again. Rules are matched against the canonical form, and WebFetch connects to exactly
that form, so a rule decides about the host that is reached, not about a spelling of it.

IPv4 numbers are read the way the WHATWG URL standard (and `inet_aton`) reads them: one to four
parts, each decimal, octal (a leading 0) or hexadecimal (0x), the last filling the remaining bytes.
"""

from __future__ import annotations

import ipaddress
import re

from handrail.errors import HandrailError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# the dots UTS 46 maps to ".": ideographic full stop, full-width full stop, half-width ideographic full stop
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
_ASCII_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")
_NUMBER = re.compile(r"[0-9]+|0[xX][0-9a-fA-F]*")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")
_LOOPBACK_NAMES = ("localhost",)


class HostError(HandrailError, ValueError):
    """The text is not a host name or address a client could connect to; the message says why."""


def canonical_host(text: str) -> str:
    """The one spelling of the host `text` names: an IPv4 address in dotted decimal, an IPv6 address
    in its compressed form (no brackets; an IPv4-mapped one as its IPv4 address), or a lower-case
    ASCII domain name (IDNA A-labels) without a trailing dot. Raises HostError."""
    name = text.strip()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    if ":" in name:
        return str(_ipv6(name))
    name = name.translate(_DOTS)
    if not name.isascii():
        name = _idna_mapped(name)
    name = name.lower()
    if name.endswith(".") and len(name) > 1:
        name = name[:-1]
    labels = name.split(".")
    if _NUMBER.fullmatch(labels[-1]):
        return str(_ipv4(labels))
    if not name or len(name) > 253:
        raise HostError(f"{text!r} is not a host name")
    for label in labels:
        if not _ASCII_LABEL.fullmatch(label):
            raise HostError(f"{text!r} is not a valid host name (the label {label!r})")
    return name


def canonical_domain_pattern(pattern: str) -> str:
    """A `domain:` rule's host (`example.com`, `*.example.com`, an address) in canonical form; a pattern
    that names no valid host is only lower-cased, so it still matches what it says literally."""
    text = pattern.strip()
    wildcard = text.startswith("*.")
    try:
        host = canonical_host(text[2:] if wildcard else text)
    except HostError:
        return text.lower()
    return f"*.{host}" if wildcard else host


def ip_of(host: str) -> IPAddress | None:
    """The address a canonical host is, or None when it is a name."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def is_loopback_name(host: str) -> bool:
    """Whether canonical `host` is `localhost` or a name below it (RFC 6761: always this machine)."""
    return host in _LOOPBACK_NAMES or host.endswith(".localhost")


def address_concern(address: IPAddress) -> str | None:
    """Why an address is not a public one (`a loopback address`, `a private address`, ...), or None.

    IPv6 forms that carry an IPv4 address (mapped, IPv4-compatible, 6to4, Teredo) are judged by it too,
    a NAT64 address by its IPv4 address alone.
    """
    for candidate in _embedded(address):
        concern = _plain_concern(candidate)
        if concern is not None:
            return concern
    return None


def _plain_concern(address: IPAddress) -> str | None:
    if address.is_loopback:
        return "a loopback address (this machine)"
    if address.is_unspecified:
        return "the unspecified address (this machine)"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if isinstance(address, ipaddress.IPv6Address) and address.is_site_local:
        return "a site-local address"
    if address.is_private:
        return "a private address"
    if address.is_reserved or not address.is_global:
        return "a reserved or non-public address"
    return None


def _embedded(address: IPAddress) -> list[IPAddress]:
    """The address, and the IPv4 addresses an IPv6 address carries (a NAT64 address is only its IPv4 one)."""
    if isinstance(address, ipaddress.IPv4Address):
        return [address]
    if address in _NAT64:
        return [ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)]
    found: list[IPAddress] = [address]
    if address.ipv4_mapped is not None:
        found.append(address.ipv4_mapped)
    if address.sixtofour is not None:
        found.append(address.sixtofour)
    if address.teredo is not None:
        found.extend(address.teredo)
    if address in _IPV4_COMPATIBLE:
        found.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return found


def _ipv6(text: str) -> IPAddress:
    try:
        address = ipaddress.IPv6Address(text)
    except ValueError as exc:
        raise HostError(f"{text!r} is not a valid IPv6 address") from exc
    return address.ipv4_mapped or address


def _ipv4(labels: list[str]) -> ipaddress.IPv4Address:
    text = ".".join(labels)
    if len(labels) > 4 or any(not label for label in labels):
        raise HostError(f"{text!r} looks like an IPv4 address but is not one")
    try:
        parts = [_ipv4_part(label) for label in labels]
    except ValueError as exc:
        raise HostError(f"{text!r} looks like an IPv4 address but is not one") from exc
    *leading, last = parts
    if any(part > 255 for part in leading) or last >= 256 ** (5 - len(parts)):
        raise HostError(f"{text!r} is out of range for an IPv4 address")
    number = last
    for index, part in enumerate(leading):
        number += part << (8 * (3 - index))
    return ipaddress.IPv4Address(number)


def _ipv4_part(label: str) -> int:
    if label[:2] in ("0x", "0X"):
        return int(label[2:], 16) if len(label) > 2 else 0
    if len(label) > 1 and label.startswith("0"):
        return int(label, 8)
    return int(label, 10)


def _idna_mapped(name: str) -> str:
    """`name` after the UTS 46 mapping (case folding, full-width forms, dots), still in Unicode."""
    import idna

    try:
        mapped: str = idna.uts46_remap(name, std3_rules=False, transitional=False)
    except idna.IDNAError as exc:
        raise HostError(f"{name!r} is not a valid host name: {exc}") from exc
    labels = []
    for label in mapped.split("."):
        if label.isascii():
            labels.append(label)
            continue
        try:
            labels.append(idna.alabel(label).decode("ascii"))
        except idna.IDNAError as exc:
            raise HostError(f"{name!r} is not a valid host name: {exc}") from exc
    return ".".join(labels)

