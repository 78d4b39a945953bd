"""Loaded at start-up by a Python process whose PYTHONPATH starts with this folder (the
examples' test): any connection to an address off this machine ends the process with exit
status 97 before it is made. An audit hook sees every connect, also one made by a library at
import time (a data download, a telemetry or tracing exporter)."""

import ipaddress
import os
import socket
import sys


def _loopback(host: object) -> bool:
    try:
        return ipaddress.ip_address(str(host)).is_loopback
    except ValueError:
        return host == "localhost"


def _no_outside_connections(event: str, args: tuple) -> None:
    if event == "socket.connect":
        sock, address = args
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address[0]):
            sys.stderr.write(f"offline: a connection to {address!r} was attempted\n")
            sys.stderr.flush()
            os._exit(97)


sys.addaudithook(_no_outside_connections)
