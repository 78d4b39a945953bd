"""The address policy of wget, table-driven: every non-global range is refused, with the
ranges Python's `is_global` lets through (site-local, 6to4 relay anycast, NAT64 and the other
IPv6 forms that carry a private IPv4 address) named; public addresses and `allow` pass."""

from __future__ import annotations

import ipaddress

import pytest

from toolkiln.llm.public_addresses import embedded_ipv4, refusal

REFUSED = [
    # IPv4
    ("0.0.0.0", "unspecified"),
    ("127.0.0.1", "loopback"),
    ("10.1.2.3", "private"),
    ("172.16.0.1", "private"),
    ("192.168.1.1", "private"),
    ("169.254.169.254", "link-local"),
    ("100.64.0.1", "not a public address"),  # shared address space (carrier NAT)
    ("100.100.100.200", "not a public address"),  # Alibaba's metadata service
    ("192.0.0.170", "private"),
    ("192.0.2.1", "private"),  # documentation
    ("198.18.0.1", "private"),  # benchmarking
    ("192.88.99.1", "6to4 relay anycast"),  # global in Python's tables
    ("224.0.0.1", "not a public address"),
    ("240.0.0.1", "private"),
    ("255.255.255.255", "private"),
    # IPv6
    ("::", "unspecified"),
    ("::1", "loopback"),
    ("fe80::1", "link-local"),
    ("fec0::1", "site-local"),  # global in Python's tables
    ("feff::1", "site-local"),
    ("fd00:ec2::254", "private"),  # AWS's IPv6 metadata service
    ("fc00::1", "private"),
    ("ff02::1", "not a public address"),
    ("100::1", "discard-only"),
    ("2001:db8::1", "documentation"),
    ("3fff::1", "documentation"),
    ("5f00::1", "segment-routing"),
    ("64:ff9b:1::a00:1", "local-use NAT64"),
    ("2001:0:4136:e378:8000:63bf:fefd:fcfb", "Teredo"),  # a public client (1.2.3.4): still refused
    # IPv6 forms that carry a non-global IPv4 address
    ("::ffff:127.0.0.1", "which carries 127.0.0.1, a loopback address"),
    ("::ffff:10.0.0.1", "which carries 10.0.0.1, a private address"),
    ("::10.0.0.1", "which carries 10.0.0.1, a private address"),  # IPv4-compatible, global in Python's tables
    ("::169.254.169.254", "which carries 169.254.169.254, a link-local"),
    ("64:ff9b::a00:1", "which carries 10.0.0.1, a private address"),  # NAT64, global in Python's tables
    ("64:ff9b::a9fe:a9fe", "which carries 169.254.169.254"),
    ("64:ff9b::c058:6301", "which carries 192.88.99.1, a 6to4 relay anycast"),
    ("2002:a00:1::", "which carries 10.0.0.1, a private address"),  # 6to4, global in Python's tables
    ("2002:7f00:1::1", "which carries 127.0.0.1"),
    ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "which carries 10.0.0.1, a private address"),  # Teredo client
    # forms of public IPv4 that are themselves deprecated or not global
    ("::8.8.8.8", "IPv4-compatible"),
    ("::ffff:8.8.8.8", "not a public address"),
]
PUBLIC = ["93.184.216.34", "8.8.8.8", "1.1.1.1", "2606:4700::1111", "2a00:1450:4001:82b::200e", "64:ff9b::808:808"]


@pytest.mark.parametrize(("address", "why"), REFUSED)
def test_non_global_addresses_are_refused_with_a_reason(address: str, why: str) -> None:
    found = refusal(ipaddress.ip_address(address), [])
    assert found is not None and why in found, found


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_pass(address: str) -> None:
    assert refusal(ipaddress.ip_address(address), []) is None


@pytest.mark.parametrize(
    ("address", "allowed"),
    [
        ("127.0.0.1", "127.0.0.1/32"),
        ("10.9.9.9", "10.0.0.0/8"),
        ("::ffff:10.9.9.9", "10.0.0.0/8"),  # the IPv4 it reaches is allowed
        ("fec0::1", "fec0::/10"),
    ],
)
def test_allow_opens_a_network_on_purpose(address: str, allowed: str) -> None:
    assert refusal(ipaddress.ip_address(address), [ipaddress.ip_network(allowed)]) is None


def test_allow_opens_only_its_own_network() -> None:
    assert refusal(ipaddress.ip_address("10.0.0.1"), [ipaddress.ip_network("127.0.0.0/8")]) == "a private address"


@pytest.mark.parametrize(
    ("address", "inner"),
    [
        ("::ffff:1.2.3.4", ["1.2.3.4"]),
        ("::1.2.3.4", ["1.2.3.4"]),
        ("64:ff9b::102:304", ["1.2.3.4"]),
        ("2002:102:304::1", ["1.2.3.4"]),
        ("2001:0:4136:e378:8000:63bf:fefd:fcfb", ["1.2.3.4"]),
        ("::1", []),
        ("2606:4700::1111", []),
        ("1.2.3.4", []),
    ],
)
def test_the_ipv4_addresses_an_ipv6_address_reaches(address: str, inner: list[str]) -> None:
    assert [str(found) for found in embedded_ipv4(ipaddress.ip_address(address))] == inner
