"""The `toolkiln` command line: the dispatcher (`app`), what every command shares (`common`)
and one module per command group. The library packages hold no argparse code."""

from toolkiln.cli.app import build_parser, main

__all__ = ["build_parser", "main"]
