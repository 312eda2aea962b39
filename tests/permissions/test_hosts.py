"""One spelling per host (permissions/hosts.py), and WebFetch domain rules matched on it."""

from __future__ import annotations

import ipaddress

import pytest

from handrail.permissions.hosts import HostError, address_concern, canonical_domain_pattern, canonical_host
from handrail.permissions.rules import PermissionRule, parse_rule, rule_matches_call, url_host


@pytest.mark.parametrize(
    ("spelling", "host"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("127\u30020\u30020\u30021", "127.0.0.1"),  # ideographic full stops
        ("127\uff0e0\uff0e0\uff0e1", "127.0.0.1"),  # full-width full stops
        ("127\uff610\uff610\uff611", "127.0.0.1"),  # half-width ideographic full stops
        ("\uff11\uff12\uff17.0.0.1", "127.0.0.1"),  # full-width digits
        ("127.1", "127.0.0.1"),
        ("127.0.1", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.0.0.1.", "127.0.0.1"),
        ("[::ffff:127.0.0.1]", "127.0.0.1"),
        ("::ffff:7f00:1", "127.0.0.1"),
        ("[::1]", "::1"),
        ("[0:0:0:0:0:0:0:1]", "::1"),
        ("LocalHost.", "localhost"),
        ("Example.COM", "example.com"),
        ("B\u00fccher.example", "xn--bcher-kva.example"),
        ("\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.com", "example.com"),
        ("_dmarc.example.com", "_dmarc.example.com"),
    ],
)
def test_every_spelling_has_one_canonical_host(spelling: str, host: str) -> None:
    assert canonical_host(spelling) == host


@pytest.mark.parametrize(
    "bad", ["", ".", "a..b", "1.2.3.256", "256.1", "1.2.3.4.5", "example.123", "09.1.1.1", "ex ample.com",
            "a/b", "127.0.0.1\\.evil.com", "[::g]", "%31%32%37.0.0.1"],
)
def test_what_names_no_host_is_refused(bad: str) -> None:
    with pytest.raises(HostError):
        canonical_host(bad)


@pytest.mark.parametrize(
    ("address", "concern"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("0.0.0.0", "unspecified"),
        ("10.1.2.3", "private"),
        ("192.168.0.10", "private"),
        ("172.16.0.1", "private"),
        ("169.254.169.254", "link-local"),  # cloud metadata
        ("fe80::1", "link-local"),
        ("fd00::1", "private"),
        ("100.64.0.1", "non-public"),  # carrier-grade NAT
        ("224.0.0.1", "multicast"),
        ("2002:7f00:1::", "loopback"),  # 6to4 of 127.0.0.1
        ("64:ff9b::a00:1", "private"),  # NAT64 of 10.0.0.1
        ("::7f00:1", "non-public"),  # IPv4-compatible
    ],
)
def test_addresses_that_are_not_public_say_why(address: str, concern: str) -> None:
    found = address_concern(ipaddress.ip_address(address))
    assert found is not None and concern in found


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:4700::1111", "64:ff9b::808:808"])
def test_public_addresses_raise_no_concern(address: str) -> None:
    assert address_concern(ipaddress.ip_address(address)) is None


def test_rules_match_the_canonical_host_on_both_sides() -> None:
    assert url_host("http://127.1:8080/x") == "127.0.0.1"
    assert url_host("https://B\u00fccher.example/") == "xn--bcher-kva.example"
    assert canonical_domain_pattern("*.B\u00fccher.Example.") == "*.xn--bcher-kva.example"
    cases = [
        ("domain:127.0.0.1", "http://2130706433/", True),
        ("domain:127.0.0.1", "http://[::ffff:127.0.0.1]:99/", True),
        ("domain:127.1", "http://127.0.0.1/", True),
        ("domain:[::1]", "http://[0::1]/", True),
        ("domain:b\u00fccher.example", "https://xn--bcher-kva.example/", True),
        ("domain:*.b\u00fccher.example", "https://WWW.B\u00dcCHER.example./", True),
        ("domain:localhost", "http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54:1/", True),
        ("domain:127.0.0.1", "http://127.0.0.2/", False),
        ("domain:example.com", "https://example.com.evil.io/", False),
    ]
    for specifier, url, expected in cases:
        rule = parse_rule(f"WebFetch({specifier})", source="user")
        assert isinstance(rule, PermissionRule), rule
        assert rule_matches_call(rule, "WebFetch", url, behavior="deny") is expected, (specifier, url)
