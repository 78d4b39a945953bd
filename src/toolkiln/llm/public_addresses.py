"""Which addresses a fetch on a model's behalf may reach: global unicast ones only.

    refusal(ip_address("fec0::1"), [])        # "a site-local address (deprecated, still routed ...)"
    refusal(ip_address("93.184.216.34"), [])  # None: public

Python's `is_global` is the base, with the ranges it calls global although they are not
(its tables vary between Python versions, so the deprecated and special ranges are written
here once): IPv6 site-local fec0::/10, the 6to4 relay anycast 192.88.99.0/24, local-use
NAT64, Teredo, documentation and segment-routing prefixes. IPv6 forms that carry an IPv4
address (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo's client) are judged by the IPv4
address they reach as well; a NAT64 address of a public IPv4 address passes, as DNS64 gives
one for every IPv4-only name on an IPv6-only network.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator, Sequence

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_V4 = ipaddress.IPv4Network
_V6 = ipaddress.IPv6Network
# Not global whatever Python's tables of the day say (IANA's special-purpose registries).
_NOT_GLOBAL: tuple[tuple[Network, str], ...] = (
    (_V6("fec0::/10"), "a site-local address (deprecated, still routed inside some networks)"),
    (_V4("192.88.99.0/24"), "a 6to4 relay anycast address (deprecated)"),
    (_V6("::/96"), "an IPv4-compatible IPv6 address (deprecated)"),
    (_V6("64:ff9b:1::/48"), "a local-use NAT64 address"),
    (_V6("2001::/32"), "a Teredo tunnel address"),
    (_V6("2001:db8::/32"), "a documentation address"),
    (_V6("3fff::/20"), "a documentation address"),
    (_V6("5f00::/16"), "a segment-routing address"),
    (_V6("100::/64"), "a discard-only address"),
)
_NAT64 = _V6("64:ff9b::/96")  # global in Python's tables, yet it reaches any IPv4 address
_IPV4_COMPATIBLE = _V6("::/96")


def refusal(address: IPAddress, allowed: Sequence[Network]) -> str | None:
    """Why `address` must not be reached, or None when it is global or `allowed` names it."""
    if _is_allowed(address, allowed):
        return None
    for inner in embedded_ipv4(address):
        if _is_allowed(inner, allowed):
            return None
        why = refusal(inner, allowed)
        if why is not None:
            return f"which carries {inner}, {why}"
    if address in _NAT64:  # DNS64 gives these for every IPv4-only name on an IPv6-only network
        return None
    if address.is_loopback:
        return "a loopback address"
    if address.is_unspecified:
        return "the unspecified address (this host)"
    if address.is_link_local:
        return "a link-local address (cloud metadata services live there)"
    for network, why in _NOT_GLOBAL:
        if address.version == network.version and address in network:
            return why
    if address.is_private:
        return "a private address"
    if address.is_multicast or address.is_reserved or not address.is_global:
        return "not a public address"
    return None


def embedded_ipv4(address: IPAddress) -> Iterator[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address reaches: mapped, compatible, NAT64, 6to4 and
    Teredo (its client, the address behind the tunnel)."""
    if not isinstance(address, ipaddress.IPv6Address):
        return
    if address.ipv4_mapped is not None:
        yield address.ipv4_mapped
    if (address in _IPV4_COMPATIBLE and int(address) > 1) or address in _NAT64:  # ::, ::1 are not
        yield ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.sixtofour is not None:
        yield address.sixtofour
    if address.teredo is not None:
        yield address.teredo[1]


def _is_allowed(address: IPAddress, allowed: Sequence[Network]) -> bool:
    return any(address in network for network in allowed if network.version == address.version)
